package fakeweb

import (
	"math/rand/v2"
	"strings"
)

// truth is what a perfect crawler would fetch: every page and redirect
// reachable from the seeds within the depth limit, following only links
// of pages it may fetch, and those links only as page-level signals
// allow. It is recomputed for each report (it depends on the Judge) from
// the regenerated link graph.
type truth struct {
	// pages[slot] is the depth of the page in that slot (see slot), or -1
	// if it is not reachable; redirects[h*PagesPerHost+n] is the same for
	// /r/n of host h.
	pages     []int32
	redirects []int32
	// hostile[h*numHostile+n] is the depth of hostile resource n of host
	// h, or -1 (nil without Config.Hostile): pages, redirects and the
	// resources a correct crawl fetches though they are not pages.
	hostile   []int32
	reachable int // pages with a depth
	// order is the queue of the walk: slots in breadth-first order, and
	// -(h+1) for the sitemaps of host h.
	order []int32
}

// walk says which sources of URLs a truth uses beyond links.
type walk struct {
	sitemaps bool // URLs listed in sitemaps (with Config.Sitemaps)
	nofollow bool // obey nofollow (with Config.PageSignals)
	// What of an SPA host's pages (Config.SPA) a crawler sees: with
	// shells, only the shells, no links; with noScroll, the links the
	// script builds before any scroll. By default, every link.
	shells, noScroll bool
}

// The slots of a host's pages in a truth: its PagesPerHost ordinary
// pages, then its orphans, /nofollow/, /follow/, /w/, hostile and /d/
// pages (each only with the feature that makes them). Without those features the slot of
// page n of host h is h*PagesPerHost+n, as it always was.
func (w *Web) stride() int { return w.slots }

// slot returns the truth slot of a page resource of host, if it has one.
func (w *Web) slot(host int, kind resourceKind, n int) (int, bool) {
	s := 0
	switch kind {
	case resPage:
		s = n
	case resOrphan:
		s = w.cfg.PagesPerHost + n
	case resNofollow:
		s = w.cfg.PagesPerHost + w.cfg.orphans() + n
	case resFollow:
		s = w.cfg.PagesPerHost + w.cfg.orphans() + numNofollowPages + n
	case resWild:
		if w.cfg.wildPages() == 0 {
			return 0, false
		}
		s = w.cfg.PagesPerHost + w.cfg.orphans() + w.cfg.signalPages() + n
	case resHostile:
		if !w.cfg.Hostile || hostileSlots[n] < 0 {
			return 0, false
		}
		s = w.cfg.PagesPerHost + w.cfg.orphans() + w.cfg.signalPages() + w.cfg.wildPages() + hostileSlots[n]
	case resDup:
		if !w.cfg.Duplicates {
			return 0, false
		}
		s = w.cfg.PagesPerHost + w.cfg.orphans() + w.cfg.signalPages() + w.cfg.wildPages() + w.cfg.hostilePages() + n
	case resChange:
		if !w.cfg.Changing {
			return 0, false
		}
		s = w.cfg.PagesPerHost + w.cfg.orphans() + w.cfg.signalPages() + w.cfg.wildPages() + w.cfg.hostilePages() + w.cfg.dupPages() + n
	default:
		return 0, false
	}
	return host*w.stride() + s, true
}

// slotTarget is the inverse of slot.
func (w *Web) slotTarget(i int) target {
	stride := w.stride()
	host, s := i/stride, i%stride
	if s < w.cfg.PagesPerHost {
		return target{host: host, kind: resPage, n: s}
	}
	for _, r := range []struct {
		kind resourceKind
		size int
	}{
		{resPage, w.cfg.PagesPerHost}, {resOrphan, w.cfg.orphans()},
		{resNofollow, min(w.cfg.signalPages(), numNofollowPages)}, {resFollow, max(w.cfg.signalPages()-numNofollowPages, 0)},
		{resWild, w.cfg.wildPages()}, {resHostile, w.cfg.hostilePages()}, {resDup, w.cfg.dupPages()},
		{resChange, w.cfg.changePages()},
	} {
		if s < r.size && r.kind == resHostile {
			return target{host: host, kind: resHostile, n: hostilePageList[s]}
		}
		if s < r.size {
			return target{host: host, kind: r.kind, n: s}
		}
		s -= r.size
	}
	panic("fakeweb: slot out of range")
}

// truth is the ground truth of the Judge: sitemaps and nofollow obeyed.
func (w *Web) truth(seeds []string, maxDepth int) truth {
	return w.walk(seeds, maxDepth, walk{sitemaps: true, nofollow: true})
}

// walk computes a truth breadth first. The sitemaps of a host are a
// virtual node of the graph, at the depth of the first URL of the host
// reached (its least depth, breadth first), linking to every URL they
// list: with the default seeds, sitemap URLs have depth 1.
func (w *Web) walk(seeds []string, maxDepth int, how walk) truth {
	pages := w.cfg.PagesPerHost
	t := truth{pages: make([]int32, w.cfg.Hosts*w.stride()), redirects: make([]int32, w.cfg.Hosts*pages)}
	for i := range t.pages {
		t.pages[i] = -1
	}
	for i := range t.redirects {
		t.redirects[i] = -1
	}
	if w.cfg.Hostile {
		t.hostile = make([]int32, w.cfg.Hosts*numHostile)
		for i := range t.hostile {
			t.hostile[i] = -1
		}
	}
	// The queue holds slots, and -(h+1) for the sitemaps of host h, at
	// hostDepth[h].
	var queue []int32
	var hostDepth []int32
	if how.sitemaps && w.cfg.Sitemaps {
		hostDepth = make([]int32, w.cfg.Hosts)
		for i := range hostDepth {
			hostDepth[i] = -1
		}
	}
	var pathBuf []byte
	stride := w.stride()
	visit := func(host int, depth int32) {
		if hostDepth != nil && hostDepth[host] < 0 && w.hasSitemaps(host) {
			hostDepth[host] = depth
			queue = append(queue, int32(-host-1))
		}
	}
	var reach func(to target, depth int32)
	reach = func(to target, depth int32) {
		// Only robots.txt decides what may be fetched: an unavailable
		// host yields nothing, and its rules apply to every path.
		kind := w.kind(to.host)
		if !kind.available() {
			return
		}
		rules := &w.rules[kind]
		switch to.kind {
		case resRedirect:
			if rules.disallows && !w.allowedTarget(to, &pathBuf) {
				return
			}
			i := to.host*pages + to.n
			if t.redirects[i] < 0 {
				t.redirects[i] = depth
				visit(to.host, depth)
			}
			// A redirect target has the depth of the redirect.
			to.kind = resPage
		case resHostile:
			if t.hostile == nil || rules.disallows && !w.allowedTarget(to, &pathBuf) {
				return
			}
			j := to.host*numHostile + to.n
			if t.hostile[j] >= 0 {
				return
			}
			t.hostile[j] = depth
			switch hostileSpecs[to.n].role {
			case hostileRedirect:
				visit(to.host, depth)
				reach(w.hostileTarget(to.host, to.n), depth)
				return
			case hostileAux, hostileOutside:
				visit(to.host, depth)
				return
			}
		case resPage, resOrphan, resNofollow, resFollow, resWild, resDup, resChange:
		default:
			return
		}
		if rules.disallows && !w.allowedTarget(to, &pathBuf) {
			return
		}
		i := to.host*stride + to.n
		if to.kind != resPage {
			i, _ = w.slot(to.host, to.kind, to.n)
		}
		if t.pages[i] < 0 {
			t.pages[i] = depth
			t.reachable++
			queue = append(queue, int32(i))
			if hostDepth != nil {
				visit(to.host, depth)
			}
		}
	}
	for _, s := range seeds {
		host, clean, ok := w.parseURL(s)
		if !ok {
			continue
		}
		res := w.resolve(host, clean)
		reach(target{host: host, kind: res.kind, n: res.n}, 0)
	}
	// Breadth first, so the first depth given to a page is its least.
	src := &rand.PCG{}
	r := rand.New(src)
	var links []link
	for head := 0; head < len(queue); head++ {
		i := int(queue[head])
		if i < 0 {
			host := -i - 1
			depth := hostDepth[host]
			if maxDepth > 0 && int(depth) >= maxDepth {
				continue
			}
			w.eachSitemapEntry(host, func(_ int, to target) { reach(to, depth+1) })
			continue
		}
		depth := t.pages[i]
		if maxDepth > 0 && int(depth) >= maxDepth {
			continue
		}
		from := w.slotTarget(i)
		if from.kind == resHostile {
			for _, to := range hostileLinks(from.host, from.n) {
				reach(to, depth+1)
			}
			continue
		}
		if from.kind == resDup {
			for _, to := range w.dupLinks(from.host, from.n) {
				reach(to, depth+1)
			}
			continue
		}
		if from.kind != resPage {
			if leafLinksHome(from) {
				reach(target{host: from.host, kind: resPage}, depth+1)
			}
			continue
		}
		if how.nofollow && w.pageSignal(from.host, from.n).nofollow() {
			continue
		}
		links = w.appendLinks(links[:0], src, r, from.host, from.n, false)
		if w.isSPA(from.host) {
			switch {
			case how.shells:
				links = links[:0]
			case how.noScroll:
				links, _ = spaSplit(links, from.n)
			}
		}
		for _, l := range links {
			if how.nofollow && l.nofollow {
				continue
			}
			reach(l.to, depth+1)
		}
		if from.n == 0 && w.isHostile(from.host) {
			for n, s := range hostileSpecs {
				if s.home {
					reach(target{host: from.host, kind: resHostile, n: n}, depth+1)
				}
			}
		}
		if from.n == 0 && w.cfg.Duplicates {
			for n := range numDup {
				reach(target{host: from.host, kind: resDup, n: n}, depth+1)
			}
		}
		if from.n == 0 && w.cfg.Changing {
			for n := range w.cfg.ChangingConfig.pages() {
				reach(target{host: from.host, kind: resChange, n: n}, depth+1)
			}
		}
	}
	t.order = queue
	return t
}

// allowedTarget reports whether robots.txt lets godwit fetch a link
// target (whose URL has no query). buf is scratch space for its path.
func (w *Web) allowedTarget(t target, buf *[]byte) bool {
	rs := w.rules[w.kind(t.host)]
	if !rs.disallows {
		return true // spares building the path
	}
	*buf = appendPath((*buf)[:0], t)
	ok, _, _ := allowedPath(rs, *buf)
	return ok
}

// leafLinksHome reports whether an orphan, /nofollow/, /follow/ or /w/ page links
// to its home page, as all do but the PDFs.
func leafLinksHome(t target) bool {
	return t.kind != resWild || !strings.HasSuffix(wildPaths[t.n], ".pdf")
}
