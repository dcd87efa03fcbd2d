package main

import (
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestCrawlRobotsSitemapsSignals is the acceptance test of robots.txt,
// sitemaps and page-level signals, judged by what the web saw: every
// robots.txt variant (wildcards and $, agent-specific groups, a redirect,
// one that fails and then recovers, Crawl-delay, 404, 500, hanging), sitemap
// indexes with a gzip child listing pages nothing links to, and pages with
// meta robots, X-Robots-Tag and rel=nofollow.
func TestCrawlRobotsSitemapsSignals(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{
		Hosts:        20,
		PagesPerHost: 25,
		Seed:         17,
		CrawlDelay:   120 * time.Millisecond,
		Robots:       fakeweb.RobotsKinds(),
		Sitemaps:     true,
		PageSignals:  true,
	})
	s := testSettings(t, addr)
	s.Robots.Retries = 4 // the flaky robots.txt answers 503 twice, then recovers
	res := crawlInProcess(t, s, web.Seeds())
	r := web.Report(fakeweb.Judge{Delay: s.Delay})
	checkReport(t, r) // no disallowed fetch, none before robots.txt or while it fails, gaps and Crawl-delay kept, coverage 1
	if r.SitemapOnly == 0 || r.SitemapOnlyCovered != r.SitemapOnly {
		t.Errorf("sitemap-only pages: %d of %d fetched", r.SitemapOnlyCovered, r.SitemapOnly)
	}
	if r.NofollowOnlyFetched != 0 {
		t.Errorf("%d pages fetched that only nofollow leads to", r.NofollowOnlyFetched)
	}
	if res.Stats.Sitemaps == 0 || res.Stats.NofollowPages == 0 || res.Stats.NofollowLinks == 0 {
		t.Errorf("stats = sitemaps %d, nofollow pages %d, nofollow links %d: the web's features were not exercised",
			res.Stats.Sitemaps, res.Stats.NofollowPages, res.Stats.NofollowLinks)
	}
	t.Logf("%s", r)
}
