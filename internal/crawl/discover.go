package crawl

import (
	"errors"
	"net/url"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// candidate is a URL found on a page or in a Location header, before filtering.
type candidate struct {
	raw      string
	redirect bool
}

// discover turns the candidates found while processing t into Links to
// queue: normalized, in scope, within the depth and redirect limits, and
// deduplicated within the batch (the frontier's seen-set does the rest).
func (c *Crawler) discover(t Task, cands []candidate) []Link {
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
		if !c.scope.allows(u) {
			c.stats.outOfScope.Add(1)
			c.log.Debug("out of scope", "url", u.String(), "from", t.URL, "redirect", cd.redirect)
			continue
		}
		c.fillLink(&l, u)
		if _, dup := batch[l.Key]; dup {
			continue
		}
		batch[l.Key] = struct{}{}
		links = append(links, l)
	}
	return links
}

func (c *Crawler) fillLink(l *Link, u *url.URL) {
	l.URL = u.String()
	l.Key = c.canon.Key(u)
	l.Host = urlnorm.Host(u)
}
