package crawl

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// candidate is a URL found on a page, in a Location header, in robots.txt
// or in a sitemap, before filtering.
type candidate struct {
	raw      string
	redirect bool
	// sitemap > 0 marks a sitemap file at that nesting level.
	sitemap int
	// fromSitemap marks a URL listed in a sitemap; hints are what it said.
	fromSitemap bool
	hints       Hints
}

// discover turns the candidates found while processing t into Links to
// queue. Each candidate goes through, in order: normalization (urlnorm),
// the redirect and depth limits, scope (exclude rules, the seeds' hosts
// or domains, include rules), deduplication within the batch (the
// frontier's seen-set does the rest), the trap patterns (URL length, path
// depth and repetition, query parameters) and the per-host defences
// (page budget, calendar steps, discovery anomaly). Every refusal is
// counted in Stats under its reason; scope decisions are logged at debug
// level. A task that is neither a replay nor a revisit was a new page
// fetched from t.Host, which the per-host defences count.
func (c *Crawler) discover(t Task, cands []candidate) []Link {
	return c.discoverFrom(t, cands, t.Replay == nil && !t.Revisit)
}

// discoverFrom is discover; fetched says whether t's page was fetched (and
// counts for its host's defences), which is not so for a replay or for the
// sitemaps listed in a robots.txt fetched on t's lease.
func (c *Crawler) discoverFrom(t Task, cands []candidate, fetched bool) []Link {
	if fetched {
		c.traps.fetched(t.Host)
	}
	debug := c.log.Enabled(context.Background(), slog.LevelDebug)
	fromCal := ""
	if len(cands) > 0 {
		fromCal = c.pageCalendar(t.URL)
	}
	links := make([]Link, 0, len(cands))
	batch := make(map[string]struct{}, len(cands))
	for _, cd := range cands {
		c.stats.discovered.Add(1)
		u, err := urlnorm.Parse(cd.raw)
		if err != nil {
			if errors.Is(err, urlnorm.ErrNotHTTP) {
				c.stats.notHTTP.Add(1)
			} else {
				c.stats.invalid.Add(1)
				c.log.Debug("invalid link", "url", cd.raw, "from", t.URL, "err", err)
			}
			continue
		}
		l := Link{Depth: t.Depth + 1, Via: t.URL, Sitemap: cd.sitemap, Hints: cd.hints}
		if cd.sitemap > 0 {
			// A sitemap file is not a page: it sits at depth 0 and the URLs
			// it lists at depth 1, like links from a seed.
			l.Depth = 0
		}
		if cd.redirect {
			// A redirect target stands in for the URL that redirected:
			// same depth, one more hop.
			l.Depth, l.Hops = t.Depth, t.Hops+1
			if l.Hops > c.cfg.MaxRedirects {
				c.stats.tooManyRedirects.Add(1)
				c.log.Debug("redirect limit", "url", u.String(), "from", t.URL, "hops", l.Hops)
				continue
			}
		}
		if c.cfg.MaxDepth > 0 && l.Depth > c.cfg.MaxDepth {
			c.stats.tooDeep.Add(1)
			continue
		}
		l.URL = u.String()
		if !c.inScope(t, cd, u, l.URL, debug) {
			continue
		}
		l.Key = c.canon.Key(u)
		l.Host = urlnorm.Host(u)
		if _, dup := batch[l.Key]; dup {
			continue
		}
		batch[l.Key] = struct{}{}
		if reason := c.trapped(t, cd, &l, fromCal); reason != "" {
			c.stats.countTrap(reason)
			if debug {
				c.log.Debug("trap", "url", l.URL, "from", t.URL, "reason", reason)
			}
			continue
		}
		links = append(links, l)
	}
	return links
}

// inScope applies and counts the scope decision on u (spelled s).
func (c *Crawler) inScope(t Task, cd candidate, u *url.URL, s string, debug bool) bool {
	in, why, rule := c.scope.decide(u, s)
	switch {
	case !in:
		c.stats.outOfScope.Add(1)
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
	if debug {
		c.log.Debug("scope", "url", s, "from", t.URL, "in", in, "why", why, "rule", rule, "redirect", cd.redirect)
	}
	return in
}

// trapped returns the trap defence that refuses l, or "".
func (c *Crawler) trapped(t Task, cd candidate, l *Link, fromCal string) string {
	path, query := keyPathQuery(l.Key)
	if reason := c.traps.pattern(l, path, query); reason != "" {
		return reason
	}
	if cd.fromSitemap || cd.sitemap > 0 {
		// A site's own sitemaps legitimately list far more URLs than a
		// page links to: the per-host discovery defences would take them
		// for a trap. The URL patterns still apply.
		return ""
	}
	reason, demoted := c.traps.admit(l, calendarTemplate(path, query), fromCal, t.Host)
	if demoted {
		c.stats.demotedHosts.Add(1)
	}
	return reason
}

// pageCalendar is the calendar template of the page at raw, "" if none.
func (c *Crawler) pageCalendar(raw string) string {
	u, err := urlnorm.Parse(raw)
	if err != nil {
		return ""
	}
	return calendarTemplate(keyPathQuery(c.canon.Key(u)))
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
