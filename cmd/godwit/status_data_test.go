package main

import (
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/admin"
)

// TestStatusRateWindows: a crawl 5 s old has its rates over 5 s, not
// "over 10m"; pages, redirects, robots.txt and sitemaps each on their own.
func TestStatusRateWindows(t *testing.T) {
	var out strings.Builder
	printStatus(&out, admin.Status{UptimeSeconds: 5.2, PagesFetched: 40, PagesPerSecond1m: 8, PagesPerSecond10m: 8,
		Redirects: 3, RobotsFetches: 2, SitemapFetches: 1})
	want := "40 pages (8.0/s over 5s, 8.0/s over 5s); 3 redirects, 2 robots.txt, 1 sitemaps"
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "10m") {
		t.Errorf("status of a 5 s old crawl:\n%s\nwant %q", out.String(), want)
	}
	out.Reset()
	printStatus(&out, admin.Status{UptimeSeconds: 300, PagesFetched: 40})
	if !strings.Contains(out.String(), "over 1m, 0.0/s over 5m00s)") {
		t.Errorf("status of a 5 min old crawl:\n%s", out.String())
	}
}
