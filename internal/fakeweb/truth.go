package fakeweb

import "math/rand/v2"

// truth is what a perfect crawler would fetch: every page and redirect
// reachable from the seeds within the depth limit, following only links
// of pages it may fetch. It is recomputed for each report (it depends on
// the Judge) from the regenerated link graph.
type truth struct {
	// pages[h*PagesPerHost+n] is the depth of page n of host h, or -1
	// if it is not reachable; redirects is the same for /r/n.
	pages     []int32
	redirects []int32
	reachable int // pages with a depth
}

func (w *Web) truth(seeds []string, maxDepth int) truth {
	pages := w.cfg.PagesPerHost
	total := w.cfg.Hosts * pages
	t := truth{pages: make([]int32, total), redirects: make([]int32, total)}
	for i := range t.pages {
		t.pages[i] = -1
		t.redirects[i] = -1
	}
	var queue []int32
	reach := func(to target, depth int32) {
		// Only robots.txt decides what may be fetched: an unavailable
		// host yields nothing, and /private/ is disallowed wherever it
		// exists.
		if !w.kind(to.host).available() {
			return
		}
		i := to.host*pages + to.n
		switch to.kind {
		case resRedirect:
			if t.redirects[i] < 0 {
				t.redirects[i] = depth
			}
			// A redirect target has the depth of the redirect.
		case resPage:
		default:
			return
		}
		if t.pages[i] < 0 {
			t.pages[i] = depth
			t.reachable++
			queue = append(queue, int32(i))
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
		depth := t.pages[i]
		if maxDepth > 0 && int(depth) >= maxDepth {
			continue
		}
		links = w.appendLinks(links[:0], src, r, i/pages, i%pages, false)
		for _, l := range links {
			reach(l.to, depth+1)
		}
	}
	return t
}
