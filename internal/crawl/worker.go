package crawl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/godwit-crawler/godwit/internal/extract"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/render"
	"github.com/godwit-crawler/godwit/internal/robots"
	"github.com/godwit-crawler/godwit/internal/simhash"
)

// process does everything one lease allows: at most one request to the
// host. It returns the outcome and the links to queue. An error is fatal to
// the crawl (the archive could not record a response).
func (c *Crawler) process(ctx context.Context, l Lease) (Outcome, []Link, error) {
	t := l.Task
	c.aliases.load(l)
	c.traps.load(l)
	if t.Depth == 0 && t.Hops == 0 && t.Via == "" {
		c.seedScope(t)
	}
	if t.Replay != nil {
		return c.replay(ctx, t)
	}
	if l.OverBudget {
		// An operator capped the host's pages, and it has had them.
		c.stats.countClass(ClassPolicy)
		return Outcome{Disposition: Done, Class: ClassPolicy, Reason: "host-max-pages"}, nil, nil
	}
	if c.robotsNeeded(l.Robots, c.now()) {
		out, cands := c.fetchRobots(ctx, l)
		links := c.discoverFrom(t, cands, false)
		for i := range links {
			links[i].Cash = SeedCash // a site's own sitemaps count as seeds
		}
		return out, links, nil
	}
	switch {
	case l.Robots.Status == RobotsGaveUp:
		c.stats.robotsUnavailable.Add(1)
		c.stats.countClass(ClassPolicy)
		return Outcome{Disposition: Done, Class: ClassPolicy, Reason: reasonRobotsUnavailable}, nil, nil
	case !robotsAllows(l.Robots, t.URL):
		c.stats.robotsDisallowed.Add(1)
		c.stats.countClass(ClassPolicy)
		c.log.Debug("robots.txt disallows", "url", t.URL)
		return Outcome{Disposition: Done, Class: ClassPolicy, Reason: ReasonRobotsDisallowed}, nil, nil
	}
	if !t.Revisit && t.Embed == 0 && !c.traps.mayFetch(t.Host) {
		// The host spent its page budget (traps.go).
		c.stats.countTrap(trapHostPages)
		c.stats.countClass(ClassPolicy)
		return Outcome{Disposition: Done, Class: ClassPolicy, Reason: trapHostPages}, nil, nil
	}
	if out, links, ok := c.aliasAtLease(t); ok {
		return out, links, nil // aliases.go
	}
	if t.Embed == 0 && !c.takePage() {
		// The page budget is spent: leave the task where it was.
		return Outcome{Disposition: Requeue, Reason: "max-pages"}, nil, nil
	}
	if out, links, ok := c.requisiteFetched(ctx, t); ok {
		return out, links, nil // render.go
	}
	return c.fetchPage(ctx, l.ID, t)
}

// wrote is the fetch.Request.Wrote of a request under lease id to host:
// it tells the frontier, if it wants to know (WireReporter).
func (c *Crawler) wrote(id uint64, host string) func(time.Time) {
	w, ok := c.frontier.(WireReporter)
	if !ok {
		return nil
	}
	return func(at time.Time) { w.Wrote(id, host, at) }
}

// takePage reserves one page from the --max-pages budget, and ends the
// crawl's dispatch when the budget runs out.
func (c *Crawler) takePage() bool {
	if c.cfg.MaxPages == 0 {
		return true
	}
	n := c.budget.Add(1)
	if n >= c.cfg.MaxPages {
		c.stopDispatch()
	}
	return n <= c.cfg.MaxPages
}

// BudgetSpent reports whether the crawl used its whole page budget
// (Config.MaxPages): a crawl that ends so has not run out of URLs.
func (c *Crawler) BudgetSpent() bool {
	return c.cfg.MaxPages > 0 && c.budget.Load() >= c.cfg.MaxPages
}

// fetchPage fetches t under lease held, renders it when Config.Render
// picks it (render.go), and archives it.
func (c *Crawler) fetchPage(ctx context.Context, held uint64, t Task) (Outcome, []Link, error) {
	req := fetch.Request{URL: t.URL, Wrote: c.wrote(held, t.Host)}
	if !t.Validators.IsZero() {
		// Fetched before: ask for the body only if it changed.
		req.Header = conditional(t.Validators)
	}
	start := c.now()
	resp, err := c.fetcher.Fetch(ctx, req)
	if err != nil {
		out := c.fetchFailed(ctx, t, err)
		if ctx.Err() != nil {
			return out, nil, nil
		}
		if err := c.archiveFailure(ctx, t.URL, start, out.End, t.Attempt+1, err); err != nil {
			// As for a response: without the archive there is no point
			// fetching; stop the crawl, keep the task for the next run.
			return Outcome{Disposition: Requeue, Requested: true, End: out.End}, nil, err
		}
		return out, nil, nil
	}
	c.seeds.contact(t.Host, true, "")
	switch {
	case t.Embed > 0:
		c.stats.requisites.Add(1)
	case t.Sitemap > 0:
		c.stats.sitemapFetches.Add(1)
	case isRedirect(resp.Status):
		c.stats.redirects.Add(1)
	default:
		c.stats.pages.Add(1)
	}
	c.stats.bytes.Add(int64(len(resp.Body)))
	if resp.Truncated != "" {
		c.stats.truncated.Add(1)
		c.log.Info("body truncated", "url", t.URL, "reason", resp.Truncated, "bytes", len(resp.Body))
	}
	rd := c.read(ctx, t, resp)
	rdr := c.renderPage(ctx, held, t, resp, &rd) // nil: not rendered
	d := rd.decision(c.cfg)
	d.Outlinks = make([]string, 0, len(rd.cands))
	for _, cand := range rd.cands {
		if cand.embed {
			d.Embeds = append(d.Embeds, cand.raw)
		} else {
			d.Outlinks = append(d.Outlinks, cand.raw)
		}
	}
	if rdr != nil {
		d.Embeds = append(d.Embeds, rdr.loaded...) // fetched and archived by the render
	}
	d.SimHash, d.HasSimHash, d.Title = rd.simhash, rd.hasSimHash, rd.title
	c.runProcessors(ctx, t, resp, &rd, &d) // processors.go
	if resp.Status == http.StatusNotModified {
		d.NotModified = t.Prior // archived as a revisit of the capture it confirms
	}
	capture, err := c.archive.Record(ctx, t, resp, d)
	if err != nil {
		// Without the archive there is no point fetching: stop the crawl,
		// keep the task for the next run.
		return Outcome{Disposition: Requeue, Requested: true, End: resp.End}, nil, err
	}
	if t.Embed > 0 && !d.OmitBody {
		c.cacheRequisite(t.URL, resp) // archived whole: a later render may be answered with it
	}
	if rdr != nil {
		if err := c.archiveRendered(ctx, t, capture, rdr); err != nil {
			return Outcome{Disposition: Requeue, Requested: true, End: resp.End}, nil, err
		}
	}
	if err := c.emit(ctx, t, resp, d, capture); err != nil {
		// As for the archive: stop, and fetch the page again next run.
		return Outcome{Disposition: Requeue, Requested: true, End: resp.End}, nil, err
	}
	out := Outcome{Disposition: Done, Capture: &capture}
	exchange(&out, resp)
	if out.Validators.IsZero() && resp.Status == http.StatusNotModified {
		out.Validators = t.Validators // still current
	}
	out.Content = contentFingerprint(resp)
	if out.Content != 0 && resp.Status >= 200 && resp.Status < 300 {
		out.Similar = maskedFingerprint(resp.Body)
	}
	c.log.Debug("fetched", "url", t.URL, "status", resp.Status, "bytes", len(resp.Body), "depth", t.Depth)

	switch s := resp.Status; {
	case s == http.StatusNotModified:
		c.stats.notModified.Add(1)
		out.Reason = "not-modified"
	case s >= 300 && s < 400: // counted above
	case s >= 500 || s == 429:
		out.Class, out.Reason = ClassTransient, "http-status"
		if out.Health == politeness.Throttled {
			c.stats.throttled.Add(1)
		}
		if out.HasRetryAfter {
			c.log.Info("server asks to wait", "url", t.URL, "status", s, "retry_after", out.RetryAfter)
		}
		if t.Attempt < c.cfg.MaxRetries {
			out.Disposition = Retry
			c.stats.retries.Add(1)
		} else {
			c.stats.countClass(ClassTransient)
		}
	case s >= 400:
		out.Class, out.Reason = ClassPermanent, "http-status"
		c.stats.countClass(ClassPermanent)
	}
	links := c.discover(t, rd.cands)
	if rd.chain != nil {
		c.chains.hold(rd.chain, links)
	}
	if out.Disposition == Done && resp.Status != http.StatusNotModified {
		// OPIC: the page hands its cash on to its outlinks; its
		// requisites are part of it, and take none.
		pages := 0
		for i := range links {
			if links[i].Embed == 0 {
				pages++
			}
		}
		_, each := freshness.Distribute(t.Cash, pages)
		for i := range links {
			if links[i].Embed == 0 {
				links[i].Cash = each
			}
		}
		out.Spent = t.Cash
	}
	return out, links, nil
}

// contentFingerprint is Outcome.Content for a response: what a later
// fetch compares to see whether the URL changed.
func contentFingerprint(resp *fetch.Response) uint64 {
	d := xxhash.New()
	switch s := resp.Status; {
	case s == http.StatusNotModified:
		return 0
	case s >= 200 && s < 300:
		d.Write(resp.Body)
	case s >= 300 && s < 400:
		loc, _ := resp.Location()
		fmt.Fprintf(d, "%d %s", s, loc)
	default:
		fmt.Fprintf(d, "%d", s)
	}
	return max(d.Sum64(), 1) // 0 means "no answer"
}

// maskedFingerprint hashes body with every token-like run masked: a run
// of at least minTokenLen letters, digits, '-' and '_' holding at least
// two digits, and a letter unless it has no '-' (a Unix timestamp, but
// not a date). CSRF tokens, session ids, nonces (hex ones with a single
// letter too) are such runs; words, page numbers, dates and short
// identifiers ("a17", "2026") are not.
func maskedFingerprint(body []byte) uint64 {
	d := xxhash.New()
	start := 0
	for i := 0; i < len(body); {
		if tokenClass[body[i]] == 0 {
			i++
			continue
		}
		var n [classes]int // bytes of each class in the run
		j := i
		for ; j < len(body); j++ {
			k := tokenClass[body[j]]
			if k == 0 {
				break
			}
			n[k]++
		}
		if j-i >= minTokenLen && n[digit] >= 2 && (n[letter] > 0 || n[dash] == 0) {
			_, _ = d.Write(body[start:i])
			_, _ = d.Write([]byte{0})
			start = j
		}
		i = j
	}
	_, _ = d.Write(body[start:])
	return max(d.Sum64(), 1)
}

// minTokenLen is the shortest run maskedFingerprint takes for a token.
const minTokenLen = 10

// The classes of token bytes (tokenClass); 0 is a byte of no token.
const (
	digit = 1 + iota
	dash
	underscore
	letter
	classes
)

// tokenClass is the class of each byte in a token-like run: letters,
// digits, '-' and '_'. A table, not comparisons: maskedFingerprint reads
// every byte of every page.
var tokenClass = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = digit
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = letter, letter
	}
	t['-'], t['_'] = dash, underscore
	return t
}()

// conditional is the header of a conditional request (RFC 9110 §13.1).
func conditional(v Validators) http.Header {
	h := http.Header{}
	if v.ETag != "" {
		h.Set("If-None-Match", v.ETag)
	}
	if v.LastModified != "" {
		h.Set("If-Modified-Since", v.LastModified)
	}
	return h
}

// exchange fills in what a response tells about the server: timing,
// health, Retry-After, and the validators for a later conditional request.
func exchange(out *Outcome, resp *fetch.Response) {
	out.Requested = true
	out.Start, out.FirstByte, out.End, out.Status = resp.Start, resp.FirstByte, resp.End, resp.Status
	switch s := resp.Status; {
	case s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable:
		out.Health = politeness.Throttled
		out.RetryAfter, out.HasRetryAfter = politeness.ParseRetryAfter(
			resp.Header.Get("Retry-After"), resp.Header.Get("Date"), resp.End)
	case s >= 500:
		out.Health = politeness.Transient
	case s >= 200 && s < 300 || s == http.StatusNotModified:
		out.Validators = Validators{
			ETag:         strings.TrimSpace(resp.Header.Get("ETag")),
			LastModified: strings.TrimSpace(resp.Header.Get("Last-Modified")),
		}
	}
}

// reading is what a worker learnt from a response: the URLs it leads to
// and what its page-level robots signals ask of us.
type reading struct {
	cands   []foundURL
	signals robots.Directives
	// simhash fingerprints the visible text of an HTML page.
	simhash    uint64
	hasSimHash bool
	title      string
	// chain is the stylesheet chain (requisite_chains.go) the requisites
	// in cands belong to; nil for a page's.
	chain *chainBudget
	// body is an HTML page as decoded (content coding), in encoding,
	// for the processors.
	body     []byte
	encoding string
	// plain are an HTML page's render signals, when the crawl renders
	// (read in extract's pass over the page); hasPlain says the page may
	// be rendered, renderBody is its decoded body, kept for a page that
	// the Selector may pick (render.go).
	plain      render.Signals
	hasPlain   bool
	renderBody []byte
}

// decision is what the archive should do with the response.
func (r reading) decision(cfg Config) Decision {
	var d Decision
	if r.signals.NoArchive {
		d.Signals = append(d.Signals, "noarchive")
		d.OmitBody = !cfg.Pages.ArchiveNoArchive
	}
	if r.signals.NoIndex {
		d.Signals = append(d.Signals, "noindex")
		d.OmitBody = d.OmitBody || cfg.Pages.OmitNoIndex
	}
	if r.signals.NoFollow {
		d.Signals = append(d.Signals, "nofollow")
	}
	return d
}

// read interprets a response: its redirect target, the entries of a
// sitemap, or the links of an HTML page, minus what its robots signals
// (X-Robots-Tag, <meta name=robots>, rel=nofollow) forbid following.
func (c *Crawler) read(ctx context.Context, t Task, resp *fetch.Response) reading {
	rd := reading{signals: robots.ParseXRobotsTag(resp.Header.Values("X-Robots-Tag"), c.cfg.Agent)}
	switch s := resp.Status; {
	case s >= 300 && s < 400:
		if loc, ok := resp.Location(); ok {
			rd.cands = []foundURL{{raw: loc, redirect: true, sitemap: t.Sitemap}}
			if t.Embed > 0 {
				rd.chain = c.chains.take(t) // the target stays in the chain
			}
		}
	case s >= 200 && s < 300 && t.Sitemap > 0:
		c.stats.sitemaps.Add(1)
		rd.cands = c.sitemapLinks(t, resp)
	case s >= 200 && s < 300 && t.Embed > 0:
		// A requisite is read for its own requisites only: a stylesheet's
		// imports, fonts and images.
		if !c.cfg.Requisites.Off && isCSS(t, resp) {
			rd.cands, rd.chain = c.cssRequisites(t, resp)
		} else {
			c.chains.forget(t)
		}
	case t.Embed > 0:
		c.chains.forget(t)
	case s >= 200 && s < 300 && resp.IsHTML():
		doc, body, fp, hasFP := c.parseHTML(ctx, t, resp)
		if doc == nil {
			break
		}
		rd.simhash, rd.hasSimHash, rd.title = fp, hasFP, doc.Title
		if c.renderer != nil {
			rd.plain = render.Signals(doc.Signals) // read in extract's pass
			if t.Sitemap == 0 && resp.Truncated == "" && len(body) <= maxRenderBody {
				rd.renderBody = c.renderCandidate(t.Host, rd.plain, body)
				rd.hasPlain = true
			}
		}
		if c.procs != nil && c.procs.Len() > 0 {
			rd.body, rd.encoding = body, doc.Encoding // kept only for them
		}
		rd.signals = rd.signals.Merge(doc.Robots)
		// Requisites whatever the page's depth and robots signals: they
		// are part of the page, not links from it (nofollow is about
		// links).
		rd.cands = make([]foundURL, 0, len(doc.Embeds)+len(doc.Links))
		for _, e := range doc.Embeds {
			rd.cands = append(rd.cands, foundURL{raw: e.URL, embed: true})
		}
		if rd.signals.NoFollow {
			c.stats.nofollowPages.Add(1)
			break
		}
		if c.cfg.MaxDepth > 0 && t.Depth >= c.cfg.MaxDepth {
			break // its links would be too deep anyway
		}
		for _, ln := range doc.Links {
			if ln.Requisite() {
				continue // requisites off: a stylesheet is no page to follow
			}
			if ln.HasRel("nofollow") && !c.cfg.Pages.FollowNofollowLinks {
				c.stats.nofollowLinks.Add(1)
				continue
			}
			rd.cands = append(rd.cands, foundURL{raw: ln.URL})
		}
	}
	return rd
}

// Pages at least this large (compressed: largeCompressed) are decoded and
// parsed under the ParseMemory budget.
const (
	largePage       = 256 << 10
	largeCompressed = 64 << 10
)

// parseWeight is how much of the ParseMemory budget parsing resp takes.
func (c *Crawler) parseWeight(resp *fetch.Response) int64 {
	n := int64(len(resp.Body))
	switch {
	case resp.Header.Get("Content-Encoding") != "" && n >= largeCompressed:
		return c.cfg.ParseMemory / 4
	case n >= largePage:
		return min(2*n, c.cfg.ParseMemory)
	}
	return 0
}

// parseHTML decodes and tokenizes an HTML response, and fingerprints its
// visible text (hasFP is false for a page without text).
func (c *Crawler) parseHTML(ctx context.Context, t Task, resp *fetch.Response) (doc *extract.Document, body []byte, fp uint64, hasFP bool) {
	if w := c.parseWeight(resp); w > 0 {
		if err := c.parseMem.Acquire(ctx, w); err != nil {
			return nil, nil, 0, false // stopping
		}
		defer c.parseMem.Release(w)
	}
	body, err := c.fetcher.Decode(resp)
	if err != nil && len(body) == 0 {
		c.log.Info("cannot decode body", "url", t.URL, "err", err)
		return nil, nil, 0, false
	}
	page, err := parseURL(t.URL)
	if err != nil {
		return nil, nil, 0, false
	}
	// One pass over the page for its links, meta and title, for the
	// SimHash its visible text (boilerplate-light, in the encoding the
	// pass settled on) and, when the crawl renders, its render signals.
	text := simhash.NewTextFingerprint()
	doc, err = extract.HTML(page, body, &extract.Options{
		Agents:      []string{c.cfg.Agent},
		ContentType: resp.Header.Get("Content-Type"),
		Text:        text,
		Embeds:      !c.cfg.Requisites.Off,
		Signals:     c.renderer != nil,
	})
	if err != nil {
		c.log.Info("link extraction failed", "url", t.URL, "err", err)
		return doc, body, 0, false
	}
	fp, hasFP = text.Fingerprint()
	return doc, body, fp, hasFP
}

// replay processes an archived response again for a URL whose depth
// shrank after it was fetched. No request is made.
//
// A capture that cannot be read is, with a depth limit, fetched again
// instead: the Retry outcome has the frontier queue the URL as a plain
// fetch (a replay's retry counts no attempt), so that the links the
// smaller depth brings within the limit are followed. Without a depth
// limit the smaller depth reaches no link the first fetch did not queue
// already, so the URL is done, with no request. In a cluster that is the
// normal case of a page fetched by a node that owned its shard before
// this one: the capture is in that node's WARC files, which only a
// --store bucket shares. Damage to a file here is worth a warning; a file
// that is not here is not.
func (c *Crawler) replay(ctx context.Context, t Task) (Outcome, []Link, error) {
	resp, err := c.archive.Load(ctx, *t.Replay)
	if err != nil {
		if ctx.Err() != nil {
			return Outcome{Disposition: Requeue, Reason: "stopped"}, nil, nil
		}
		again := c.cfg.MaxDepth > 0
		what := "nothing to follow again without a depth limit"
		if again {
			what = "fetching it again"
		}
		if errors.Is(err, fs.ErrNotExist) {
			c.log.Debug("archived response not here; "+what, "url", t.URL, "capture", t.Replay.File)
		} else {
			c.log.Warn("cannot replay archived response; "+what, "url", t.URL, "capture", *t.Replay, "err", err)
		}
		if !again {
			return Outcome{Disposition: Done, Capture: t.Replay, Reason: "replay-unavailable"}, nil, nil
		}
		return Outcome{Disposition: Retry, Reason: "replay-unavailable"}, nil, nil
	}
	c.log.Debug("replayed at a smaller depth", "url", t.URL, "depth", t.Depth)
	return Outcome{Disposition: Done, Capture: t.Replay}, c.discover(t, c.read(ctx, t, resp).cands), nil
}

// fetchFailed turns a fetch error into an outcome.
func (c *Crawler) fetchFailed(ctx context.Context, t Task, err error) Outcome {
	end := c.now()
	if ctx.Err() != nil {
		// Abandoned at shutdown: fetch it again next time, as if never leased.
		return Outcome{Disposition: Requeue, Requested: true, End: end, Reason: "stopped"}
	}
	c.stats.countTLS(err)
	reason := fetch.Reason(err)
	c.seeds.contact(t.Host, false, reason)
	out := Outcome{Disposition: Done, Requested: true, End: end, Reason: reason}
	switch fetch.Classify(err) {
	case fetch.Policy:
		out.Class, out.Requested = ClassPolicy, false
	case fetch.Transient:
		out.Class, out.Health = ClassTransient, politeness.Transient
		if t.Attempt < c.cfg.MaxRetries {
			out.Disposition = Retry
			c.stats.retries.Add(1)
			c.log.Debug("fetch failed, will retry", "url", t.URL, "attempt", t.Attempt, "err", err)
			return out
		}
	default:
		out.Class = ClassPermanent
	}
	c.stats.countClass(out.Class)
	c.log.Info("fetch failed", "url", t.URL, "class", out.Class.String(), "err", err)
	return out
}

// archiveFailure records a request to url that started at start and
// failed with err at end in the archive, when the archive can (FailureRecorder)
// and the request was sent (fetch.ErrorKind): the SSRF guard's refusals
// made none.
func (c *Crawler) archiveFailure(ctx context.Context, url string, start, end time.Time, attempt int, err error) error {
	fr, ok := c.archive.(FailureRecorder)
	kind := fetch.ErrorKind(err)
	if !ok || kind == "" {
		return nil
	}
	return fr.RecordFailure(ctx, Failure{
		URL: url, Start: start, End: end, Attempt: attempt,
		Kind: kind, Class: fetch.Classify(err).String(), Detail: fetch.Reason(err), IP: fetch.ErrorIP(err),
	})
}

// archiveFailureLogged is archiveFailure for a request that is not itself
// a page (robots.txt, a browser's sub-request): a failure to archive is
// logged, and the next page's record will surface it.
func (c *Crawler) archiveFailureLogged(ctx context.Context, url string, start, end time.Time, attempt int, err error) {
	if aerr := c.archiveFailure(ctx, url, start, end, attempt, err); aerr != nil {
		c.log.Error("archive failed", "url", url, "err", aerr)
	}
}

// archiveRecord records an exchange that is not itself a page (robots.txt);
// a failure is logged, and the next page's Record will surface it.
func (c *Crawler) archiveRecord(ctx context.Context, t Task, resp *fetch.Response, d Decision) (Capture, bool) {
	capture, err := c.archive.Record(ctx, t, resp, d)
	if err != nil {
		c.log.Error("archive failed", "url", resp.URL, "err", err)
		return Capture{}, false
	}
	return capture, true
}

// isRedirect reports a 3xx status that points elsewhere (not a 304).
func isRedirect(status int) bool {
	return status >= 300 && status < 400 && status != http.StatusNotModified
}

// isCSS reports whether a requisite's response is a stylesheet: served
// as text/css, or, when its server did not say what it is (no type,
// text/plain, application/octet-stream), named *.css.
func isCSS(t Task, resp *fetch.Response) bool {
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	switch mt {
	case "text/css":
		return true
	case "", "text/plain", "application/octet-stream":
		path, _, _ := strings.Cut(t.URL, "?")
		return strings.HasSuffix(strings.ToLower(path), ".css")
	}
	return false
}

// cssRequisites reads a fetched stylesheet for the resources it needs:
// its @imports and url()s, as requisites of the stylesheet, within what
// is left of its chain's budget (requisite_chains.go), which it returns.
func (c *Crawler) cssRequisites(t Task, resp *fetch.Response) ([]foundURL, *chainBudget) {
	chain := c.chains.take(t)
	body, err := c.fetcher.Decode(resp)
	if err != nil && len(body) == 0 {
		c.log.Info("cannot decode stylesheet", "url", t.URL, "err", err)
		return nil, nil
	}
	sheet, err := parseURL(t.URL)
	if err != nil {
		return nil, nil
	}
	links, truncated := extract.CSS(sheet, body, 0)
	if truncated {
		c.log.Debug("stylesheet has too many references", "url", t.URL, "kept", len(links))
	}
	keep := 0
	if chain != nil {
		keep = c.chains.spend(chain, len(links))
	}
	if cut := len(links) - keep; cut > 0 {
		c.stats.requisiteHops.Add(int64(cut))
		c.log.Debug("stylesheet chain's budget spent", "url", t.URL, "hops", t.Embed, "not followed", cut)
	}
	cands := make([]foundURL, keep)
	for i, l := range links[:keep] {
		cands[i] = foundURL{raw: l.URL, embed: true}
	}
	return cands, chain
}
