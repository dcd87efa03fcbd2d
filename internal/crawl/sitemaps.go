package crawl

import (
	"bytes"
	"fmt"

	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/sitemap"
)

// Sitemaps configures the use of sitemaps: the files listed by robots.txt
// `Sitemap:` lines are fetched like any other URL of their host (politely,
// through robots.txt), and the in-scope URLs they list are queued with
// their lastmod, changefreq and priority as hints.
type Sitemaps struct {
	// Off ignores sitemaps.
	Off bool
	// Guess also tries /sitemap.xml on hosts whose robots.txt lists none.
	Guess bool
	// MaxNesting bounds sitemap indexes listing indexes; default 3 (robots.txt
	// → index → sitemap is 2).
	MaxNesting int
	// MaxEntries and MaxBytes cap one sitemap file; defaults are the
	// protocol's limits, 50,000 URLs and 50 MB uncompressed.
	MaxEntries int
	MaxBytes   int64
}

// Default fills zero fields.
func (s *Sitemaps) Default() {
	if s.MaxNesting == 0 {
		s.MaxNesting = 3
	}
	o := sitemap.Options{MaxEntries: s.MaxEntries, MaxBytes: s.MaxBytes}
	o.Default()
	s.MaxEntries, s.MaxBytes = o.MaxEntries, o.MaxBytes
}

// Validate reports settings that cannot work.
func (s Sitemaps) Validate() error {
	if s.MaxNesting < 1 || s.MaxEntries < 1 || s.MaxBytes < 1 {
		return fmt.Errorf("crawl: sitemap limits must be positive (nesting %d, entries %d, bytes %d)",
			s.MaxNesting, s.MaxEntries, s.MaxBytes)
	}
	return nil
}

// sitemapLinks reads a fetched sitemap file: the child sitemaps of an
// index, or the URLs of a sitemap or feed, as candidates.
func (c *Crawler) sitemapLinks(t Task, resp *fetch.Response) []foundURL {
	body, err := c.fetcher.Decode(resp)
	if err != nil && len(body) == 0 {
		c.log.Info("cannot decode sitemap", "url", t.URL, "err", err)
		return nil
	}
	var cands []foundURL
	res, err := sitemap.Parse(bytes.NewReader(body),
		sitemap.Options{MaxEntries: c.cfg.Sitemaps.MaxEntries, MaxBytes: c.cfg.Sitemaps.MaxBytes},
		func(e sitemap.Entry) error {
			cd := foundURL{raw: e.URL, fromSitemap: true,
				hints: Hints{LastMod: e.LastMod, ChangeFreq: e.ChangeFreq}}
			if e.Priority >= 0 {
				cd.hints.Priority, cd.hints.HasPriority = e.Priority, true
			}
			cands = append(cands, cd)
			return nil
		})
	if err != nil {
		c.log.Info("sitemap unreadable", "url", t.URL, "entries", len(cands), "err", err)
	}
	if res.Truncated {
		c.log.Info("sitemap over its limits; the rest is ignored", "url", t.URL, "entries", len(cands))
	}
	if res.Kind == sitemap.Index {
		if t.Sitemap+1 > c.cfg.Sitemaps.MaxNesting {
			c.log.Info("sitemap index nested too deep", "url", t.URL, "level", t.Sitemap)
			return nil
		}
		for i := range cands {
			cands[i].sitemap, cands[i].fromSitemap, cands[i].hints = t.Sitemap+1, false, Hints{}
		}
	}
	c.stats.sitemapURLs.Add(int64(len(cands)))
	return cands
}
