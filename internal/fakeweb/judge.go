package fakeweb

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// Judge states what the crawler was asked to do, so that Report can hold
// it to that.
type Judge struct {
	// Delay is the crawler's minimum delay between the starts of two
	// requests to one host. The gap required on a host is the larger of
	// Delay and the host's Crawl-delay.
	Delay time.Duration
	// MaxDepth limits the ground truth. Seeds have depth 0, the links of a
	// page at depth d have depth d+1, and the target of a redirect has the
	// depth of the redirecting URL; the links of a page at depth MaxDepth
	// are not followed. With Config.Sitemaps the URLs a host's sitemaps
	// list have depth d+1, where d is the least depth of any URL of that
	// host in the ground truth (so 1 with the default seeds), and are
	// not followed when d is MaxDepth: as if the host's first URL linked
	// to them. Zero means unlimited.
	MaxDepth int
	// Seeds are the URLs the crawl started from; empty means w.Seeds().
	Seeds []string
	// Tolerance forgives gaps short of the required gap by at most this
	// much; zero judges strictly. Where the server knows a request only
	// by its handler's entry (no Request.Arrived), a crawler that spaces
	// the starts of its requests exactly Delay apart can be seen a little
	// short because of scheduling jitter. One that waits Delay from the
	// end of the previous response never is.
	Tolerance time.Duration
	// IPConcurrency and IPDelay are the crawler's IP budget: at most
	// IPConcurrency requests in flight to one address (0: no bound) and
	// starts to it at least IPDelay apart (less IPTolerance), over all the
	// hosts it serves. They judge the requests that arrived directly,
	// grouped by Request.Local; requests through the proxy are not
	// judged by address.
	IPConcurrency int
	IPDelay       time.Duration
	// HandlerEntry times every request by Start, its handler's entry, as
	// the judge did before it knew Request.Arrived: for comparison only
	// (the server's lag counts against the crawler).
	HandlerEntry bool
	// IPTolerance forgives IP gaps short of IPDelay by at most this much
	// (Tolerance does not apply to them). A crawler that spaces the
	// starts of its leases to an address IPDelay apart is seen a little
	// short when the later request reaches the server sooner after its
	// lease than the earlier one did; one that spaces them from when its
	// requests went on the wire is not, judged by Request.Arrived.
	IPTolerance time.Duration
	// Revisits says the crawl was asked to fetch pages again (a
	// continuous crawl): a URL fetched after an answer is then not a
	// duplicate.
	Revisits bool
	// FreshnessFrom and FreshnessTo bound the window over which
	// Report.Freshness is measured (Config.Changing). A zero
	// FreshnessFrom measures each changing page from the end of its first
	// successful fetch, and leaves out pages never fetched; otherwise
	// every changing page of the ground truth counts over the window, a
	// page not yet fetched being stale. A zero FreshnessTo means the time
	// of the report, by Config.Now.
	FreshnessFrom, FreshnessTo time.Time
}

// hostTrack is the judge's running state for one host while it walks the
// log in the order of Request.At.
type hostTrack struct {
	requests   int
	lastStart  time.Time
	lastEnd    time.Time // latest End among finished requests so far
	open       int       // requests so far that never finished
	robotsDone time.Time // earliest End of a robots.txt answer but a redirect so far
	robotsFail time.Time // earliest End of a 5xx robots.txt answer so far
	robotsOK   time.Time // earliest End of a robots.txt answer below 500 but a redirect so far
	retryFrom  time.Time // End of the answer that set retryUntil
	retryUntil time.Time // latest time a Retry-After asked to wait for so far
}

// earliest lowers *t to u if *t is unset or later.
func earliest(t *time.Time, u time.Time) {
	if t.IsZero() || u.Before(*t) {
		*t = u
	}
}

// Report judges the requests logged since New or the last Reset.
func (w *Web) Report(j Judge) Report {
	reqs := w.log.snapshot()
	if j.HandlerEntry {
		for i := range reqs {
			reqs[i].Arrived = time.Time{}
		}
	}
	// Judged by when each request started on the wire, as the kernel saw
	// it where it can (Request.At), in that order.
	slices.SortStableFunc(reqs, func(a, b Request) int { return a.At().Compare(b.At()) })
	seeds := j.Seeds
	if len(seeds) == 0 {
		seeds = w.Seeds()
	}
	t := w.truth(seeds, j.MaxDepth)
	// Truths to tell which pages only nofollow, or only sitemaps, reach.
	var loose, linked truth
	if w.cfg.PageSignals {
		loose = w.walk(seeds, j.MaxDepth, walk{sitemaps: true, nofollow: false})
	}
	if w.cfg.Sitemaps {
		linked = w.walk(seeds, j.MaxDepth, walk{sitemaps: false, nofollow: true})
	}
	rep := Report{Reachable: t.reachable, MinGap: map[string]time.Duration{}}
	ips := map[string]*ipTrack{}
	var spa *spaJudge
	if w.cfg.SPA {
		spa = w.newSPAJudge(&rep, seeds, j.MaxDepth)
	}
	if w.cfg.Hostile {
		rep.Hostile = map[string]int{hostileStorm: 0}
		for _, s := range hostileSpecs {
			rep.Hostile[s.name] = 0
		}
	}
	if w.cfg.Duplicates {
		rep.ContentDuplicates = map[string]int{ContentExact: 0, ContentNear: 0, ContentDistinct: 0}
	}
	if kinds := w.cfg.Traps.Kinds(); len(kinds) > 0 {
		rep.Traps = make(map[TrapKind]int, len(kinds))
		for _, k := range kinds {
			rep.Traps[k] = 0
		}
	}
	pages := w.cfg.PagesPerHost
	hosts := map[int]*hostTrack{}
	answered := map[string]bool{} // canonical URL → answered at least once
	outside := map[string]bool{}  // canonical URLs already counted in OutOfTruth
	covered := make([]bool, len(t.pages))
	changes := changeJudge{held: map[int]int{}, fetches: map[int][]heldFetch{}}
	var order []int             // slots of ordinary pages, by first answer (SkewedGraph)
	fetched := map[int]bool{}   // slots in order
	var reqs200 map[string]bool // Requisites: requisites answered 200
	var pagesOK map[int]bool    // Requisites: ordinary pages answered, host*pages + n
	if w.cfg.Requisites {
		reqs200, pagesOK = map[string]bool{}, map[int]bool{}
	}

	for i := range reqs {
		q := &reqs[i]
		rep.Requests++
		host, ok := w.lookupHost(q.Host)
		if !ok {
			spa.unmade(&rep, q)
			rep.UnknownHostRequests++
			rep.flag(ViolationUnknownHost, q, "%s %s: no such host on this web", q.Method, q.RawURL)
			continue
		}
		h := hosts[host]
		if h == nil {
			h = &hostTrack{}
			hosts[host] = h
		}
		kind := w.kind(host)
		clean := w.clean(q.Path)
		res := w.resolveQuery(host, clean, strings.TrimPrefix(rawQuery(q.RawURL), "?"))
		requisite := w.cfg.Requisites && (res.kind == resAsset || clean == privateRequisite)
		polite := rep.politeness()

		// reqs is sorted by At, so every request that could overlap this
		// one has been seen.
		at := q.At()
		if h.open > 0 || h.lastEnd.After(at) {
			rep.ConcurrencyViolations++
			rep.flag(ViolationConcurrency, q, "started while an earlier request to the host was in flight")
		}
		if end := q.End; end.IsZero() {
			h.open++
		} else {
			if q.Status == 0 && res.kind == resHostile && res.n == hxHang {
				// The server learns that the client gave up only once it
				// has, and the client may have moved on by then.
				end = end.Add(-hangSlack)
			}
			if end.After(h.lastEnd) {
				h.lastEnd = end
			}
		}

		if q.Local != "" {
			rep.judgeIP(ips, q, j)
		}

		required := j.Delay
		if kind == RobotsCrawlDelay {
			required = max(required, w.cfg.CrawlDelay)
		}
		if h.requests > 0 {
			gap := at.Sub(h.lastStart)
			if m, ok := rep.MinGap[q.Host]; !ok || gap < m {
				rep.MinGap[q.Host] = gap
			}
			if gap < required-j.Tolerance {
				rep.GapViolations++
				rep.flag(ViolationGap, q, "started %v after the previous request to the host; %v required", gap, required)
			}
		}
		h.requests++
		h.lastStart = at
		if q.Conditional {
			rep.ConditionalRequests++
		}
		if q.Status == http.StatusNotModified {
			rep.NotModified++
		}
		if !h.retryUntil.IsZero() && at.After(h.retryFrom) && at.Before(h.retryUntil.Add(-j.Tolerance)) {
			rep.RetryAfterViolations++
			rep.flag(ViolationRetryAfter, q, "started %v before the time a Retry-After asked for", h.retryUntil.Sub(at))
		}
		if !q.RetryAfter.IsZero() {
			rep.RetryAfterSent++
			if q.RetryAfter.After(h.retryUntil) {
				h.retryFrom, h.retryUntil = q.End, q.RetryAfter
			}
		}

		if res.robots() {
			rep.RobotsRequests++
			if q.Conditional {
				rep.RobotsConditional++
			}
			if q.Status == http.StatusNotModified {
				rep.RobotsNotModified++
			}
			// A redirect only says where the answer is; a 304 is the
			// answer the client already has.
			if q.Status != 0 && !q.End.IsZero() && (q.Status < 300 || q.Status >= 400 || q.Status == http.StatusNotModified) {
				earliest(&h.robotsDone, q.End)
				if q.Status >= 500 {
					earliest(&h.robotsFail, q.End)
				} else {
					earliest(&h.robotsOK, q.End)
				}
			}
			continue
		}
		if res.kind == resHostile {
			rep.Hostile[hostileSpecs[res.n].name]++
		}
		if res.kind == resDup {
			kind, _, _ := dupKind(res.n)
			rep.ContentDuplicates[kind]++
		}
		if host == w.stormHost() && q.Status == http.StatusServiceUnavailable && (res.kind != resHostile || !isRetryPage(res.n)) {
			rep.Hostile[hostileStorm]++
		}
		sitemap := res.kind == resSitemap
		switch {
		case sitemap:
			rep.SitemapRequests++
		case requisite:
			rep.RequisiteRequests++
		case res.spaSub():
			rep.SPARequests++
		default:
			rep.PageRequests++
		}
		if pagesOK != nil && res.kind == resPage && (q.Status == http.StatusOK || q.Status == http.StatusNotModified) {
			pagesOK[host*pages+res.n] = true
		}
		if h.robotsDone.IsZero() || h.robotsDone.After(at) {
			rep.BeforeRobots++
			rep.flag(ViolationBeforeRobots, q, "no robots.txt response from the host was ready yet")
		}
		switch {
		case !kind.available():
			rep.UnavailableHostRequests++
			rep.flag(ViolationUnavailableHost, q, "the host's robots.txt is %s: nothing may be fetched", kind)
		case kind == RobotsFlaky && !h.robotsFail.IsZero() && !h.robotsFail.After(at) &&
			(h.robotsOK.IsZero() || h.robotsOK.After(at)):
			rep.UnavailableHostRequests++
			rep.flag(ViolationUnavailableHost, q, "the host's robots.txt had answered 5xx and not yet 200")
		}
		if ok, by, _ := w.allowed(host, clean+rawQuery(q.RawURL)); !ok {
			rep.DisallowedRequests++
			rep.flag(ViolationDisallowed, q, "robots.txt disallows it for %s (%s)", agent, by)
		}
		if sitemap {
			continue
		}
		if spa != nil && spa.observe(&rep, q, host, res) {
			continue
		}
		if requisite {
			w.judgeRequisite(&rep, q, q.Host+clean, polite, answered, reqs200, j)
			continue
		}
		key := q.Host + clean + querySuffix(res) // as Identity
		if res.kind == resSearch {
			key = q.Host + searchKey(q.RawURL) // the query is the page
		}
		trap := w.trapRequest(q, res, answered[key])
		if trap != "" {
			rep.TrapRequests++
			rep.Traps[trap]++
			if trap == TrapHiddenLinks {
				rep.flag(ViolationHiddenLink, q, "only an HTML comment or a script links to %s", q.RawURL)
			}
		}
		if answered[key] && !j.Revisits {
			rep.Duplicates++
			rep.flag(ViolationDuplicate, q, "%s was already fetched (this time as %s)", "http://"+key, q.RawURL)
		}
		// A drip never ends in time: retrying it is retrying a timeout.
		if q.Status != 0 && q.Status != http.StatusTooManyRequests && q.Status < 500 &&
			(res.kind != resHostile || res.n != hxDrip) {
			answered[key] = true
		}

		idx, isPage := w.slot(host, res.kind, res.n)
		redirect := host*pages + res.n // if res is a redirect
		if isPage && w.cfg.Changing && (res.kind == resPage || res.kind == resChange) {
			changes.observe(&rep, q, res, idx)
		}
		if isPage && w.cfg.SkewedGraph && res.kind == resPage && !fetched[idx] &&
			(q.Status == http.StatusOK || q.Status == http.StatusNotModified) {
			fetched[idx] = true
			order = append(order, idx)
		}
		switch {
		case isPage && t.pages[idx] >= 0:
			if (q.Status == http.StatusOK || q.Status == http.StatusNotModified) && !covered[idx] {
				covered[idx] = true
				rep.Covered++
			}
		case res.kind == resRedirect && t.redirects[redirect] >= 0:
		case res.kind == resHostile && t.hostile[host*numHostile+res.n] >= 0:
			// Not a page, but what a correct crawl fetches.
		case trap != "":
			// Inside a trap: counted there.
		case res.kind == resNofollow || loose.pages != nil &&
			(isPage && loose.pages[idx] >= 0 || res.kind == resRedirect && loose.redirects[redirect] >= 0):
			rep.NofollowOnlyFetched++
			rep.flag(ViolationNofollowOnly, q, "only rel=nofollow links or pages whose links must not be followed lead here")
		case !outside[key]:
			outside[key] = true
			rep.OutOfTruth++
			rep.flag(ViolationOutOfTruth, q, "%s", w.outOfTruthReason(host, res, clean))
		}
	}
	if linked.pages != nil {
		for i, d := range t.pages {
			if d >= 0 && linked.pages[i] < 0 {
				rep.SitemapOnly++
				if covered[i] {
					rep.SitemapOnlyCovered++
				}
			}
		}
	}
	if w.cfg.Hostile {
		for host := range w.cfg.Hosts {
			for n, s := range hostileSpecs {
				if i, ok := w.slot(host, resHostile, n); ok && s.charset && t.pages[i] >= 0 {
					rep.CharsetLinks++
					if covered[i] {
						rep.CharsetLinksFetched++
					}
				}
			}
		}
	}
	for i, d := range t.pages {
		if d >= 0 && !covered[i] && len(rep.Missing) < 20 {
			tg := w.slotTarget(i)
			rep.Missing = append(rep.Missing, w.hostName(tg.host)+pathOf(tg))
		}
	}
	if w.cfg.Changing {
		w.finishFreshness(&rep, &changes, j, t)
	}
	if w.cfg.Requisites {
		w.finishRequisites(&rep, pagesOK, reqs200)
	}
	if spa != nil {
		spa.finish(&rep, t, covered)
	}
	if w.cfg.SkewedGraph {
		bfs := t
		if linked.pages != nil {
			bfs = linked
		}
		w.finishImportance(&rep, order, bfs)
	}
	rep.Coverage = 1
	if rep.Reachable > 0 {
		rep.Coverage = float64(rep.Covered) / float64(rep.Reachable)
	}
	return rep
}

func (w *Web) outOfTruthReason(host int, res resource, clean string) string {
	kind := w.kind(host)
	switch {
	case res.kind == resNotFound:
		return "not a URL of this web (404)"
	case res.kind == resPrivate:
		return "a private page robots.txt disallows"
	case res.kind == resHostile && res.n == hxBigTail:
		return "linked only after the first 10 MiB of " + hostileSpecs[hxBig].path
	case !kind.available():
		return "on a host whose robots.txt is " + kind.String()
	case w.cfg.BadTLS[host] != 0:
		return "on a host whose certificate is bad (" + w.cfg.BadTLS[host].String() + ")"
	}
	if ok, by, _ := w.allowed(host, clean); !ok {
		return "robots.txt disallows it (" + by.String() + ")"
	}
	return "not reachable from the seeds within the depth limit"
}

// rawQuery is "?" and the query of a request URL, "" if it has none.
func rawQuery(rawURL string) string {
	_, q, ok := strings.Cut(rawURL, "?")
	if !ok {
		return ""
	}
	q, _, _ = strings.Cut(q, "#")
	return "?" + q
}
