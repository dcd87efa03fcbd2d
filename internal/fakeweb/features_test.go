package fakeweb

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestFeaturesTruth checks the ground-truth conventions of the robots.txt
// kinds, sitemaps and page signals on a web with all of them.
func TestFeaturesTruth(t *testing.T) {
	w, err := New(featuresConfig)
	if err != nil {
		t.Fatal(err)
	}
	tr := w.truth(w.Seeds(), 0)
	loose := w.walk(w.Seeds(), 0, walk{sitemaps: true, nofollow: false})
	linked := w.walk(w.Seeds(), 0, walk{sitemaps: false, nofollow: true})
	depth := func(tr truth, host int, kind resourceKind, n int) int32 {
		i, ok := w.slot(host, kind, n)
		if !ok {
			t.Fatalf("no slot for %v %d of h%d", kind, n, host)
		}
		return tr.pages[i]
	}
	var follow [numFollowPages]int // hosts where /follow/N is reachable
	for h := range w.cfg.Hosts {
		kind := w.kind(h)
		for n := range w.cfg.orphans() {
			want := int32(-1)
			if kind.hasRules() && kind.available() {
				want = 1 // listed in a sitemap of a host seeded at its home page
			}
			if got := depth(tr, h, resOrphan, n); got != want {
				t.Errorf("h%d (%v): orphan %d has depth %d, want %d", h, kind, n, got, want)
			}
			if got := depth(linked, h, resOrphan, n); got != -1 {
				t.Errorf("h%d: orphan %d reached by links alone (depth %d)", h, n, got)
			}
		}
		for n := range numNofollowPages {
			if got := depth(tr, h, resNofollow, n); got != -1 {
				t.Errorf("h%d: /nofollow/%d in the ground truth at depth %d", h, n, got)
			}
		}
		for n := range numFollowPages {
			if got := depth(tr, h, resFollow, n); got >= 0 {
				follow[n]++
				if got < 2 {
					t.Errorf("h%d: /follow/%d has depth %d, want 2 or more", h, n, got)
				}
			}
		}
		// Every available host has a rel=nofollow link to /nofollow/0 on
		// its home page.
		if got := depth(loose, h, resNofollow, 0); kind.available() && got != 1 {
			t.Errorf("h%d: ignoring nofollow, /nofollow/0 has depth %d, want 1", h, got)
		}
		if kind == RobotsWildcard {
			for n, p := range wildPaths {
				ok, _, _ := w.allowed(h, p)
				want := int32(-1)
				if ok {
					want = 1
				}
				if got := depth(tr, h, resWild, n); got != want {
					t.Errorf("h%d: %s has depth %d, want %d", h, p, got, want)
				}
			}
		}
		if kind == RobotsAgentGroup || kind == RobotsFlaky || kind == RobotsRedirect {
			if got := depth(tr, h, resPage, 1); got < 0 {
				t.Errorf("h%d (%v): /p/1 not in the ground truth", h, kind)
			}
		}
	}
	for n, hosts := range follow {
		if hosts == 0 {
			t.Errorf("/follow/%d is reachable on no host", n)
		}
	}
	if loose.reachable <= tr.reachable || linked.reachable >= tr.reachable {
		t.Errorf("reachable: %d ignoring nofollow, %d in truth, %d without sitemaps: want strictly decreasing",
			loose.reachable, tr.reachable, linked.reachable)
	}
}

// TestSitemapDepth: a host's sitemap URLs lie one below the least depth
// of the host's URLs, and not at all when that is the depth limit.
func TestSitemapDepth(t *testing.T) {
	cfg := Config{Hosts: 8, PagesPerHost: 20, LinksPerPage: 3, CrossHostShare: 0.3, Seed: 4, Sitemaps: true, OrphanPages: 2}
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	seeds := []string{"http://h0.fake.test/p/5"}
	deep, cut := 0, 0 // cases of a host first reached below depth 0, or at the limit
	for _, maxDepth := range []int{0, 1, 2, 3, 4} {
		tr := w.truth(seeds, maxDepth)
		for h := range w.cfg.Hosts {
			least := int32(-1)
			for n := range w.cfg.PagesPerHost {
				i, _ := w.slot(h, resPage, n)
				if d := tr.pages[i]; d >= 0 && (least < 0 || d < least) {
					least = d
				}
				if n > 0 {
					if d := tr.redirects[h*w.cfg.PagesPerHost+n]; d >= 0 && (least < 0 || d < least) {
						least = d
					}
				}
			}
			want := least + 1
			if least > 0 {
				deep++
			}
			if least < 0 || maxDepth > 0 && int(least) >= maxDepth {
				want = -1
				cut++
			}
			for n := range 2 {
				i, _ := w.slot(h, resOrphan, n)
				if got := tr.pages[i]; got != want {
					t.Errorf("max depth %d, h%d (least depth %d): orphan %d at depth %d, want %d", maxDepth, h, least, n, got, want)
				}
			}
		}
	}
	if deep == 0 || cut == 0 {
		t.Errorf("%d hosts first reached below depth 0, %d cut by the limit: the test tests too little", deep, cut)
	}
}

// TestNofollowOnlyPages: some ordinary pages are reachable only through
// nofollow, so the judge's loose truth matters beyond /nofollow/.
func TestNofollowOnlyPages(t *testing.T) {
	w, err := New(Config{Hosts: 2, PagesPerHost: 60, LinksPerPage: 3, CrossHostShare: -1, RedirectShare: -1, Seed: 3, PageSignals: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := w.truth(w.Seeds(), 0)
	loose := w.walk(w.Seeds(), 0, walk{nofollow: false})
	var only []string
	for h := range w.cfg.Hosts {
		for n := range w.cfg.PagesPerHost {
			i, _ := w.slot(h, resPage, n)
			if tr.pages[i] < 0 && loose.pages[i] >= 0 {
				only = append(only, "http://"+w.hostName(h)+pathOf(target{kind: resPage, n: n}))
			}
		}
	}
	if len(only) == 0 {
		t.Fatal("no ordinary page is reachable only through nofollow")
	}
	// The judge sees a request for one.
	h := w.Handler()
	for _, u := range []string{"http://h0.fake.test/robots.txt", "http://h1.fake.test/robots.txt", only[0]} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, u, nil))
	}
	if rep := w.Report(Judge{}); rep.NofollowOnlyFetched != 1 || rep.OutOfTruth != 0 || rep.OK() {
		t.Errorf("after fetching %s:\n%v", only[0], rep)
	}
}

// TestSignalsOnTheWeb: every signal occurs, and /nofollow/ pages are
// linked only through nofollow.
func TestSignalsOnTheWeb(t *testing.T) {
	w, err := New(featuresConfig)
	if err != nil {
		t.Fatal(err)
	}
	h := w.Handler()
	seen := map[signal]int{}
	relNofollow := 0
	src := &rand.PCG{}
	r := rand.New(src)
	for host := range w.cfg.Hosts {
		for n := range w.cfg.PagesPerHost {
			sig := w.pageSignal(host, n)
			seen[sig]++
			u := "http://" + w.hostName(host) + pathOf(target{kind: resPage, n: n})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
			if got := rec.Header().Get("X-Robots-Tag"); got != signalSpecs[sig].header {
				t.Errorf("%s: X-Robots-Tag %q, want %q", u, got, signalSpecs[sig].header)
			}
			for _, l := range w.appendLinks(nil, src, r, host, n, false) {
				if l.nofollow {
					relNofollow++
				}
				if l.to.kind == resFollow {
					if want, ok := followIndex[sig]; !ok || l.to.n != want || l.nofollow {
						t.Errorf("%s (signal %d) links to /follow/%d (rel=nofollow %v)", u, sig, l.to.n, l.nofollow)
					}
				}
				if l.to.kind != resNofollow {
					continue
				}
				ok := false
				switch l.to.n {
				case 0:
					ok = n == 0 && l.nofollow
				case 1:
					ok = sig.nofollow() && signalSpecs[sig].metaName != ""
				case 2:
					ok = sig.nofollow() && signalSpecs[sig].header != ""
				}
				if !ok {
					t.Errorf("%s (signal %d) links to /nofollow/%d (rel=nofollow %v)", u, sig, l.to.n, l.nofollow)
				}
			}
		}
	}
	for s := sigNone; s < numSignals; s++ {
		if seen[s] == 0 {
			t.Errorf("no page carries signal %d", s)
		}
	}
	if relNofollow < 10 {
		t.Errorf("only %d rel=nofollow links on the whole web", relNofollow)
	}
	if seen[sigNone] < w.cfg.Hosts*w.cfg.PagesPerHost/2 {
		t.Errorf("only %d pages of %d without a signal", seen[sigNone], w.cfg.Hosts*w.cfg.PagesPerHost)
	}
}

func TestSlots(t *testing.T) {
	w, err := New(featuresConfig)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for h := range w.cfg.Hosts {
		for _, r := range []struct {
			kind resourceKind
			size int
		}{{resPage, w.cfg.PagesPerHost}, {resOrphan, w.cfg.orphans()}, {resNofollow, numNofollowPages}, {resFollow, numFollowPages}, {resWild, len(wildPaths)}} {
			for n := range r.size {
				i, ok := w.slot(h, r.kind, n)
				if !ok || seen[i] || w.slotTarget(i) != (target{host: h, kind: r.kind, n: n}) {
					t.Fatalf("slot(h%d, %v, %d) = %d, %v; seen %v; back %+v", h, r.kind, n, i, ok, seen[i], w.slotTarget(i))
				}
				seen[i] = true
			}
		}
	}
	if len(seen) != w.cfg.Hosts*w.stride() {
		t.Errorf("%d slots used of %d", len(seen), w.cfg.Hosts*w.stride())
	}
	if _, ok := w.slot(0, resPrivate, 0); ok {
		t.Error("a private page has a slot")
	}
}
