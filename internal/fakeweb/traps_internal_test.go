package fakeweb

import (
	"strings"
	"testing"
)

func TestResolveTrap(t *testing.T) {
	w, err := New(Config{Hosts: 4, PagesPerHost: 10, Traps: AllTraps()})
	if err != nil {
		t.Fatal(err)
	}
	// Host i carries generative trap i%3: calendar, repeating paths, search.
	tests := []struct {
		host int
		path string
		want resourceKind
	}{
		{0, "/calendar/2026/11/", resCalendar},
		{0, "/calendar/1000/01/", resCalendar},
		{0, "/calendar/9999/12/", resCalendar},
		{0, "/calendar/2026/13/", resNotFound},
		{0, "/calendar/2026/1/", resNotFound},
		{0, "/calendar/+026/11/", resNotFound},
		{1, "/calendar/2026/11/", resNotFound}, // not this host's trap
		{1, "/docs/a/b/", resLoop},
		{1, "/docs/a/b/a/b/a/b/", resLoop},
		{1, "/docs/a/b/a/", resNotFound},
		{1, "/docs/", resNotFound},
		{2, "/search", resSearch},
		{0, "/search", resNotFound},
		{3, "/calendar/2026/11/", resCalendar},
		{0, "/hidden/3/comment", resHidden},
		{2, "/hidden/x", resHidden},
		{0, "/7", resBaseMiss},
		{0, "/07", resNotFound},
		{0, "/p/7", resPage},
	}
	for _, tt := range tests {
		if got := w.resolve(tt.host, tt.path); got.kind != tt.want {
			t.Errorf("resolve(h%d, %q) = %v, want kind %v", tt.host, tt.path, got, tt.want)
		}
	}
	plain, _ := New(Config{Hosts: 4, PagesPerHost: 10})
	for _, p := range []string{"/calendar/2026/11/", "/docs/a/b/", "/search", "/hidden/1", "/7"} {
		if got := plain.resolve(0, p); got.kind != resNotFound {
			t.Errorf("without traps, resolve(h0, %q) = %v, want not found", p, got)
		}
	}
}

func TestRelPath(t *testing.T) {
	tests := []struct{ dir, target, want string }{
		{"/p/b/", "/p/7", "../7"},
		{"/p/b/", "/", "../../"},
		{"/p/b/", "/r/3", "../../r/3"},
		{"/p/b/", "/p/b/", ""},
		{"/p/", "/p/7", "7"},
		{"/", "/p/7", "p/7"},
		{"/private/", "/p/7", "../p/7"},
	}
	for _, tt := range tests {
		if got := relPath(tt.dir, tt.target); got != tt.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", tt.dir, tt.target, got, tt.want)
		}
	}
}

func TestSessionOf(t *testing.T) {
	tests := []struct{ path, query, want string }{
		{"/p/7", "", ""},
		{"/p/7;jsessionid=AB12", "", "AB12"},
		{"/p/7;JSESSIONID=ab;x=1", "", "ab"},
		{"/p/7", "utm_source=x&PHPSESSID=99", "99"},
		{"/p/7", "sid=5", "5"},
		{"/p/7", "sidx=5", ""},
	}
	for _, tt := range tests {
		if got := sessionOf(tt.path, tt.query); got != tt.want {
			t.Errorf("sessionOf(%q, %q) = %q, want %q", tt.path, tt.query, got, tt.want)
		}
	}
	for in, want := range map[string]string{
		"/p/7;jsessionid=1":    "/p/7",
		"/;jsessionid=1":       "/",
		"/p;a=1/7;b=2":         "/p/7",
		"/p/7":                 "/p/7",
		"/p/b/../;jsessionid=": "/p/b/../",
	} {
		if got := stripPathParams(in); got != want {
			t.Errorf("stripPathParams(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSessionIDsMintURLs: the links of a page depend on the session ID
// the request carried, so every visit spells the same pages anew.
func TestSessionIDsMintURLs(t *testing.T) {
	w, err := New(Config{Hosts: 2, PagesPerHost: 10, Seed: 1, Traps: Traps{SessionIDs: true}})
	if err != nil {
		t.Fatal(err)
	}
	a, okA := w.Page("http://h0.fake.test/p/3")
	b, okB := w.Page("http://h0.fake.test/p/3;jsessionid=0123")
	c, okC := w.Page("http://h0.fake.test/p/3?sid=0123")
	if !okA || !okB || !okC {
		t.Fatalf("Page with session IDs: ok = %v %v %v", okA, okB, okC)
	}
	if string(a) == string(b) {
		t.Error("the same page for two session IDs: no new URLs are minted")
	}
	if string(b) != string(c) {
		t.Error("one session ID in the path and in the query gives two pages")
	}
	for _, want := range []string{";jsessionid=", "PHPSESSID=", "sid="} {
		if !strings.Contains(string(a)+string(b), want) {
			t.Errorf("no link spells its session ID as %q", want)
		}
	}
}

// TestTrapsKeepTruth: enabling traps adds trap pages but does not change
// the ordinary link graph.
func TestTrapsKeepTruth(t *testing.T) {
	cfg := Config{Hosts: 6, PagesPerHost: 40, Seed: 5, Robots: []RobotsKind{RobotsAllow, RobotsDisallow}}
	plain, _ := New(cfg)
	cfg.Traps = AllTraps()
	trapped, _ := New(cfg)
	a, b := plain.truth(plain.Seeds(), 0), trapped.truth(trapped.Seeds(), 0)
	if a.reachable != b.reachable {
		t.Errorf("reachable pages: %d without traps, %d with", a.reachable, b.reachable)
	}
	for i := range a.pages {
		if a.pages[i] != b.pages[i] {
			t.Fatalf("page %d: depth %d without traps, %d with", i, a.pages[i], b.pages[i])
		}
	}
}
