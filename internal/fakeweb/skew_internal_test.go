package fakeweb

import (
	"cmp"
	"math"
	"net/http"
	"slices"
	"testing"
)

func skewedWeb(t *testing.T, skewed bool) *Web {
	t.Helper()
	w, err := New(Config{Hosts: 10, PagesPerHost: 1000, Seed: 4, SkewedGraph: skewed})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func pageURL(w *Web, host, n int) string {
	return "http://" + w.hostName(host) + pathOf(target{host: host, kind: resPage, n: n})
}

// topShare is the share of all links held by the top 1% of pages, by
// in-degree.
func topShare(t *testing.T, w *Web) (share float64, degs []int) {
	t.Helper()
	for host := range w.cfg.Hosts {
		for n := range w.cfg.PagesPerHost {
			d, ok := w.InDegree(pageURL(w, host, n))
			if !ok {
				t.Fatalf("InDegree(%q): not ok", pageURL(w, host, n))
			}
			degs = append(degs, d)
		}
	}
	sorted := slices.Clone(degs)
	slices.SortFunc(sorted, func(a, b int) int { return cmp.Compare(b, a) })
	top, all := 0, 0
	for i, d := range sorted {
		if i < len(sorted)/100 {
			top += d
		}
		all += d
	}
	return float64(top) / float64(all), degs
}

func TestSkewedInDegree(t *testing.T) {
	w := skewedWeb(t, true)
	share, degs := topShare(t, w)
	if share < 0.2 {
		t.Errorf("top 1%% of pages hold %.3f of links, want at least 0.2", share)
	}
	low := 0
	for _, d := range degs {
		if d <= 2 {
			low++
		}
	}
	if low < len(degs)/2 {
		t.Errorf("%d of %d pages have in-degree 1 or 2, want most", low, len(degs))
	}
	uniform, _ := topShare(t, skewedWeb(t, false))
	if uniform > 0.1 {
		t.Errorf("without SkewedGraph the top 1%% hold %.3f of links, want a flat graph", uniform)
	}
	t.Logf("top 1%% hold %.3f of links (%.3f without SkewedGraph)", share, uniform)

	// Every page is reachable from its home page.
	if rep := w.Report(Judge{}); rep.Reachable != 10*1000 {
		t.Errorf("Reachable = %d, want %d", rep.Reachable, 10*1000)
	}
	// Deterministic, and InDegree knows only ordinary pages.
	again := skewedWeb(t, true)
	for _, n := range []int{0, 1, 77, 999} {
		u := pageURL(w, 3, n)
		a, _ := w.InDegree(u)
		b, _ := again.InDegree(u)
		if a != b {
			t.Errorf("InDegree(%q) = %d, then %d on the same Config", u, a, b)
		}
	}
	for _, u := range []string{"http://h0.fake.test/r/3", "http://h0.fake.test/nope", "http://h99.fake.test/", "https://h0.fake.test/"} {
		if d, ok := w.InDegree(u); ok {
			t.Errorf("InDegree(%q) = %d, ok; want not ok", u, d)
		}
	}
	if d, _ := w.InDegree("http://H0.fake.test:80/p/../"); d != degs[0] {
		t.Errorf("InDegree of a spelling of h0's home = %d, want %d", d, degs[0])
	}
}

// TestImportanceReport fetches the pages of a skewed web by hand in two
// orders and checks the judge's measure of them.
func TestImportanceReport(t *testing.T) {
	w, err := New(Config{Hosts: 3, PagesPerHost: 300, Seed: 8, SkewedGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	type page struct{ url, deg int }
	var pages []page
	for host := range 3 {
		for n := range 300 {
			d, _ := w.InDegree(pageURL(w, host, n))
			pages = append(pages, page{host*300 + n, d})
		}
	}
	crawl := func(order []page) Report {
		w.Reset()
		for host := range 3 {
			do(w, "http://"+w.hostName(host)+"/robots.txt", nil)
		}
		for _, p := range order {
			if rec := do(w, pageURL(w, p.url/300, p.url%300), nil); rec.Code != http.StatusOK {
				t.Fatalf("GET page %d = %d", p.url, rec.Code)
			}
		}
		return w.Report(Judge{})
	}
	byDegree := slices.Clone(pages)
	slices.SortStableFunc(byDegree, func(a, b page) int { return cmp.Compare(b.deg, a.deg) })
	rep := crawl(byDegree[:100])
	if len(rep.FetchOrderInDegree) != 100 || rep.FetchOrderInDegree[0] != byDegree[0].deg {
		t.Fatalf("FetchOrderInDegree = %v, want the in-degrees of the 100 fetched pages in order", rep.FetchOrderInDegree)
	}
	want := 0.0
	for _, p := range byDegree[:10] {
		want += float64(p.deg) / 10
	}
	if math.Abs(rep.MeanInDegreeFirst10Pct-want) > 1e-9 {
		t.Errorf("MeanInDegreeFirst10Pct = %v, want %v", rep.MeanInDegreeFirst10Pct, want)
	}
	if rep.BFSMeanInDegreeFirst10Pct <= 0 || rep.MeanInDegreeFirst10Pct < 1.5*rep.BFSMeanInDegreeFirst10Pct {
		t.Errorf("most linked first: mean in-degree %v, breadth first %v; want at least 1.5×",
			rep.MeanInDegreeFirst10Pct, rep.BFSMeanInDegreeFirst10Pct)
	}
	t.Logf("most linked first %.2f, breadth first %.2f", rep.MeanInDegreeFirst10Pct, rep.BFSMeanInDegreeFirst10Pct)

	// Fetched in the judge's own breadth-first order, the two agree.
	tr := w.walk(w.Seeds(), 0, walk{nofollow: true})
	var bfs []page
	for _, s := range tr.order {
		if s >= 0 && int(s)%w.stride() < 300 {
			i := int(s)/w.stride()*300 + int(s)%w.stride()
			bfs = append(bfs, pages[i])
		}
	}
	rep = crawl(bfs)
	if rep.MeanInDegreeFirst10Pct != rep.BFSMeanInDegreeFirst10Pct {
		t.Errorf("breadth first by hand: %v, by the judge %v; want equal", rep.MeanInDegreeFirst10Pct, rep.BFSMeanInDegreeFirst10Pct)
	}
}
