package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestResumeAfterCleanStop: a crawl stopped by --max-pages and started
// again with the same --data (and no seeds) continues the same crawl: in
// the end every page was fetched exactly once.
func TestResumeAfterCleanStop(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 4, PagesPerHost: 40, Seed: 21})
	s := testSettings(t, addr)
	s.MaxPages = 25
	runs := 0
	for {
		seeds := web.Seeds()
		if runs > 0 {
			seeds = nil // resumed: the seeds come from the state
		}
		res := crawlInProcess(t, s, seeds)
		runs++
		if res.Resumed != (runs > 1) {
			t.Fatalf("run %d: Resumed = %v", runs, res.Resumed)
		}
		if res.Stats.Frontier.Queued == 0 {
			break
		}
		if runs > 20 {
			t.Fatal("the crawl does not converge")
		}
	}
	if runs < 3 {
		t.Errorf("finished in %d runs; the test needs several", runs)
	}
	r := web.Report(fakeweb.Judge{Delay: s.Delay})
	checkReport(t, r) // coverage 1, no duplicates, no politeness violation across runs
}

func TestDataDirectoryGuards(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 1, PagesPerHost: 5, Seed: 2})

	// A directory with other content is refused, and left alone.
	s := testSettings(t, addr)
	precious := filepath.Join(s.Data, "thesis.tex")
	os.WriteFile(precious, []byte("years of work"), 0o644)
	if _, err := runCrawl(t.Context(), s, web.Seeds(), discardLog(), newTerminal(io.Discard)); err == nil ||
		!strings.Contains(err.Error(), "not a godwit data directory") {
		t.Errorf("crawl into a foreign directory: %v", err)
	}
	s.Fresh = true
	if _, err := runCrawl(t.Context(), s, web.Seeds(), discardLog(), newTerminal(io.Discard)); err == nil {
		t.Error("--fresh wiped a foreign directory")
	}
	if _, err := os.Stat(precious); err != nil {
		t.Fatalf("foreign file touched: %v", err)
	}

	// --fresh starts over: the same pages are fetched again.
	s = testSettings(t, addr)
	crawlInProcess(t, s, web.Seeds())
	before := web.Report(fakeweb.Judge{}).PageRequests
	s.Fresh = true
	res := crawlInProcess(t, s, web.Seeds())
	if res.Resumed {
		t.Error("--fresh resumed")
	}
	if after := web.Report(fakeweb.Judge{}).PageRequests; after != 2*before {
		t.Errorf("--fresh crawl made %d page requests, want %d again", after-before, before)
	}
}

func discardLog() *slog.Logger { return slog.New(slog.DiscardHandler) }
