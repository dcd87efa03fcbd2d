package main

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gowarc "github.com/nlnwa/gowarc/v2"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// startWeb serves a simulated web for the duration of the test.
func startWeb(t *testing.T, cfg fakeweb.Config) (*fakeweb.Web, string) {
	t.Helper()
	cfg.Default()
	web, err := fakeweb.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr, done, err := serveFakeweb(ctx, web)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("fakeweb.Serve: %v", err)
		}
	})
	return web, addr
}

// testSettings are quick but still polite settings for crawling fakeweb.
func testSettings(t *testing.T, proxyAddr string) crawlSettings {
	s := defaultSettings()
	s.Data = t.TempDir()
	s.Proxy = "http://" + proxyAddr
	s.Delay = 20 * time.Millisecond
	s.IPDelay = 5 * time.Millisecond // the default's ratio to the host delay
	s.Workers = 16
	s.Timeout = 3 * time.Second // generous: a timed-out page that the server did answer would be refetched, a duplicate from its side
	s.Robots.Retries = 2
	s.Robots.Backoff = 100 * time.Millisecond
	s.Robots.BackoffMax = time.Second
	s.Admin = "off" // tests that want the admin API ask for it
	s.Adapt.Backoff = 100 * time.Millisecond
	s.Adapt.BackoffMax = time.Second
	s.Adapt.BreakerOpen = 500 * time.Millisecond
	s.Adapt.BreakerOpenMax = 2 * time.Second
	// Rendering costs seconds a page: tests about it ask for it
	// (render_test.go); the others crawl as before it existed.
	s.Render.Mode = "never"
	return s
}

func crawlInProcess(t *testing.T, s crawlSettings, seeds []string) crawlResult {
	t.Helper()
	if err := s.validate(); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	res, err := runCrawl(t.Context(), s, seeds, log, newTerminal(io.Discard))
	if err != nil {
		t.Fatalf("runCrawl: %v", err)
	}
	return res
}

func checkReport(t *testing.T, r fakeweb.Report) {
	t.Helper()
	if !r.OK() {
		t.Errorf("fakeweb found violations: concurrency %d, gap %d, disallowed %d, before robots %d, unavailable hosts %d, duplicates %d, IP concurrency %d, IP gap %d",
			r.ConcurrencyViolations, r.GapViolations, r.DisallowedRequests, r.BeforeRobots, r.UnavailableHostRequests, r.Duplicates,
			r.IPConcurrencyViolations, r.IPGapViolations)
		for i, v := range r.Violations {
			if i == 10 {
				break
			}
			t.Logf("violation: %+v", v)
		}
	}
	if r.Coverage != 1 {
		t.Errorf("coverage = %.3f (%d of %d reachable pages), want 1; missing %v", r.Coverage, r.Covered, r.Reachable, r.Missing)
	}
	if r.OutOfTruth != 0 {
		t.Errorf("%d pages fetched outside the ground truth (too deep or unreachable)", r.OutOfTruth)
	}
}

// TestCrawlIsPolite is the acceptance test of the pipeline: a 50-host web
// with every robots.txt variant, Crawl-delays above a short --delay, and a
// depth limit, judged by what the web saw.
func TestCrawlIsPolite(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{
		Hosts:        50,
		PagesPerHost: 12,
		Seed:         7,
		CrawlDelay:   150 * time.Millisecond,
		Robots: []fakeweb.RobotsKind{
			fakeweb.RobotsAllow, fakeweb.RobotsDisallow, fakeweb.RobotsCrawlDelay,
			fakeweb.RobotsNotFound, fakeweb.RobotsServerError, fakeweb.RobotsHang,
		},
	})
	s := testSettings(t, addr)
	s.MaxDepth = 4
	res := crawlInProcess(t, s, web.Seeds())
	r := web.Report(fakeweb.Judge{Delay: s.Delay, MaxDepth: s.MaxDepth})
	checkReport(t, r)
	if r.Reachable < 50*4 {
		t.Errorf("only %d pages reachable: the test web is too small to mean much", r.Reachable)
	}
	if res.Stats.Pages == 0 || res.Stats.RobotsFetches == 0 {
		t.Errorf("stats = %+v, want pages and robots.txt fetches", res.Stats)
	}
}

// TestNoDuplicateSpellings: fakeweb spells its links every way real pages
// do (fragments, :80, upper-case hosts, ./ and ../, utm_* parameters,
// protocol-relative, <base href>); each page must still be fetched once.
func TestNoDuplicateSpellings(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 4, PagesPerHost: 60, LinksPerPage: 16, Seed: 3})
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	crawlInProcess(t, s, web.Seeds())
	r := web.Report(fakeweb.Judge{Delay: s.Delay})
	if r.Duplicates != 0 {
		t.Errorf("%d duplicate fetches", r.Duplicates)
		for _, v := range r.Violations {
			t.Logf("violation: %+v", v)
		}
	}
	checkReport(t, r)
}

// TestWARCReadByIndependentReader reads every WARC file with nlnwa/gowarc
// and checks one response record per fetched page, each with a payload
// digest that matches the payload, which must be the bytes the web served.
func TestWARCReadByIndependentReader(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 6, PagesPerHost: 30, Seed: 11, PageSize: 8000})
	s := testSettings(t, addr)
	s.WARC.MaxSize = 64 << 10 // force rotation
	res := crawlInProcess(t, s, web.Seeds())
	if len(res.WARCFiles) < 2 {
		t.Fatalf("%d WARC files, want rotation into several", len(res.WARCFiles))
	}
	served := map[string]int{}
	for _, rq := range web.Requests() {
		if rq.Status == http.StatusOK && rq.Path != "/robots.txt" {
			served[rq.RawURL]++
		}
	}
	responses := map[string]int{}
	for _, name := range res.WARCFiles {
		if strings.HasSuffix(name, ".open") {
			t.Errorf("%s still open after the crawl", name)
		}
		readWARC(t, filepath.Join(res.WARCDir, name), web, responses)
	}
	for u, n := range served {
		if responses[u] != n {
			t.Errorf("%s: served %d times, %d response records", u, n, responses[u])
		}
	}
	if len(served) == 0 {
		t.Fatal("the web served no pages")
	}
}

func readWARC(t *testing.T, path string, web *fakeweb.Web, responses map[string]int) {
	t.Helper()
	r, err := gowarc.NewWarcFileReader(path, 0, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first := true
	for {
		wr, _, validation, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		if !validation.Valid() {
			t.Errorf("%s: record %s: %v", filepath.Base(path), wr.WarcHeader().Get(gowarc.WarcRecordID), validation)
		}
		if first && wr.Type() != gowarc.Warcinfo {
			t.Errorf("%s starts with %v, want warcinfo", filepath.Base(path), wr.Type())
		}
		first = false
		if wr.Type() != gowarc.Response {
			wr.Close()
			continue
		}
		target := wr.WarcHeader().Get(gowarc.WarcTargetURI)
		if strings.HasSuffix(target, "/robots.txt") {
			wr.Close()
			continue
		}
		blk, ok := wr.Block().(gowarc.HttpResponseBlock)
		if !ok {
			t.Fatalf("response block is %T", wr.Block())
		}
		pr, err := blk.PayloadBytes()
		if err != nil {
			t.Fatal(err)
		}
		payload, err := io.ReadAll(pr)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha1.Sum(payload)
		want := "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
		if got := wr.WarcHeader().Get(gowarc.WarcPayloadDigest); got != want {
			t.Errorf("%s: payload digest %s, computed %s", target, got, want)
		}
		if page, ok := web.Page(target); !ok {
			if !strings.Contains(target, "/r/") {
				t.Errorf("%s: not a page of the web", target)
			}
		} else if !bytes.Equal(page, payload) {
			t.Errorf("%s: archived payload differs from what the web served (%d vs %d bytes)", target, len(payload), len(page))
		} else {
			responses[target]++
		}
		wr.Close()
	}
}

// TestPrivateAddressesRefused: without --allow-private the crawler does not
// connect to a loopback origin at all; with it, it does.
func TestPrivateAddressesRefused(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<a href=/a>a</a>")
	}))
	defer srv.Close()

	s := defaultSettings()
	s.Admin = "off"
	s.Data = t.TempDir()
	s.Delay = 10 * time.Millisecond
	res := crawlInProcess(t, s, []string{srv.URL + "/"})
	if n := hits.Load(); n != 0 {
		t.Fatalf("without --allow-private the server saw %d requests", n)
	}
	if res.Stats.Policy == 0 {
		t.Errorf("refusal not counted as a policy error: %+v", res.Stats)
	}

	s.Data = t.TempDir()
	s.AllowPrivate = true
	crawlInProcess(t, s, []string{srv.URL + "/"})
	if n := hits.Load(); n != 3 { // robots.txt, /, /a
		t.Errorf("with --allow-private the server saw %d requests, want 3", n)
	}
}

// TestStopsAtMaxPages: the page budget is honoured, counted by the server.
func TestStopsAtMaxPages(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 5, PagesPerHost: 50, Seed: 5})
	s := testSettings(t, addr)
	s.MaxPages = 30
	crawlInProcess(t, s, web.Seeds())
	if r := web.Report(fakeweb.Judge{Delay: s.Delay}); r.PageRequests != 30 {
		t.Errorf("the web saw %d page requests, want exactly --max-pages 30", r.PageRequests)
	}
}

// TestInterruptStopsCleanly: cancelling the crawl (Ctrl-C) stops it soon,
// with the WARC closed and readable.
func TestInterruptStopsCleanly(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 3, PagesPerHost: 200, Seed: 9})
	s := testSettings(t, addr)
	s.Delay = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for web.Report(fakeweb.Judge{}).PageRequests < 10 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	res, err := runCrawl(ctx, s, web.Seeds(), log, newTerminal(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted {
		t.Error("result not marked interrupted")
	}
	if r := web.Report(fakeweb.Judge{}); r.PageRequests >= 600 {
		t.Errorf("crawl ran to completion (%d page requests) despite the interrupt", r.PageRequests)
	}
	for _, f := range res.WARCFiles {
		if strings.HasSuffix(f, ".open") {
			t.Errorf("%s left open", f)
		}
		if _, err := os.Stat(filepath.Join(res.WARCDir, f)); err != nil {
			t.Error(err)
		}
	}
}
