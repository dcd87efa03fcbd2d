package fakeweb

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// The skewed link graph (Config.SkewedGraph). The random links of
// ordinary pages pick their target page by popularity, not uniformly:
// each host ranks its pages by a permutation drawn from Seed (so that
// popularity owes nothing to a page's number or depth), and a link goes
// to the page of rank k with probability proportional to 1/(k+1)^s, s
// being Config.SkewExponent (Zipf's law). A few pages are linked from
// very many pages; most only by their parent in the tree of pages 2i+1
// and 2i+2, which keeps every page reachable from its home page.

// maxSkewPages bounds Hosts×PagesPerHost with SkewedGraph: the
// permutations take four bytes per page, and so does InDegree's table.
const maxSkewPages = 1 << 24

// skew is the popularity of pages, built by New with SkewedGraph.
type skew struct {
	cdf  []float64 // cdf[k] = P(rank <= k), shared by every host
	rank []int32   // rank[host*PagesPerHost+k] is the page of rank k on host
}

func (w *Web) buildSkew() {
	pages := w.cfg.PagesPerHost
	cdf := make([]float64, pages)
	sum := 0.0
	for k := range pages {
		sum += math.Pow(float64(k+1), -w.cfg.SkewExponent)
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	rank := make([]int32, w.cfg.Hosts*pages)
	src := &rand.PCG{}
	r := rand.New(src)
	for host := range w.cfg.Hosts {
		w.reseed(src, streamSkew, host, 0)
		perm := rank[host*pages : (host+1)*pages]
		for i := range perm {
			perm[i] = int32(i)
		}
		r.Shuffle(pages, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	}
	w.skew = skew{cdf: cdf, rank: rank}
}

// popularPage draws a page of host by popularity.
func (w *Web) popularPage(r *rand.Rand, host int) int {
	u := r.Float64()
	k := sort.SearchFloat64s(w.skew.cdf, u)
	k = min(k, len(w.skew.cdf)-1)
	return int(w.skew.rank[host*w.cfg.PagesPerHost+k])
}

// inDegrees counts, for every ordinary page (slot host*PagesPerHost+n),
// the distinct ordinary pages that link to it, directly or through /r/n.
// It is computed once, on first use, from the regenerated link graph.
type inDegrees struct {
	once sync.Once
	deg  []int32
}

func (w *Web) inDegreeTable() []int32 {
	w.indeg.once.Do(func() {
		pages := w.cfg.PagesPerHost
		deg := make([]int32, w.cfg.Hosts*pages)
		src := &rand.PCG{}
		r := rand.New(src)
		var links []link
		seen := map[int]bool{}
		for host := range w.cfg.Hosts {
			for n := range pages {
				links = w.appendLinks(links[:0], src, r, host, n, false)
				clear(seen)
				for _, l := range links {
					if l.to.kind != resPage && l.to.kind != resRedirect {
						continue
					}
					i := l.to.host*pages + l.to.n
					if i == host*pages+n || seen[i] {
						continue
					}
					seen[i] = true
					deg[i]++
				}
			}
		}
		w.indeg.deg = deg
	})
	return w.indeg.deg
}

// InDegree returns the number of distinct ordinary pages ("/" and /p/N of
// any host) that link to the ordinary page rawURL, directly or through a
// /r/N redirect; ok is false for any other URL. The first call walks the
// whole link graph. It is defined with or without Config.SkewedGraph.
func (w *Web) InDegree(rawURL string) (int, bool) {
	host, clean, ok := w.parseURL(rawURL)
	if !ok {
		return 0, false
	}
	res := w.resolve(host, clean)
	if res.kind != resPage {
		return 0, false
	}
	return int(w.inDegreeTable()[host*w.cfg.PagesPerHost+res.n]), true
}

// meanFirst is the mean of the first k values of degs (of all of them
// if fewer), 0 if none.
func meanFirst(degs []int, k int) float64 {
	k = min(k, len(degs))
	if k == 0 {
		return 0
	}
	sum := 0
	for _, d := range degs[:k] {
		sum += d
	}
	return float64(sum) / float64(k)
}
