package freshness

import "math"

// OPIC (Abiteboul, Preda and Cobena, "Adaptive on-line page importance
// computation", WWW 2003): every page holds cash. Fetching a page adds
// its cash to its history and hands the cash on to the pages it links
// to; the more cash flows through a page, the more important it is,
// and the page holding the most cash is the best one to fetch next. No
// global computation is ever needed: the frontier stores two numbers
// with each URL.
//
// The paper makes the graph strongly connected with a virtual page that
// every page links to and that links to every page (PageRank's
// teleportation). Distribute gives the virtual page one share like any
// outlink (all of it for a page without outlinks); the virtual page's
// own cash, which would reach every page in equal parts, is credited
// lazily: each page collects Grant when it is fetched. Without the grant
// a page's cash shrinks geometrically with its distance from the seeds,
// and a popular page first linked from deep pages is found late.

// Grant is the cash a page collects from the virtual page when it is
// fetched, in the unit of a seed's initial cash (1).
const Grant = 1.0

// Distribute returns what fetching a page that holds cash does, given
// its number of distinct outlinks: the page's history grows by spent
// (its cash plus Grant) and its cash becomes 0; each outlink's cash
// grows by each, spent/(outlinks+1); the remaining share goes to the
// virtual page, which the frontier need not track (importance is
// relative, see Importance).
func Distribute(cash float64, outlinks int) (spent, each float64) {
	spent = cash + Grant
	if outlinks <= 0 {
		return spent, 0
	}
	return spent, spent / float64(outlinks+1)
}

// Importance returns a page's importance relative to the average page
// (1 = average, 2 = twice): its history plus its current cash, over
// total, the sum of histories and cash of all pages known, times their
// number. The frontier keeps total as one counter, exactly: it grows by
// 1 for each seed (a seed starts with cash 1) and, at each fetch, by
// Grant + each × outlinks (the history grows by cash + Grant, the cash
// falls by cash, the outlinks gain each × outlinks). With total ≤ 0 or
// pages ≤ 0 (nothing known yet) it returns 1.
func Importance(history, cash, total float64, pages int) float64 {
	if !(total > 0) || pages <= 0 {
		return 1
	}
	return (history + cash) / total * float64(pages)
}

// Bands is the number of priority bands: Band returns 0 … Bands−1.
const Bands = 16

// Band maps a page's relative importance (Importance; 1 when unknown),
// its depth from the seeds and its sitemap priority (in [0, 1], when
// hasSitemapPriority) to a priority band, 0 first:
//
//	s    = log2(importance) + log2(2·priority) − depth/4
//	band = clamp(round(7 − s), 0, 15)
//
// One band per doubling of importance: the average page is band 7, a
// page 128× the average band 0, one 1/256 of it band 15. A sitemap
// priority of 0.5 (the protocol's default) is neutral, 1 counts as
// twice the importance, 0.1 as a fifth (priority is floored at 1/64).
// Depth costs a band every four levels: OPIC already lowers the cash of
// deep pages, so depth only breaks ties and bounds traps.
func Band(importance float64, depth int, sitemapPriority float64, hasSitemapPriority bool) uint8 {
	if !(importance > 0) {
		return Bands - 1
	}
	s := math.Log2(importance) - float64(max(depth, 0))/4
	if hasSitemapPriority {
		s += math.Log2(2 * max(sitemapPriority, 1.0/64))
	}
	b := math.Round(7 - s)
	if b <= 0 {
		return 0
	}
	if b >= Bands-1 || math.IsNaN(b) {
		return Bands - 1
	}
	return uint8(b)
}
