package crawl

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// Discovery is a chain of link filters. Every URL found on a page, in a
// Location header, in robots.txt or in a sitemap is a candidate that goes
// through the chain in order; a filter admits it (possibly rewritten) or
// refuses it with a reason, which Stats counts. The chain:
//
//	normalize → limits → aliases → scope → in-page duplicates →
//	trap patterns → host open (page budget, demotion) → calendar →
//	template → anomaly (accounting) → seen-set (the frontier's Add)
//
// A requisite (candidate.embed) travels the same chain with its own
// rules: one embed hop that keeps its page's depth (limits bounds embed
// hops instead), the requisite scope (any host by default, exclude rules
// still apply), the URL pattern defences, and none of the per-host
// defences (host open, calendar, template, anomaly), which judge a
// site's link structure: requisites come only from pages those already
// admitted, so they are bounded by them.
//
// A new defence is one more linkFilter in newChain. Filters decide in
// memory and never block, so they take no context: the one step that does
// I/O, the seen-set, is the frontier's Add, called by settle after the
// chain.

// foundURL is a URL as a page, a redirect, a robots.txt or a sitemap gave
// it, before the chain: what read keeps for every link of a page until
// discover takes them one at a time. Kept apart from candidate, whose
// chain state is 3.5 times its size: a page of 14,000 links (the Python
// documentation's contents.html) held 4.4 MB of candidates for the whole
// of its processing (docs/benchmarks.md, "Peak RSS on the Python docs").
type foundURL struct {
	raw      string
	redirect bool
	// sitemap > 0 marks a sitemap file at that nesting level.
	sitemap int
	// fromSitemap marks a URL listed in a sitemap; hints are what it said.
	fromSitemap bool
	hints       Hints
	// embed marks a page requisite (an image, a stylesheet, …) of the
	// page or stylesheet it was found in: it takes one embed hop, not a
	// link hop, and its own scope rule.
	embed bool
}

// candidate is a URL on its way through the chain: what was found, and
// what the filters made of it so far. discover passes one candidate at a
// time; no filter keeps it.
type candidate struct {
	foundURL

	// Set by the chain.
	page  *page    // where it was found
	url   *url.URL // normalized (normalize), rewritten by aliases
	link  Link     // the Link it becomes; Key is set by the dedupe filter
	path  string   // of link.Key, for the trap defences
	query string
}

// sitemapSourced reports whether the candidate comes from a site's own
// sitemaps, which legitimately list far more URLs than a page links to:
// the per-host discovery defences would take them for a trap.
func (cd *candidate) sitemapSourced() bool { return cd.fromSitemap || cd.sitemap > 0 }

// page is what the filters know of the page a batch of candidates was
// found on. It lives for one discover call.
type page struct {
	task  Task
	debug bool // debug logging is on
	batch map[string]struct{}
	// Lazily computed from task.URL: its calendar and URL templates.
	calendar, template   string
	hasCalendar, hasTmpl bool
	// tmplBuf is where the template filter spells each link's template.
	tmplBuf []byte
	// cand is the candidate in the chain, one at a time (discoverFrom).
	cand candidate
}

// verdict is a filter's decision: "" admits, anything else is the
// reason of the refusal, as counted in Stats and logged.
type verdict string

const pass verdict = ""

// Refusal reasons that are not trap reasons (those are in traps.go).
const (
	refuseNotHTTP      verdict = "not-http"
	refuseInvalid      verdict = "invalid"
	refuseRedirects    verdict = "too-many-redirects"
	refuseTooDeep      verdict = "too-deep"
	refuseOutOfScope   verdict = "out-of-scope"
	refuseInPageRepeat verdict = "in-page-duplicate" // not counted: the seen-set would drop it too
	refuseEmbedHops    verdict = "requisite-hops"    // past Requisites.MaxHops
)

// linkFilter is one link of the discovery chain.
type linkFilter interface {
	filter(cd *candidate) verdict
}

// newChain builds the discovery chain of c.
func (c *Crawler) newChain() []linkFilter {
	return []linkFilter{
		normalizeFilter{c},
		limitsFilter{c},
		aliasFilter{c},
		scopeFilter{c},
		dedupeFilter{c},
		patternFilter{c},
		hostOpenFilter{c},
		calendarFilter{c},
		templateFilter{c},
		anomalyFilter{c},
	}
}

// discover turns the candidates found while processing t into Links to
// queue: each goes through the chain (see above). Every refusal is
// counted in Stats under its reason; scope decisions are logged at debug
// level. A task that is neither a replay nor a revisit was a new page
// fetched from t.Host, which the per-host defences count.
func (c *Crawler) discover(t Task, cands []foundURL) []Link {
	return c.discoverFrom(t, cands, t.Replay == nil && !t.Revisit && t.Embed == 0)
}

// discoverFrom is discover; fetched says whether t's page was fetched (and
// counts for its host's defences), which is not so for a replay or for the
// sitemaps listed in a robots.txt fetched on t's lease.
func (c *Crawler) discoverFrom(t Task, cands []foundURL, fetched bool) []Link {
	if fetched {
		c.traps.fetched(t.Host)
	}
	p := &page{task: t, debug: c.log.Enabled(context.Background(), slog.LevelDebug),
		batch: make(map[string]struct{}, min(len(cands), maxLinksPresized))}
	// Sized for every candidate up to a point, as the batch: most of a
	// long page's links repeat one another (in-page duplicates) and never
	// become Links, and 160 bytes each for 14,000 was 2.2 MB.
	links := make([]Link, 0, min(len(cands), maxLinksPresized))
	cd := &p.cand
	for i := range cands {
		*cd = candidate{foundURL: cands[i], page: p}
		if cd.embed {
			c.stats.requisitesFound.Add(1)
		} else {
			c.stats.discovered.Add(1)
		}
		if v := c.run(cd); v != pass {
			c.stats.countRefusal(v)
			continue
		}
		links = append(links, cd.link)
	}
	return links
}

// maxLinksPresized is the most Links (and in-page keys) discover
// allocates room for before the chain has admitted them.
const maxLinksPresized = 256

// run passes cd through the chain and returns the first refusal, or pass.
func (c *Crawler) run(cd *candidate) verdict {
	for _, f := range c.chain {
		if v := f.filter(cd); v != pass {
			return v
		}
	}
	return pass
}

// settle is the end of the chain for the links of one lease: the
// seen-set (the frontier's Add), and what the crawl learns from the page
// on the way: its URL template's yield (traps_template.go) and, from its
// payload, the host's URL aliases (aliases.go), which out carries to the
// frontier. It returns how many links were new.
func (c *Crawler) settle(ctx context.Context, l Lease, out *Outcome, links []Link) (int, error) {
	t := l.Task
	firstFetch := out.Requested && out.Robots == nil && t.Sitemap == 0 && t.Replay == nil && !t.Revisit && t.Embed == 0
	if out.Requested && out.Robots == nil {
		c.aliases.learn(t, out)
	}
	c.aliases.persist(t.Host, out)
	if len(links) == 0 {
		if firstFetch {
			c.traps.yielded(t.Host, c.pageTemplate(t), t.Depth, 0, false)
		}
		return 0, nil
	}
	if !firstFetch {
		return c.frontier.Add(ctx, links)
	}
	// The page's yield is what is new outside its own template: those
	// links go to the seen-set first, on their own. Its requisites are
	// no yield: a page of a trap template that embeds a new image is
	// still a trap.
	tmpl := c.pageTemplate(t)
	outside := make([]Link, 0, len(links))
	var inside, embeds []Link
	for _, ln := range links {
		if ln.Embed > 0 {
			embeds = append(embeds, ln)
			continue
		}
		if ln.Host == t.Host && tmpl != "" && urlTemplate(keyPathQuery(ln.Key)) == tmpl {
			inside = append(inside, ln)
		} else {
			outside = append(outside, ln)
		}
	}
	n, err := c.frontier.Add(ctx, outside)
	if err != nil {
		return n, err
	}
	c.traps.yielded(t.Host, tmpl, t.Depth, n, len(outside) > 0)
	if len(inside) > 0 {
		m, err := c.frontier.Add(ctx, inside)
		n += m
		if err != nil {
			return n, err
		}
	}
	if len(embeds) == 0 {
		return n, nil
	}
	m, err := c.frontier.Add(ctx, embeds)
	return n + m, err
}

// normalizeFilter parses the candidate (urlnorm, the WHATWG URL
// Standard) and starts its Link: depth, redirect hops, host.
type normalizeFilter struct{ c *Crawler }

func (f normalizeFilter) filter(cd *candidate) verdict {
	t := cd.page.task
	u, href, err := urlnorm.ParseString(cd.raw)
	if err != nil {
		if errors.Is(err, urlnorm.ErrNotHTTP) {
			return refuseNotHTTP
		}
		f.c.log.Debug("invalid link", "url", cd.raw, "from", t.URL, "err", err)
		return refuseInvalid
	}
	l := Link{Depth: t.Depth + 1, Via: t.URL, Sitemap: cd.sitemap, Hints: cd.hints}
	if cd.sitemap > 0 {
		// A sitemap file is not a page: it sits at depth 0 and the URLs
		// it lists at depth 1, like links from a seed.
		l.Depth = 0
	}
	if cd.embed {
		// A requisite is part of its page: the page's depth, one more
		// embed hop.
		l.Depth, l.Embed = t.Depth, t.Embed+1
	}
	if cd.redirect {
		// A redirect target stands in for the URL that redirected:
		// same depth, same embed hops, one more hop.
		l.Depth, l.Hops, l.Embed = t.Depth, t.Hops+1, t.Embed
	}
	l.URL, l.Host = href, urlnorm.Host(u)
	cd.url, cd.link = u, l
	return pass
}

// limitsFilter applies the redirect-hop and depth limits.
type limitsFilter struct{ c *Crawler }

func (f limitsFilter) filter(cd *candidate) verdict {
	l := &cd.link
	if cd.redirect && l.Hops > f.c.cfg.MaxRedirects {
		f.c.log.Debug("redirect limit", "url", l.URL, "from", cd.page.task.URL, "hops", l.Hops)
		return refuseRedirects
	}
	if l.Embed > f.c.cfg.Requisites.MaxHops {
		return refuseEmbedHops
	}
	if f.c.cfg.MaxDepth > 0 && l.Depth > f.c.cfg.MaxDepth {
		return refuseTooDeep
	}
	return pass
}

// scopeFilter applies the scope (scope.go) and counts its decision.
type scopeFilter struct{ c *Crawler }

func (f scopeFilter) filter(cd *candidate) verdict {
	c := f.c
	s := cd.link.URL
	var in bool
	var why, rule string
	if cd.link.Embed > 0 && !c.cfg.Requisites.PageScope {
		in, why, rule = c.scope.decideRequisite(s)
	} else {
		in, why, rule = c.scope.decide(cd.url, s)
	}
	switch {
	case !in:
		if why == scopeExcluded {
			c.stats.scopeExcluded.Add(1)
		}
		if cd.redirect {
			// The redirect response is archived; its target is not
			// fetched.
			c.stats.redirectsOutOfScope.Add(1)
		}
	case why == scopeIncluded:
		c.stats.scopeIncluded.Add(1)
	}
	if cd.page.debug {
		c.log.Debug("scope", "url", s, "from", cd.page.task.URL, "in", in, "why", why, "rule", rule, "redirect", cd.redirect)
	}
	if !in {
		return refuseOutOfScope
	}
	return pass
}

// dedupeFilter gives the candidate its crawl key and drops a repeat
// within the page (the frontier's seen-set does the rest).
type dedupeFilter struct{ c *Crawler }

func (f dedupeFilter) filter(cd *candidate) verdict {
	cd.link.Key = f.c.canon.Key(cd.url)
	if _, dup := cd.page.batch[cd.link.Key]; dup {
		return refuseInPageRepeat
	}
	cd.page.batch[cd.link.Key] = struct{}{}
	cd.path, cd.query = keyPathQuery(cd.link.Key)
	return pass
}

// keyPathQuery splits a crawl key into its path and query: the trap
// patterns look at the key, where session parameters are gone and the
// query is sorted, so that every spelling of a URL is judged alike.
func keyPathQuery(key string) (path, query string) {
	rest := key
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return "/", ""
	}
	path, query, _ = strings.Cut(rest[i:], "?")
	return path, query
}

func (c *Crawler) fillLink(l *Link, u *url.URL) {
	l.URL = u.String()
	l.Key = c.canon.Key(u)
	l.Host = urlnorm.Host(u)
}

// pageCalendar is the calendar template of the page p, "" if none.
func (c *Crawler) pageCalendar(p *page) string {
	if !p.hasCalendar {
		p.hasCalendar = true
		if u, err := urlnorm.Parse(p.task.URL); err == nil {
			p.calendar = calendarTemplate(keyPathQuery(c.canon.Key(u)))
		}
	}
	return p.calendar
}
