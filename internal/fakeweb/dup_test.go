package fakeweb_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/net/html"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// dupConfig is a small web with duplicate content.
func dupConfig() fakeweb.Config {
	return fakeweb.Config{Hosts: 3, PagesPerHost: 6, LinksPerPage: 3, PageSize: 500, Seed: 11, Duplicates: true}
}

// fetchRaw GETs rawURL asking for no content coding, and returns the
// answer with its body as sent (not decoded).
func fetchRaw(t *testing.T, c *http.Client, rawURL string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	resp := rawGet(t, t.Context(), c, rawURL, hdr...)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	return resp, body
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	return out
}

func TestDuplicatesHomeLinks(t *testing.T) {
	tw := startWeb(t, dupConfig())
	home := hrefs(get(t, tw.proxy, "http://h1.fake.test/").body)
	for _, p := range []string{"/d/exact/0", "/d/exact/1", "/d/exact/2", "/d/near/0/0", "/d/near/2/3", "/d/distinct/0", "/d/distinct/5"} {
		if !slices.Contains(home, p) {
			t.Errorf("the home page of h1 has no link to %s", p)
		}
	}
	for _, p := range []string{"/d/exact/3", "/d/near/3/0", "/d/near/0/4", "/d/distinct/6", "/d/exact/", "/d/near/0"} {
		if r := get(t, tw.proxy, "http://h1.fake.test"+p); r.status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, r.status)
		}
	}
}

func TestDuplicatesExact(t *testing.T) {
	tw := startWeb(t, dupConfig())
	plain, plainBody := fetchRaw(t, tw.proxy, "http://h0.fake.test/d/exact/0")
	if plain.StatusCode != 200 || len(plainBody) < 4096 || plain.ContentLength != int64(len(plainBody)) {
		t.Fatalf("GET /d/exact/0 = %d, %d bytes, Content-Length %d; want 200, at least 4096 bytes with a Content-Length",
			plain.StatusCode, len(plainBody), plain.ContentLength)
	}
	ct := plain.Header.Get("Content-Type")
	for _, host := range []string{"h0", "h1", "h2"} {
		base := "http://" + host + ".fake.test/d/exact/"
		for n := range 3 {
			u := base + string(rune('0'+n))
			resp, body := fetchRaw(t, tw.proxy, u)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ct {
				t.Errorf("GET %s = %d, Content-Type %q; want 200, %q", u, resp.StatusCode, resp.Header.Get("Content-Type"), ct)
			}
			switch n {
			case 1:
				if resp.Header.Get("Content-Encoding") != "gzip" {
					t.Errorf("GET %s: Content-Encoding %q, want gzip", u, resp.Header.Get("Content-Encoding"))
					continue
				}
				if len(body) < 10 || body[3]&0x08 != 0 || !bytes.Equal(body[4:8], []byte{0, 0, 0, 0}) {
					t.Errorf("GET %s: gzip header % x names a file or a time", u, body[:min(len(body), 10)])
				}
				_, again := fetchRaw(t, tw.proxy, u, "Accept-Encoding", "gzip")
				if !bytes.Equal(body, again) {
					t.Errorf("GET %s twice: the compressed bytes differ", u)
				}
				body = gunzip(t, body)
			case 2:
				if resp.ContentLength != -1 || !slices.Contains(resp.TransferEncoding, "chunked") {
					t.Errorf("GET %s: Content-Length %d, Transfer-Encoding %q; want chunked, no length",
						u, resp.ContentLength, resp.TransferEncoding)
				}
			}
			if n != 1 && resp.Header.Get("Content-Encoding") != "" {
				t.Errorf("GET %s: Content-Encoding %q, want none", u, resp.Header.Get("Content-Encoding"))
			}
			if !bytes.Equal(body, plainBody) {
				t.Errorf("GET %s: content differs from h0 /d/exact/0", u)
			}
		}
	}
	if want, ok := tw.web.Page("http://h2.fake.test/d/exact/1"); !ok || !bytes.Equal(gunzip(t, want), plainBody) {
		t.Errorf("Page(/d/exact/1) = %v; want the compressed copy", ok)
	}
}

// visibleWords returns the lower-cased words of the text of an HTML
// page's body, as a near-duplicate detector would read it.
func visibleWords(body []byte) []string {
	var words []string
	z := html.NewTokenizer(bytes.NewReader(body))
	inBody := false
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		switch tt {
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "body" {
				inBody = true
			}
		case html.TextToken:
			if inBody {
				words = append(words, strings.FieldsFunc(strings.ToLower(string(z.Text())), func(r rune) bool {
					return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
				})...)
			}
		}
	}
	return words
}

// shingles returns the set of word 3-shingles of words.
func shingles(words []string) map[string]bool {
	set := map[string]bool{}
	for i := 0; i+3 <= len(words); i++ {
		set[strings.Join(words[i:i+3], " ")] = true
	}
	return set
}

func jaccard(a, b map[string]bool) float64 {
	both := 0
	for s := range a {
		if b[s] {
			both++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}

// TestContentLabels checks that the labels say what the web serves:
// exact members are the same bytes, near members share most of their
// shingles and pages of different clusters almost none.
func TestContentLabels(t *testing.T) {
	cfg := dupConfig()
	cfg.Robots = []fakeweb.RobotsKind{fakeweb.RobotsAllow, fakeweb.RobotsServerError, fakeweb.RobotsDisallow}
	tw := startWeb(t, cfg)
	labels := tw.web.ContentLabels()
	if len(labels) != 2*21 {
		t.Fatalf("ContentLabels() has %d labels, want %d (h1 is unavailable)", len(labels), 2*21)
	}
	for _, s := range tw.web.Seeds() {
		get(t, tw.proxy, s+"robots.txt")
	}
	type page struct {
		label fakeweb.ContentLabel
		body  []byte
		set   map[string]bool
	}
	var pages []page
	kinds := map[string]int{}
	for _, l := range labels {
		if strings.HasPrefix(l.URL, "http://h1.") {
			t.Errorf("label %+v is on an unavailable host", l)
		}
		resp, body := fetchRaw(t, tw.proxy, l.URL)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != l.Encoding ||
			(resp.ContentLength == -1) != l.Chunked {
			t.Errorf("GET %s = %d, Content-Encoding %q, Content-Length %d; label %+v", l.URL, resp.StatusCode,
				resp.Header.Get("Content-Encoding"), resp.ContentLength, l)
		}
		if l.Encoding == "gzip" {
			body = gunzip(t, body)
		}
		kinds[l.Kind]++
		pages = append(pages, page{l, body, shingles(visibleWords(body))})
	}
	if want := map[string]int{"exact": 6, "near": 24, "distinct": 12}; !equalCounts(kinds, want) {
		t.Errorf("labels by kind %v, want %v", kinds, want)
	}
	var nearMin, otherMax float64 = 1, 0
	clusters := map[string]bool{}
	for i, a := range pages {
		if a.label.Kind == "distinct" {
			if clusters[a.label.Cluster] {
				t.Errorf("distinct page %s shares cluster %q", a.label.URL, a.label.Cluster)
			}
			clusters[a.label.Cluster] = true
		}
		for _, b := range pages[i+1:] {
			same := a.label.Cluster == b.label.Cluster
			if same && a.label.Kind == "exact" {
				if !bytes.Equal(a.body, b.body) {
					t.Errorf("exact %s and %s differ", a.label.URL, b.label.URL)
				}
				continue
			}
			j := jaccard(a.set, b.set)
			switch {
			case same:
				nearMin = min(nearMin, j)
				if j <= 0.8 {
					t.Errorf("near %s and %s: Jaccard %.3f, want > 0.8", a.label.URL, b.label.URL, j)
				}
			case a.label.Kind != "exact" || b.label.Kind != "exact":
				otherMax = max(otherMax, j)
				if j >= 0.2 {
					t.Errorf("%s and %s of different clusters: Jaccard %.3f, want < 0.2", a.label.URL, b.label.URL, j)
				}
				if bytes.Equal(a.body, b.body) {
					t.Errorf("%s and %s of different clusters are the same", a.label.URL, b.label.URL)
				}
			}
		}
	}
	t.Logf("near members: Jaccard >= %.3f; different clusters: <= %.3f", nearMin, otherMax)

	rep := tw.web.Report(fakeweb.Judge{})
	if want := map[string]int{"exact": 6, "near": 24, "distinct": 12}; !equalCounts(rep.ContentDuplicates, want) ||
		rep.Duplicates != 0 || rep.OutOfTruth != 0 || rep.DisallowedRequests != 0 {
		t.Errorf("ContentDuplicates %v, want %v; report:\n%v", rep.ContentDuplicates, want, rep)
	}
	for _, m := range rep.Missing {
		if strings.Contains(m, "/d/") {
			t.Errorf("fetched page %s reported missing", m)
		}
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestConditionalRobots(t *testing.T) {
	cfg := fakeweb.Config{Hosts: 3, PagesPerHost: 4, ConditionalRobots: true,
		Robots: []fakeweb.RobotsKind{fakeweb.RobotsAllow, fakeweb.RobotsRedirect, fakeweb.RobotsNotFound}}
	tw := startWeb(t, cfg)
	const u = "http://h0.fake.test/robots.txt"
	etag, asked, notModified := checkConditional(t, tw.proxy, u)
	for _, c := range []struct {
		url   string
		etag  bool
		cond  int
		extra string
	}{
		{"http://h1.fake.test/robots.txt", false, 301, ""},
		{"http://h1.fake.test/robots-real.txt", true, 304, ""},
		{"http://h2.fake.test/robots.txt", false, 404, ""},
		{"http://h0.fake.test/p/1", false, 200, "pages of a host that is not hostile have no validators"},
	} {
		r := get(t, tw.proxy, c.url)
		if (r.header.Get("ETag") != "") != c.etag {
			t.Errorf("GET %s: ETag %q, want one: %v %s", c.url, r.header.Get("ETag"), c.etag, c.extra)
		}
		if resp, _ := fetchRaw(t, tw.proxy, c.url, "If-None-Match", "*"); resp.StatusCode != c.cond {
			t.Errorf("GET %s If-None-Match: * = %d, want %d", c.url, resp.StatusCode, c.cond)
		}
	}
	rep := tw.web.Report(fakeweb.Judge{})
	// The table, then one If-None-Match: * per host above (a 304 on h1).
	if rep.RobotsConditional != asked+3 || rep.RobotsNotModified != notModified+1 ||
		rep.ConditionalRequests != asked+4 || rep.NotModified != notModified+1 {
		t.Errorf("robots conditional %d, not modified %d; all conditional %d, not modified %d; want %d, %d, %d, %d",
			rep.RobotsConditional, rep.RobotsNotModified, rep.ConditionalRequests, rep.NotModified, asked+3, notModified+1, asked+4, notModified+1)
	}

	// A 304 tells the judge the host's rules as a 200 does.
	tw.web.Reset()
	if resp, _ := fetchRaw(t, tw.proxy, u, "If-None-Match", etag); resp.StatusCode != 304 {
		t.Fatalf("GET %s If-None-Match = %d, want 304", u, resp.StatusCode)
	}
	get(t, tw.proxy, "http://h0.fake.test/")
	if rep := tw.web.Report(fakeweb.Judge{}); rep.BeforeRobots != 0 || rep.RobotsNotModified != 1 {
		t.Errorf("after a 304 for robots.txt: before robots %d, robots not modified %d; want 0, 1", rep.BeforeRobots, rep.RobotsNotModified)
	}
}

// TestContentLabelsSeeds checks the thresholds of TestContentLabels hold
// for other seeds, reading the pages with Page.
func TestContentLabelsSeeds(t *testing.T) {
	for seed := range int64(6) {
		w, err := fakeweb.New(fakeweb.Config{Hosts: 2, Seed: seed * 7919, Duplicates: true})
		if err != nil {
			t.Fatal(err)
		}
		labels := w.ContentLabels()
		sets := make([]map[string]bool, len(labels))
		for i, l := range labels {
			body, ok := w.Page(l.URL)
			if !ok {
				t.Fatalf("Page(%s) = false", l.URL)
			}
			if l.Encoding == "gzip" {
				body = gunzip(t, body)
			}
			if n := len(visibleWords(body)); n < 400 || n > 800 {
				t.Errorf("seed %d: %s has %d words, want 400..800", seed, l.URL, n)
			}
			sets[i] = shingles(visibleWords(body))
		}
		for i, a := range labels {
			for k := i + 1; k < len(labels); k++ {
				b := labels[k]
				j := jaccard(sets[i], sets[k])
				switch {
				case a.Cluster == b.Cluster && j <= 0.8:
					t.Errorf("seed %d: %s and %s of one cluster: Jaccard %.3f, want > 0.8", seed, a.URL, b.URL, j)
				case a.Cluster != b.Cluster && j >= 0.2:
					t.Errorf("seed %d: %s and %s: Jaccard %.3f, want < 0.2", seed, a.URL, b.URL, j)
				}
			}
		}
	}
}

// TestPoliteCrawlDuplicates checks that the ground truth of the duplicate
// pages is what a correct crawl finds: every one covered, nothing else.
func TestPoliteCrawlDuplicates(t *testing.T) {
	kinds := fakeweb.RobotsKinds()
	cfg := fakeweb.Config{Hosts: len(kinds), PagesPerHost: 8, LinksPerPage: 3, PageSize: 600, Robots: kinds,
		CrawlDelay: 4 * time.Millisecond, Seed: 3, Duplicates: true, ConditionalRobots: true}
	for _, maxDepth := range []int{0, 1} {
		tw := startWeb(t, cfg)
		c := &politeCrawler{client: tw.proxy, delay: 2 * time.Millisecond, maxDepth: maxDepth,
			robotsTimeout: 250 * time.Millisecond, robotsRetries: 3}
		c.crawl(t, tw.web.Seeds())
		rep := tw.web.Report(fakeweb.Judge{Delay: c.delay, MaxDepth: maxDepth})
		if !rep.OK() || rep.Coverage != 1 {
			t.Errorf("max depth %d: polite crawl judged:\n%v", maxDepth, rep)
		}
		// Every available host has 21 duplicate pages, all at depth 1.
		avail := len(tw.web.ContentLabels()) / 21
		if want := map[string]int{"exact": 3 * avail, "near": 12 * avail, "distinct": 6 * avail}; !equalCounts(rep.ContentDuplicates, want) {
			t.Errorf("max depth %d: ContentDuplicates %v, want %v", maxDepth, rep.ContentDuplicates, want)
		}
	}
}
