package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/render"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// Render configures rendering pages in a browser (Deps.Renderer).
type Render struct {
	// Mode is render.Never (or ""), render.Auto or render.Always.
	Mode render.Mode
	// MaxShare is the most of the HTML pages fetched that auto mode
	// renders on hosts not known to pay (a host whose renders paid is
	// rendered whole); default 0.2.
	MaxShare float64
	// Learn is how many renders decide whether rendering pays on a host
	// (render.Selector's k); default 3.
	Learn int
	// Screenshot archives a PNG of each rendered page.
	Screenshot bool
}

// Renderer renders a page in a browser, answering every request of the
// browser through fetch. render.Pool implements it.
type Renderer interface {
	Render(ctx context.Context, page render.Page, fetch render.Fetcher) (*render.Result, error)
}

// Converter is an Archive that also stores a rendered page: the DOM as a
// conversion record referring to the page's response record (capture),
// and a screenshot, when not nil, as a resource record.
type Converter interface {
	Convert(ctx context.Context, capture Capture, uri string, html, screenshot []byte) error
}

// RenderStats are the crawl's rendering counters.
type RenderStats struct {
	Pages       int64 // pages rendered
	Found       int64 // renders that found links or text the plain fetch missed
	Failed      int64 // renders given up: the plain fetch was kept
	SubRequests int64 // browser requests fetched
	Disallowed  int64 // browser requests robots.txt disallowed (never sent)
	NotOwned    int64 // browser requests to hosts another cluster node owns (failed)
	Refused     int64 // other browser requests failed (not GET, excluded, unreachable)
	Cached      int64 // browser requests answered from requisites the crawl fetched already, by an earlier render or the plain path (no request)
	Reused      int64 // requisites queued for the plain path that a render had fetched already: not fetched again (no request)
	Nanos       int64 // wall time of renders
}

type renderCounters struct {
	pages, found, failed, subs, disallowed, notOwned, refused, cached, reused, nanos atomic.Int64
}

// RenderStats returns the rendering counters.
func (c *Crawler) RenderStats() RenderStats {
	r := &c.rstats
	return RenderStats{
		Pages: r.pages.Load(), Found: r.found.Load(), Failed: r.failed.Load(),
		SubRequests: r.subs.Load(), Disallowed: r.disallowed.Load(), NotOwned: r.notOwned.Load(),
		Refused: r.refused.Load(), Cached: r.cached.Load(), Reused: r.reused.Load(), Nanos: r.nanos.Load(),
	}
}

// RenderHost returns the render decision for host and its evidence.
func (c *Crawler) RenderHost(host string) (render.HostReport, bool) {
	if c.selector == nil {
		return render.HostReport{}, false
	}
	return c.selector.Host(host)
}

// RenderMode is the mode the crawl renders in: render.Never when it has
// no renderer.
func (c *Crawler) RenderMode() render.Mode {
	if c.renderer == nil {
		return render.Never
	}
	return c.cfg.Render.Mode
}

var errSubRequest = errors.New("crawl: browser request refused")

// maxVisitWait bounds the wait for a host's slot for one browser request;
// past it the request is failed to the browser (counted as refused). Two
// pages rendering at once, each on the other's host's lease, would
// otherwise wait for each other until the browser's page timeout.
const maxVisitWait = 20 * time.Second

// rendered is what a render of a page changed about its reading.
type rendered struct {
	res *render.Result
	// loaded are the requisites the browser fetched (and archived).
	loaded []string
}

// renderPage renders an HTML page whose plain fetch is resp when the
// Selector picks it, and replaces rd with the reading of the rendered DOM
// (its links, the plain page's, and its requisites minus those the
// browser loaded, which are archived already). held is the page's lease.
// A render that fails leaves rd alone: the plain fetch is kept.
func (c *Crawler) renderPage(ctx context.Context, held uint64, t Task, resp *fetch.Response, rd *reading) *rendered {
	if c.renderer == nil || t.Embed > 0 || t.Sitemap > 0 || resp.Status < 200 || resp.Status >= 300 ||
		!resp.IsHTML() || resp.Truncated != "" {
		return nil
	}
	if !rd.hasPlain {
		return nil
	}
	plain, body := rd.plain, rd.renderBody
	ok, why := c.selector.Decide(t.Host, plain)
	if ok && body == nil { // the verdict changed since read: not kept
		c.selector.Abandon(why)
		ok = false
	}
	if !ok {
		return nil
	}
	start := c.now()
	res, err := c.renderer.Render(ctx, render.Page{URL: t.URL, Status: resp.Status, Header: resp.Header, Body: body},
		c.subFetcher(held, resp.End, t))
	if err != nil {
		c.selector.Abandon(why)
		if ctx.Err() == nil {
			c.rstats.failed.Add(1)
			c.log.Warn("render failed; keeping the plain fetch", "url", t.URL, "err", err)
		}
		return nil
	}
	c.rstats.pages.Add(1)
	c.rstats.nanos.Add(int64(c.now().Sub(start)))

	h := resp.Header.Clone()
	h.Del("Content-Encoding")
	h.Del("Content-Length")
	h.Set("Content-Type", "text/html; charset=utf-8")
	rresp := &fetch.Response{URL: resp.URL, Status: resp.Status, Proto: resp.Proto, Header: h, Body: []byte(res.HTML),
		Start: resp.Start, FirstByte: resp.FirstByte, End: resp.End}
	rrd := c.read(ctx, t, rresp)

	loaded := map[string]bool{}
	for _, u := range res.Requisites {
		loaded[u] = true
	}
	plainLinks := map[string]bool{}
	have := map[string]bool{}
	for _, cand := range rd.cands {
		if !cand.embed {
			plainLinks[cand.raw] = true
		}
	}
	newLinks := 0
	cands := rrd.cands[:0:0]
	for _, cand := range rrd.cands {
		if have[cand.raw] || cand.embed && loaded[cand.raw] {
			continue
		}
		have[cand.raw] = true
		if !cand.embed && !plainLinks[cand.raw] {
			newLinks++
		}
		cands = append(cands, cand)
	}
	for _, cand := range rd.cands {
		if !have[cand.raw] && !(cand.embed && loaded[cand.raw]) {
			have[cand.raw] = true
			cands = append(cands, cand)
		}
	}
	rrd.cands = cands
	after := rrd.plain // the rendered DOM's signals, read with its links
	c.selector.Learn(t.Host, plain, after, newLinks)
	if newLinks > 0 || after.TextBytes-plain.TextBytes >= render.NewText {
		c.rstats.found.Add(1)
	}
	c.log.Debug("rendered", "url", t.URL, "why", strings.Join(why, ","), "new_links", newLinks,
		"requests", res.SubRequests, "disallowed", res.Disallowed)
	*rd = rrd
	return &rendered{res: res, loaded: res.Requisites}
}

// subFetcher answers a tab's requests for the page t, whose lease is held
// and whose own request ended at heldEnd, as the crawl fetches: only GET,
// only URLs no exclude rule refuses, the host's politeness slot held
// (Visitor), its robots.txt fetched first when needed and obeyed, the
// fetcher's SSRF guard and body cap, and the exchange archived as a
// requisite of the page.
func (c *Crawler) subFetcher(held uint64, heldEnd time.Time, page Task) render.Fetcher {
	return func(ctx context.Context, r render.Request) (*render.Response, error) {
		if r.Method != "" && r.Method != http.MethodGet {
			c.rstats.refused.Add(1)
			return nil, fmt.Errorf("%w: method %s", errSubRequest, r.Method)
		}
		u, err := urlnorm.Parse(r.URL)
		if err != nil {
			c.rstats.refused.Add(1)
			return nil, fmt.Errorf("%w: %v", errSubRequest, err)
		}
		var l Link
		c.fillLink(&l, u)
		if rule := c.scope.exclude.match(l.URL); rule != "" {
			c.rstats.refused.Add(1)
			return nil, fmt.Errorf("%w: excluded by %s", errSubRequest, rule)
		}
		cache := cacheable(r.ResourceType)
		if resp := c.cachedSub(cache, l.URL); resp != nil {
			c.rstats.cached.Add(1)
			return resp, nil
		}
		for tries := 0; ; tries++ {
			vctx, cancel := context.WithTimeout(ctx, maxVisitWait)
			v, err := c.visitor.Visit(vctx, l.Host, held, heldEnd)
			cancel()
			if errors.Is(err, ErrNotOwned) {
				c.rstats.notOwned.Add(1)
				return nil, err
			}
			if err != nil {
				c.rstats.refused.Add(1)
				return nil, err
			}
			if c.robotsNeeded(v.Robots, c.now()) {
				if tries > maxRobotsRedirects {
					_ = v.Release(Outcome{})
					c.rstats.refused.Add(1)
					return nil, fmt.Errorf("%w: robots.txt of %s unavailable", errSubRequest, l.Host)
				}
				out, _ := c.fetchRobots(ctx, Lease{Task: Task{Link: l}, Robots: v.Robots})
				_ = v.Release(out)
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
			if v.Robots.Status == RobotsGaveUp {
				_ = v.Release(Outcome{})
				c.rstats.refused.Add(1)
				return nil, fmt.Errorf("%w: robots.txt of %s unavailable", errSubRequest, l.Host)
			}
			if !robotsAllows(v.Robots, l.URL) {
				_ = v.Release(Outcome{})
				c.rstats.disallowed.Add(1)
				c.stats.robotsDisallowed.Add(1)
				return nil, render.ErrDisallowed
			}
			if resp := c.cachedSub(cache, l.URL); resp != nil {
				// Another tab fetched it while this one waited for the host.
				_ = v.Release(Outcome{})
				c.rstats.cached.Add(1)
				return resp, nil
			}
			resp, err := c.subFetch(ctx, v, l, page)
			if err == nil && cache {
				c.subCache.put(l.URL, resp)
			}
			return resp, err
		}
	}
}

// cachedSub returns the requisite cache's answer for url when the
// request may be answered from it (cache), or nil.
func (c *Crawler) cachedSub(cache bool, url string) *render.Response {
	if !cache {
		return nil
	}
	return c.subCache.get(url)
}

// subFetch makes the request of a visit and archives it.
func (c *Crawler) subFetch(ctx context.Context, v Visit, l Link, page Task) (*render.Response, error) {
	start := c.now()
	resp, err := c.fetcher.Fetch(ctx, fetch.Request{URL: l.URL})
	if err != nil {
		out := Outcome{Requested: true, Start: start, End: c.now()}
		if ctx.Err() == nil {
			c.archiveFailureLogged(ctx, l.URL, start, out.End, 1, err)
		}
		switch fetch.Classify(err) {
		case fetch.Policy:
			out.Requested = false
		case fetch.Transient:
			out.Health = politeness.Transient
		}
		_ = v.Release(out)
		c.rstats.refused.Add(1)
		return nil, err
	}
	var out Outcome
	exchange(&out, resp)
	_ = v.Release(out)
	c.rstats.subs.Add(1)
	c.stats.bytes.Add(int64(len(resp.Body)))
	t := Task{Link: l}
	t.Embed, t.Via, t.Depth = 1, page.URL, page.Depth
	if _, err := c.archive.Record(ctx, t, resp, Decision{}); err != nil {
		c.log.Error("archive failed", "url", l.URL, "err", err)
		return nil, err
	}
	body, err := c.fetcher.Decode(resp)
	if err != nil && len(body) == 0 {
		return nil, err
	}
	return &render.Response{Status: resp.Status, Header: resp.Header, Body: body}, nil
}

// ReasonRenderFetched is Outcome.Reason for a requisite that a render
// fetched and archived before the plain path's turn came: not fetched
// again.
const ReasonRenderFetched = "render-fetched"

// requisiteFetched finishes a requisite task t without a request when
// the requisite cache holds its URL: a render fetched it (or the plain
// path, for a task queued twice) and archived it, since the task was
// queued. A page's links are fetched before its requisites (they carry
// its OPIC cash), so a page rendered early asks for the requisites its
// site's pages share before the plain path's turn comes. The archived
// record is the requisite's capture; a stylesheet is read from the cached
// answer for its own requisites, as the plain fetch would be. A revisit
// is fetched: it asks whether the requisite changed.
func (c *Crawler) requisiteFetched(ctx context.Context, t Task) (Outcome, []Link, bool) {
	if c.subCache == nil || t.Embed == 0 || t.Revisit || t.Sitemap > 0 {
		return Outcome{}, nil, false
	}
	cached := c.subCache.get(t.URL)
	if cached == nil {
		return Outcome{}, nil, false
	}
	h := cached.Header.Clone()
	h.Del("Content-Encoding") // the body is decoded
	h.Del("Content-Length")
	rd := c.read(ctx, t, &fetch.Response{URL: t.URL, Status: cached.Status, Header: h, Body: cached.Body})
	links := c.discover(t, rd.cands)
	if rd.chain != nil {
		c.chains.hold(rd.chain, links)
	}
	c.rstats.reused.Add(1)
	c.log.Debug("requisite fetched by a render already", "url", t.URL)
	return Outcome{Disposition: Done, Reason: ReasonRenderFetched}, links, true
}

// cacheRequisite puts a requisite the plain path fetched and archived
// whole (resp) into the requisite cache, when the crawl renders and a
// browser could ask for it: a 200 answer, not truncated, not HTML (a
// frame is a document, which the cache never answers), whose body
// decodes within the cache's entry bound; the cache's own rules
// (subCache.put) apply too. A render that asks for it later is answered
// from the cache instead of fetching it again.
func (c *Crawler) cacheRequisite(url string, resp *fetch.Response) {
	if c.subCache == nil || resp.Status != http.StatusOK || resp.Truncated != "" || resp.IsHTML() ||
		len(resp.Body) > subCacheEntry {
		return
	}
	body, err := c.fetcher.Decode(resp)
	if err != nil {
		return
	}
	c.subCache.put(url, &render.Response{Status: resp.Status, Header: resp.Header, Body: body})
}

// archiveRendered stores a rendered page next to its response record,
// when the archive can (Converter).
func (c *Crawler) archiveRendered(ctx context.Context, t Task, capture Capture, r *rendered) error {
	conv, ok := c.archive.(Converter)
	if !ok || capture.RecordID == "" {
		return nil
	}
	var png []byte
	if c.cfg.Render.Screenshot {
		png = r.res.Screenshot
	}
	return conv.Convert(ctx, capture, t.URL, []byte(r.res.HTML), png)
}

// maxRenderBody is the largest decoded page considered for rendering: a
// script-built page's shell is small, and a page this large has its
// content already (or is a decompression bomb).
const maxRenderBody = 1 << 20

// renderCandidate returns the decoded body of an HTML page whose plain
// fetch has the render signals s, for a page the Selector may pick; nil
// for a page no render will use, which is then not held in memory.
func (c *Crawler) renderCandidate(host string, s render.Signals, body []byte) []byte {
	h, _ := c.selector.Host(host)
	switch {
	case c.cfg.Render.Mode == render.Always, h.Verdict == render.Pays:
		return body
	case h.Verdict != render.Useless && len(s.Reasons(h.MeanLinks)) > 0:
		return body
	}
	return nil
}
