package crawl_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/crawltest"
)

// TestMetrics: the crawler's metrics count what the fake web served, on a
// registry of the test's own (no globals), with bounded labels.
func TestMetrics(t *testing.T) {
	pages := site{
		"http://a.test/robots.txt": crawltest.Status(404),
		"http://a.test/":           crawltest.HTML(`<a href="/x">x</a><a href="/gone">g</a>`),
		"http://a.test/x":          crawltest.HTML(""),
		"http://a.test/gone":       crawltest.Status(404),
	}
	cfg := crawl.Config{}
	cfg.Politeness = quickPolicy()
	cfg.Politeness.Default()
	c, err := crawl.New(cfg, crawl.Deps{Frontier: openFrontier(t, cfg.Politeness), Fetcher: crawltest.NewFetcher(pages), Archive: &crawltest.Archive{}})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	if err := c.RegisterMetrics(reg); err != nil {
		t.Fatal(err)
	}
	c.AddSeeds(t.Context(), []string{"http://a.test/"})
	if err := c.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP godwit_pages_total Page responses received (any status), robots.txt, sitemaps, redirects and requisites excluded.
# TYPE godwit_pages_total counter
godwit_pages_total 3
# HELP godwit_robots_outcomes_total robots.txt fetches by what they taught: ok, missing (4xx), unavailable (5xx, timeouts), gave-up, redirect, not-modified.
# TYPE godwit_robots_outcomes_total counter
godwit_robots_outcomes_total{outcome="missing"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "godwit_pages_total", "godwit_robots_outcomes_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(reg, "godwit_fetch_duration_seconds"); n != 0 && n != 2 {
		t.Errorf("fetch duration series = %d, want one per status class seen", n)
	}
	if err := c.RegisterMetrics(prometheus.NewRegistry()); err != nil {
		t.Errorf("a second registry: %v (metrics must not be global)", err)
	}
}
