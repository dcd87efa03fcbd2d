package fakeweb

import (
	"net/http"
	"slices"
	"sort"
	"time"
)

// heldFetch is a successful fetch of a changing page as the judge sees
// it: from End on, the crawler holds the version the answer carried (a
// 200) or confirmed (a 304).
type heldFetch struct {
	end     time.Time
	version int
}

// freshTime measures one page over the window [from, to): total is the
// window's length, fresh the part of it during which the version the
// crawler held last was current. fetches are in order of end; next(v)
// is when version v ends (false if never). Before its first fetch the
// crawler holds nothing, which is never fresh.
func freshTime(fetches []heldFetch, next func(v int) (time.Time, bool), from, to time.Time) (fresh, total time.Duration) {
	if !to.After(from) {
		return 0, 0
	}
	total = to.Sub(from)
	for i, f := range fetches {
		if !f.end.Before(to) {
			break
		}
		// Held from f.end until the next fetch, and current until the
		// version ends.
		lo, hi := f.end, to
		if i+1 < len(fetches) && fetches[i+1].end.Before(hi) {
			hi = fetches[i+1].end
		}
		if end, ok := next(f.version); ok && end.Before(hi) {
			hi = end
		}
		if lo.Before(from) {
			lo = from
		}
		if hi.After(lo) {
			fresh += hi.Sub(lo)
		}
	}
	return fresh, total
}

// currentAt says whether the version the crawler held at t, by the
// fetches (in order of end) that ended before it, was still current at
// t; next(v) is when version v ends.
func currentAt(fetches []heldFetch, next func(v int) (time.Time, bool), t time.Time) bool {
	i := sort.Search(len(fetches), func(i int) bool { return !fetches[i].end.Before(t) })
	if i == 0 {
		return false // nothing held yet
	}
	end, ok := next(fetches[i-1].version)
	return !ok || end.After(t)
}

// changeJudge is the judge's running state for Config.Changing while it
// walks the log: what each page's crawler holds.
type changeJudge struct {
	held    map[int]int         // truth slot → version held after the last successful fetch
	fetches map[int][]heldFetch // truth slot of a /c/ page → its successful fetches
}

// observe counts one request for a page with validators (an ordinary page
// or a /c/ page, with Config.Changing) in rep.
func (c *changeJudge) observe(rep *Report, q *Request, res resource, slot int) {
	if res.kind == resChange {
		rep.ChangingFetches++
		if q.Conditional {
			rep.ChangingConditional++
		}
		if q.Status == http.StatusNotModified {
			rep.ChangingNotModified++
		}
	}
	if q.Status != http.StatusOK && q.Status != http.StatusNotModified {
		return
	}
	if held, ok := c.held[slot]; ok {
		rep.Revisits++
		if q.Status == http.StatusNotModified || q.Version == held {
			rep.UnchangedRevisits++
			if q.Conditional {
				rep.UnchangedRevisitsConditional++
			}
			if q.Status == http.StatusNotModified {
				rep.UnchangedRevisits304++
			}
		}
	}
	c.held[slot] = q.Version
	if res.kind == resChange && !q.End.IsZero() {
		c.fetches[slot] = append(c.fetches[slot], heldFetch{end: q.End, version: q.Version})
	}
}

// finishFreshness computes the freshness of the collection into rep. With a
// window from the Judge every changing page of the ground truth counts,
// fetched or not; without one, every page fetched, from its first fetch.
func (w *Web) finishFreshness(rep *Report, c *changeJudge, j Judge, t truth) {
	to := j.FreshnessTo
	if to.IsZero() {
		to = w.now()
	}
	type sum struct {
		frac  float64
		pages int
	}
	classes := map[string]*sum{ChangeFast: {}, ChangeSlow: {}, ChangeStatic: {}}
	var all sum
	fetchedChanging := 0 // pages of a changing class fetched at all
	for host := range w.cfg.Hosts {
		for n := range w.cfg.ChangingConfig.pages() {
			slot, _ := w.slot(host, resChange, n)
			fetches := c.fetches[slot]
			from := j.FreshnessFrom
			switch {
			case !from.IsZero() && t.pages[slot] < 0 && len(fetches) == 0:
				continue
			case from.IsZero() && len(fetches) == 0:
				continue
			case from.IsZero():
				from = fetches[0].end
			}
			slices.SortStableFunc(fetches, func(a, b heldFetch) int { return a.end.Compare(b.end) })
			fresh, total := freshTime(fetches, func(v int) (time.Time, bool) {
				return w.changeTime(host, n, v+1)
			}, from, to)
			if total <= 0 {
				continue
			}
			f := float64(fresh) / float64(total)
			class, mean := w.changeClass(n)
			if mean > 0 {
				rep.CurrentOf++
				if len(fetches) > 0 && fetches[0].end.Before(to) {
					fetchedChanging++
				}
				if currentAt(fetches, func(v int) (time.Time, bool) { return w.changeTime(host, n, v+1) }, to) {
					rep.Current++
				}
			}
			classes[class].frac += f
			classes[class].pages++
			all.frac += f
			all.pages++
		}
	}
	rep.FreshnessPages = all.pages
	if rep.Reachable > 0 {
		rep.CollectionCurrent = float64(rep.Covered-fetchedChanging+rep.Current) / float64(rep.Reachable)
	}
	if all.pages > 0 {
		rep.Freshness = all.frac / float64(all.pages)
	}
	rep.FreshnessByClass = map[string]float64{}
	for name, s := range classes {
		if s.pages > 0 {
			rep.FreshnessByClass[name] = s.frac / float64(s.pages)
		}
	}
}

// finishImportance fills the importance fields of rep (Config.SkewedGraph):
// order lists the ordinary pages the crawl fetched, by slot, in the order
// of their first successful fetch; bfs is a truth walked without sitemaps.
func (w *Web) finishImportance(rep *Report, order []int, bfs truth) {
	deg := w.inDegreeTable()
	pages, stride := w.cfg.PagesPerHost, w.stride()
	rep.FetchOrderInDegree = make([]int, len(order))
	for i, s := range order {
		rep.FetchOrderInDegree[i] = int(deg[s/stride*pages+s%stride])
	}
	var bfsDeg []int
	for _, s := range bfs.order {
		if s >= 0 && int(s)%stride < pages {
			bfsDeg = append(bfsDeg, int(deg[int(s)/stride*pages+int(s)%stride]))
		}
	}
	k := (len(order) + 9) / 10
	rep.MeanInDegreeFirst10Pct = meanFirst(rep.FetchOrderInDegree, k)
	rep.BFSMeanInDegreeFirst10Pct = meanFirst(bfsDeg, k)
}
