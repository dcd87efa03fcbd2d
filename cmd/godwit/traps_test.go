package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestCrawlTraps is the acceptance test of the trap defences: a web with
// every trap enabled (infinite calendars, session IDs minted per visit,
// repeating relative paths, ever-longer search URLs, links in comments and
// scripts, <base href>, "&amp;" in queries, upper-case unquoted
// attributes), crawled with the default settings, judged from the server
// side: every reachable, allowed page outside the traps fetched, none
// twice, no link from a comment or script followed, and at most 1% of all
// requests spent inside traps.
func TestCrawlTraps(t *testing.T) {
	// Six hosts: each generative trap on two, each robots.txt kind on two
	// or more. The share of requests a trap can take is its cost per host
	// over the pages per host, whatever the number of hosts.
	const hosts, pages = 6, 500
	web, addr := startWeb(t, fakeweb.Config{
		Hosts: hosts, PagesPerHost: pages, Seed: 21,
		Robots: []fakeweb.RobotsKind{fakeweb.RobotsAllow, fakeweb.RobotsDisallow, fakeweb.RobotsNotFound, fakeweb.RobotsAllow},
		Traps:  fakeweb.AllTraps(),
	})
	s := testSettings(t, addr)
	s.Delay = 2 * time.Millisecond
	res := crawlInProcess(t, s, web.Seeds())
	r := web.Report(fakeweb.Judge{Delay: s.Delay})
	t.Logf("server side: %s", r)
	t.Logf("crawler: %+v", res.Stats.Traps)

	checkReport(t, r) // coverage 1, no duplicates, nothing outside the truth, politeness
	if n := r.Traps[fakeweb.TrapHiddenLinks]; n != 0 {
		t.Errorf("%d requests for links that only comments and scripts carry", n)
	}
	if share := r.TrapShare(); share > 0.01 {
		t.Errorf("%d of %d requests (%.2f%%) inside traps, want at most 1%%", r.TrapRequests, r.Requests, 100*share)
	}
	// Spelling traps cost nothing: the crawler reads the markup right.
	for _, k := range []fakeweb.TrapKind{fakeweb.TrapSessionIDs, fakeweb.TrapBaseHref, fakeweb.TrapEscapedQueries, fakeweb.TrapUpperCaseAttrs} {
		if n := r.Traps[k]; n != 0 {
			t.Errorf("%d requests fell for %s", n, k)
		}
	}
	// Each generative trap is entered, and bounded by its defence: a
	// third of the hosts carry each, so these are small per host.
	perHost := hosts / 3
	for _, b := range []struct {
		kind   fakeweb.TrapKind
		max    int   // requests per host carrying the trap
		caught int64 // the crawler's count of refusals for it
	}{
		{fakeweb.TrapCalendar, 1 + 6, res.Stats.Traps.Calendar},      // entry + MaxCalendarSteps
		{fakeweb.TrapRepeatingPaths, 2, res.Stats.Traps.PathRepeats}, // a/b/ and a/b/a/b/
		{fakeweb.TrapSearch, 3, res.Stats.Traps.TooManyParams},       // 4, 9, 19 parameters; 39 refused
	} {
		n := r.Traps[b.kind]
		if n == 0 || n > b.max*perHost {
			t.Errorf("%d requests inside the %s trap, want 1..%d", n, b.kind, b.max*perHost)
		}
		if b.caught == 0 {
			t.Errorf("the crawler counted no refusal for the %s trap", b.kind)
		}
	}
	if r.Covered < hosts*pages/2 {
		t.Errorf("only %d pages covered: the web is too small to mean much", r.Covered)
	}
}

// TestTrapAndScopeSettings: the url, include, exclude and traps blocks of
// a config file reach the core's configuration, and mistakes in them are
// reported.
func TestTrapAndScopeSettings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", `
scope: host
url:
  strip_params: [ref]
include:
  prefixes: [https://cdn.example.net/]
  patterns: ['^https://docs\.example\.org/']
exclude:
  prefixes: [https://example.com/calendar/]
traps:
  max_url_length: 1024
  max_calendar_steps: -1
  host_pages: 500
  anomaly: {min_urls: 5000, ratio: 50, pages: 10}
`)
	s := defaultSettings()
	s.Admin = "off"
	if err := loadConfigFile(good, &s); err != nil {
		t.Fatal(err)
	}
	var c crawl.Config
	s.applyURLSettings(&c)
	c.Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	want := crawl.Traps{MaxURLLength: 1024, MaxPathDepth: 20, MaxPathRepeats: 3, MaxQueryParams: 20, MaxCalendarSteps: -1,
		HostPages: 500, TemplatePages: 10, TemplateHops: 5, Anomaly: crawl.AnomalyThrottle{MinURLs: 5000, Ratio: 50, Pages: 10}}
	if c.Traps != want {
		t.Errorf("traps = %+v, want %+v", c.Traps, want)
	}
	if len(c.Include.Prefixes) != 1 || len(c.Include.Patterns) != 1 || len(c.Exclude.Prefixes) != 1 {
		t.Errorf("scope rules = %+v, %+v", c.Include, c.Exclude)
	}
	if len(c.URL.StripParams) != 1 || c.URL.StripParams[0] != "ref" || len(c.URL.SessionParams) == 0 {
		t.Errorf("url options = %+v, want strip [ref] and the default session list", c.URL)
	}

	s = defaultSettings()
	if err := loadConfigFile(write("unknown.yaml", "traps:\n  max_calendar: 3\n"), &s); err == nil {
		t.Error("an unknown traps key was accepted")
	}
	s = defaultSettings()
	if err := loadConfigFile(write("bad.yaml", "exclude:\n  patterns: ['(']\ntraps:\n  max_path_repeats: 1\n"), &s); err != nil {
		t.Fatal(err)
	}
	c = crawl.Config{}
	s.applyURLSettings(&c)
	c.Default()
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "exclude pattern") || !strings.Contains(err.Error(), "max path repeats") {
		t.Errorf("Validate = %v, want the bad pattern and repeat limit reported", err)
	}
}
