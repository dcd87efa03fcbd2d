package fakeweb_test

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestTrapRequestsJudged: a crawler that falls into each trap is seen
// doing it, request by request, and the trap pages are not held against
// it as out of the ground truth.
func TestTrapRequestsJudged(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 3, PagesPerHost: 10, Seed: 1, Traps: fakeweb.AllTraps()})
	for h := range 3 {
		get(t, tw.proxy, "http://h"+strconv.Itoa(h)+".fake.test/robots.txt")
	}
	steps := []struct {
		url    string
		status int
		trap   fakeweb.TrapKind // "" for an ordinary page
	}{
		{"http://h0.fake.test/", 200, ""},
		{"http://h0.fake.test/calendar/2026/11/", 200, fakeweb.TrapCalendar},
		{"http://h0.fake.test/calendar/2026/12/", 200, fakeweb.TrapCalendar},
		{"http://h1.fake.test/docs/a/b/a/b/", 200, fakeweb.TrapRepeatingPaths},
		{"http://h2.fake.test/search?q=tide&lang=en&sort=relevance&view=list", 200, fakeweb.TrapSearch},
		{"http://h2.fake.test/search?q=tide&lang=en&sort=relevance&view=list&page=2", 200, fakeweb.TrapSearch},
		{"http://h0.fake.test/hidden/0/comment", 200, fakeweb.TrapHiddenLinks},
		{"http://h0.fake.test/5", 404, fakeweb.TrapBaseHref},
		{"http://h0.fake.test/p/1?utm_source=site&amp;utm_medium=link", 200, fakeweb.TrapEscapedQueries},
		{"http://h1.fake.test/p/2;jsessionid=abc", 200, ""},
		{"http://h1.fake.test/p/2?sid=def", 200, fakeweb.TrapSessionIDs},
		{"http://h1.fake.test/p/3%3E", 404, fakeweb.TrapUpperCaseAttrs},
	}
	want := map[fakeweb.TrapKind]int{}
	total := 0
	for _, s := range steps {
		if r := get(t, tw.proxy, s.url); r.status != s.status {
			t.Errorf("GET %s = %d, want %d", s.url, r.status, s.status)
		}
		if s.trap != "" {
			want[s.trap]++
			total++
		}
	}
	r := tw.web.Report(fakeweb.Judge{})
	if r.TrapRequests != total {
		t.Errorf("TrapRequests = %d, want %d", r.TrapRequests, total)
	}
	for _, k := range fakeweb.AllTraps().Kinds() {
		if r.Traps[k] != want[k] {
			t.Errorf("Traps[%s] = %d, want %d", k, r.Traps[k], want[k])
		}
	}
	if r.OutOfTruth != 0 {
		t.Errorf("OutOfTruth = %d, want 0: trap requests are counted as such\n%s", r.OutOfTruth, r)
	}
	// The second session ID fetched a page again.
	if r.Duplicates != 1 {
		t.Errorf("Duplicates = %d, want 1\n%s", r.Duplicates, r)
	}
	if r.OK() {
		t.Error("Report.OK() after a link from a comment was followed")
	}
	if !strings.Contains(r.String(), "hidden-links 1") {
		t.Errorf("Report.String() does not show the traps:\n%s", r)
	}
}

// TestTrapEntries: every ordinary page of a host links to the host's
// generative trap, and trap pages link onward as documented.
func TestTrapEntries(t *testing.T) {
	w, err := fakeweb.New(fakeweb.Config{Hosts: 3, PagesPerHost: 10, Seed: 2, Traps: fakeweb.AllTraps()})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		page string
		want []string // hrefs as written
	}{
		{"http://h0.fake.test/p/4", []string{"/calendar/2026/11/"}},
		{"http://h0.fake.test/calendar/2026/11/", []string{"/calendar/2026/10/", "/calendar/2026/12/", "/"}},
		{"http://h0.fake.test/calendar/2027/01/", []string{"/calendar/2026/12/", "/calendar/2027/02/"}},
		{"http://h1.fake.test/", []string{"/docs/a/b/"}},
		{"http://h1.fake.test/docs/a/b/a/b/", []string{"a/b/", "/"}},
		{"http://h2.fake.test/p/9", []string{"/search?q=tide&lang=en&sort=relevance&view=list"}},
		{"http://h2.fake.test/search?q=x", []string{"/search?q=x&q=x&page=2"}},
		{"http://h2.fake.test/search?q=x&q=x&page=2", []string{"/search?q=x&q=x&page=2&q=x&q=x&page=2&page=3"}},
	}
	for _, tt := range tests {
		body, ok := w.Page(tt.page)
		if !ok {
			t.Fatalf("Page(%q) not found", tt.page)
		}
		hrefs := anchors(body)
		for _, h := range tt.want {
			if !hrefs[h] {
				t.Errorf("Page(%q) has no link %q; it has %v", tt.page, h, hrefs)
			}
		}
	}
}

// anchors returns the href of every <a> a tokenizer sees.
func anchors(body []byte) map[string]bool {
	hrefs := map[string]bool{}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return hrefs
		}
		if tt != html.StartTagToken {
			continue
		}
		if name, _ := z.TagName(); string(name) != "a" {
			continue
		}
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			if string(k) == "href" {
				hrefs[string(v)] = true
			}
		}
	}
}

// TestHiddenLinksInvisible: the links in comments and scripts exist in
// the markup but no tokenizer reports them as elements.
func TestHiddenLinksInvisible(t *testing.T) {
	w, err := fakeweb.New(fakeweb.Config{Hosts: 2, PagesPerHost: 5, Traps: fakeweb.Traps{HiddenLinks: true}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := w.Page("http://h1.fake.test/p/3")
	if n := bytes.Count(body, []byte("/hidden/")); n < 5 {
		t.Errorf("%d hidden links in the markup, want 5", n)
	}
	for h := range anchors(body) {
		if strings.Contains(h, "/hidden/") {
			t.Errorf("a tokenizer sees <a href=%q>: it is not hidden", h)
		}
	}
	if r := get(t, startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 5}).proxy, "http://h1.fake.test/hidden/3/comment"); r.status != http.StatusNotFound {
		t.Errorf("without the trap /hidden/ answers %d, want 404", r.status)
	}
}
