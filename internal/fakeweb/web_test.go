package fakeweb

import (
	"bytes"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

var allKinds = []RobotsKind{RobotsAllow, RobotsDisallow, RobotsCrawlDelay, RobotsNotFound, RobotsServerError, RobotsHang}

// urlsOf lists every URL answered 200 on a web: pages, private pages,
// robots.txt files, and what the features add.
func urlsOf(w *Web) []string {
	var urls []string
	for h := range w.cfg.Hosts {
		base := "http://" + w.hostName(h)
		urls = append(urls, base+"/robots.txt", base+"/", base+robotsRealPath)
		for _, p := range sitemapPaths {
			urls = append(urls, base+p)
		}
		for n := range w.cfg.orphans() {
			urls = append(urls, base+orphanPrefix+strconv.Itoa(n))
		}
		if w.cfg.PageSignals {
			for n := range numNofollowPages {
				urls = append(urls, base+nofollowPrefix+strconv.Itoa(n))
			}
			for n := range numFollowPages {
				urls = append(urls, base+followPrefix+strconv.Itoa(n))
			}
		}
		for _, p := range wildPaths {
			urls = append(urls, base+p)
		}
		for n := 1; n < w.cfg.PagesPerHost; n++ {
			urls = append(urls, base+"/p/"+strconv.Itoa(n))
		}
		if w.kind(h).hasPrivate() {
			for n := range w.cfg.PagesPerHost {
				urls = append(urls, base+"/private/"+strconv.Itoa(n))
			}
		}
	}
	return urls
}

// featuresConfig enables every robots.txt kind and feature on a small web.
var featuresConfig = Config{
	Hosts: 10, PagesPerHost: 30, Robots: RobotsKinds(), Seed: 42,
	Sitemaps: true, PageSignals: true, RedirectShare: 0.1,
}

func TestDeterminism(t *testing.T) {
	t.Run("features off", func(t *testing.T) {
		testDeterminism(t, Config{Hosts: 6, PagesPerHost: 30, Robots: allKinds, Seed: 42})
	})
	t.Run("features on", func(t *testing.T) {
		cfg := featuresConfig
		cfg.Traps = AllTraps()
		testDeterminism(t, cfg)
	})
}

func testDeterminism(t *testing.T, cfg Config) {
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(cfg)
	cfg.Seed = 43
	other, _ := New(cfg)
	differs := 0
	for _, u := range urlsOf(a) {
		pa, okA := a.Page(u)
		pb, okB := b.Page(u)
		again, _ := a.Page(u)
		if !okA || !okB {
			if okA != okB {
				t.Errorf("Page(%q) ok = %v and %v on identical webs", u, okA, okB)
			}
			continue
		}
		if !bytes.Equal(pa, pb) || !bytes.Equal(pa, again) {
			t.Errorf("Page(%q) differs between identical configs or calls", u)
		}
		if po, _ := other.Page(u); !bytes.Equal(pa, po) {
			differs++
		}
	}
	if differs == 0 {
		t.Error("changing Seed changed no page")
	}
}

func TestPageSize(t *testing.T) {
	for _, size := range []int{1, 600, 2048, 20000} {
		w, err := New(Config{Hosts: 2, PagesPerHost: 10, PageSize: size})
		if err != nil {
			t.Fatal(err)
		}
		for n := range 10 {
			u := "http://h1.fake.test/p/" + strconv.Itoa(n)
			if n == 0 {
				u = "http://h1.fake.test/"
			}
			body, ok := w.Page(u)
			if !ok {
				t.Fatalf("Page(%q) not ok", u)
			}
			// Markup can exceed a small size; padding may overshoot by a word.
			if size > 1500 && (len(body) < size || len(body) > size+40) {
				t.Errorf("PageSize %d: Page(%q) has %d bytes", size, u, len(body))
			}
			if !bytes.HasSuffix(body, []byte("</html>\n")) {
				t.Errorf("Page(%q) does not end with </html>", u)
			}
		}
	}
}

// extracted is what a tokenizer-based crawler finds on a page.
type extracted struct {
	crawlable []string // canonical "http://host/path", sorted
	nofollow  []string // those of them with rel="nofollow", sorted
	ignored   []string // hrefs with other schemes
}

// extract resolves links the way a browser would, with x/net/html's
// tokenizer and net/url, independently of this package's code.
func extract(t *testing.T, pageURL string, body []byte) extracted {
	t.Helper()
	page, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	base := page
	var refs []string
	nofollow := map[int]bool{} // by index in refs
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		attr := func(key string) string {
			for _, a := range tok.Attr {
				if a.Key == key {
					return a.Val
				}
			}
			return ""
		}
		switch tok.Data {
		case "base":
			if base == page {
				if base, err = page.Parse(attr("href")); err != nil {
					t.Fatalf("%s: bad base: %v", pageURL, err)
				}
			}
		case "a", "area":
			if slices.Contains(strings.Fields(strings.ToLower(attr("rel"))), "nofollow") {
				nofollow[len(refs)] = true
			}
			refs = append(refs, attr("href"))
		case "link":
			if attr("rel") == "next" {
				refs = append(refs, attr("href"))
			}
		case "iframe", "frame":
			refs = append(refs, attr("src"))
		}
	}
	var e extracted
	for i, ref := range refs {
		u, err := base.Parse(ref)
		if err != nil {
			t.Fatalf("%s: bad link %q: %v", pageURL, ref, err)
		}
		if u.Scheme != "http" {
			e.ignored = append(e.ignored, ref)
			continue
		}
		host := strings.TrimSuffix(strings.ToLower(u.Host), ":80")
		e.crawlable = append(e.crawlable, "http://"+host+u.Path)
		if nofollow[i] {
			e.nofollow = append(e.nofollow, "http://"+host+u.Path)
		}
	}
	slices.Sort(e.crawlable)
	slices.Sort(e.nofollow)
	return e
}

// TestLinksResolveToTheirTargets checks every spelling of every link on a
// whole web against the link graph the judge uses.
func TestLinksResolveToTheirTargets(t *testing.T) {
	t.Run("features off", func(t *testing.T) {
		testLinksResolve(t, Config{Hosts: 6, PagesPerHost: 60, Robots: allKinds, Seed: 7, RedirectShare: 0.1})
	})
	t.Run("features on", func(t *testing.T) {
		cfg := featuresConfig
		cfg.PagesPerHost = 60
		testLinksResolve(t, cfg)
	})
}

func testLinksResolve(t *testing.T, cfg Config) {
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	forms := map[form]int{}
	tags := map[tag]int{}
	ignored := map[string]int{}
	src := &rand.PCG{}
	r := rand.New(src)
	check := func(host, n int, private bool) {
		p := target{host: host, kind: resPage, n: n}
		if private {
			p.kind = resPrivate
		}
		pageURL := "http://" + w.hostName(host) + pathOf(p)
		body, ok := w.Page(pageURL)
		if !ok {
			t.Fatalf("Page(%q) not ok", pageURL)
		}
		links := w.appendLinks(nil, src, r, host, n, private)
		var want, wantNofollow []string
		for _, l := range links {
			u := "http://" + w.hostName(l.to.host) + pathOf(l.to)
			want = append(want, u)
			if l.nofollow {
				wantNofollow = append(wantNofollow, u)
			}
			forms[l.form]++
			tags[l.tag]++
		}
		slices.Sort(want)
		slices.Sort(wantNofollow)
		got := extract(t, pageURL, body)
		if !slices.Equal(got.crawlable, want) {
			t.Errorf("links of %s resolve to\n%v\nwant\n%v", pageURL, got.crawlable, want)
		}
		if !slices.Equal(got.nofollow, wantNofollow) {
			t.Errorf("rel=nofollow links of %s resolve to\n%v\nwant\n%v", pageURL, got.nofollow, wantNofollow)
		}
		for _, ref := range got.ignored {
			scheme, _, _ := strings.Cut(ref, ":")
			ignored[scheme]++
		}
	}
	for h := range w.cfg.Hosts {
		for n := range w.cfg.PagesPerHost {
			check(h, n, false)
			if w.kind(h).hasPrivate() {
				check(h, n, true)
			}
		}
	}
	for f := range numForms {
		if forms[f] == 0 {
			t.Errorf("no link spelled with form %d", f)
		}
	}
	for g := tagA; g <= tagFrame; g++ {
		if tags[g] == 0 {
			t.Errorf("no link written with tag %d", g)
		}
	}
	for _, scheme := range []string{"mailto", "javascript", "tel"} {
		if ignored[scheme] == 0 {
			t.Errorf("no %s: link on the whole web", scheme)
		}
	}
}

func TestEveryPageReachable(t *testing.T) {
	for _, cfg := range []Config{
		{Hosts: 3, PagesPerHost: 1},
		{Hosts: 3, PagesPerHost: 2, LinksPerPage: 2, CrossHostShare: -1, RedirectShare: -1},
		{Hosts: 4, PagesPerHost: 100, LinksPerPage: 2, CrossHostShare: -1, RedirectShare: -1},
		{Hosts: 5, PagesPerHost: 77, Robots: []RobotsKind{RobotsDisallow, RobotsNotFound}},
	} {
		w, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tr := w.truth(w.Seeds(), 0)
		if want := w.cfg.Hosts * w.cfg.PagesPerHost; tr.reachable != want {
			t.Errorf("%+v: %d pages reachable, want all %d", cfg, tr.reachable, want)
		}
	}
}

func TestTruth(t *testing.T) {
	// With two links per page and no random links on inner pages the
	// depths are those of the binary tree: 0 | 1 2 | 3 4 5 6 | 7 ...
	tree := Config{Hosts: 1, PagesPerHost: 15, LinksPerPage: 2, CrossHostShare: -1, RedirectShare: -1}
	tests := []struct {
		name     string
		cfg      Config
		seeds    []string
		maxDepth int
		want     int
	}{
		{"depth 1", tree, nil, 1, 3},
		{"depth 2", tree, nil, 2, 7},
		{"depth 3", tree, nil, 3, 15},
		{"seed deeper in the tree", tree, []string{"http://h0.fake.test/p/3"}, 1, 3},
		{"seed spelled oddly", tree, []string{"http://H0.FAKE.TEST:80/p/./3?utm_source=x#top"}, 1, 3},
		{"redirect seed has the depth of its target", tree, []string{"http://h0.fake.test/r/3"}, 1, 3},
		{"unknown seeds", tree, []string{"http://h9.fake.test/", "https://h0.fake.test/", "http://h0.fake.test/robots.txt"}, 0, 0},
		{"unavailable hosts", Config{Hosts: 6, PagesPerHost: 10, Robots: allKinds}, nil, 0, 40},
		{"private pages are never reachable", Config{Hosts: 1, PagesPerHost: 10, Robots: []RobotsKind{RobotsDisallow}}, []string{"http://h0.fake.test/private/0"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			seeds := tt.seeds
			if seeds == nil {
				seeds = w.Seeds()
			}
			if got := w.truth(seeds, tt.maxDepth).reachable; got != tt.want {
				t.Errorf("truth(%q, %d) reaches %d pages, want %d", seeds, tt.maxDepth, got, tt.want)
			}
		})
	}
}
