package crawl

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// candidate is a URL found on a page or in a Location header, before filtering.
type candidate struct {
	raw      string
	redirect bool
}

// discover turns the candidates found while processing t into Links to
// queue. Each candidate goes through, in order: normalization (urlnorm),
// the redirect and depth limits, scope (exclude rules, the seeds' hosts
// or domains, include rules), deduplication within the batch (the
// frontier's seen-set does the rest), the trap patterns (URL length, path
// depth and repetition, query parameters) and the per-host defences
// (page budget, calendar steps, discovery anomaly). Every refusal is
// counted in Stats under its reason; scope decisions are logged at debug
// level. A task that is not a replay was a page fetched from t.Host,
// which the per-host defences count.
func (c *Crawler) discover(t Task, cands []candidate) []Link {
	if t.Replay == nil {
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
		l := Link{Depth: t.Depth + 1, Via: t.URL}
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
		if reason := c.trapped(t, &l, fromCal); reason != "" {
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
func (c *Crawler) trapped(t Task, l *Link, fromCal string) string {
	path, query := keyPathQuery(l.Key)
	if reason := c.traps.pattern(l, path, query); reason != "" {
		return reason
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
