package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/frontier"
)

// startShapes serves a fakeweb.Shapes web on loopback for the test.
func startShapes(t *testing.T, cfg fakeweb.ShapesConfig) (*fakeweb.Shapes, string) {
	t.Helper()
	web, err := fakeweb.NewShapes(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- web.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Shapes.Serve: %v", err)
		}
	})
	return web, ln.Addr().String()
}

// TestCrawlLearnsAliases is the acceptance test of URL alias learning: a
// 20-host web where every page links the home page as / and /index.html
// and each section as X/, X/index.html and X/index.html?utm_source=feed,
// identical bytes, except on one host where every index.html is a page
// of its own. Judged from the server side: at most 2 alias fetches per
// host, every page fetched, the differing host's pages all kept. The
// same crawl with learning off fetches every alias, which shows the
// judge can tell.
func TestCrawlLearnsAliases(t *testing.T) {
	cfg := fakeweb.ShapesConfig{Hosts: 20, Aliases: true}
	web, addr := startShapes(t, cfg)
	s := testSettings(t, addr)
	s.Delay = 2 * time.Millisecond
	res := crawlInProcess(t, s, web.Seeds())
	r := web.Report()
	t.Logf("server side: %s", r)
	t.Logf("crawler: %+v", res.Stats.Aliases)
	if r.Coverage != 1 {
		t.Errorf("coverage %.3f, want 1; missing %v", r.Coverage, r.Missing)
	}
	if m := r.MaxAliasFetches(); m > 2 {
		t.Errorf("alias fetches per host up to %d, want at most 2: %v", m, r.AliasFetches)
	}
	if r.Duplicates != 0 {
		t.Errorf("%d duplicate requests", r.Duplicates)
	}
	diff := "h1." + web.Config().Domain
	if n := r.AliasFetches[diff]; n != 0 {
		t.Errorf("%d alias fetches on %s, whose index.html pages differ", n, diff)
	}
	// The rules are kept with the host records: after the crawl, the
	// store says h0 adopted the index.html rule and h1 contradicted it,
	// and `godwit hosts HOST` prints that.
	fr, err := frontier.Open(frontier.Options{Dir: dataDir(s.Data).state()})
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	b := &backend{now: time.Now}
	for host, want := range map[string]string{"h0." + web.Config().Domain: "drop /index.html: adopted", diff: "drop /index.html: contradicted"} {
		info, ok, err := fr.Host(host)
		if err != nil || !ok {
			t.Fatalf("Host(%s) = %v, %v", host, ok, err)
		}
		var out strings.Builder
		printHost(&out, b.host(info, 0), time.Now())
		if !strings.Contains(out.String(), "URL aliases") || !strings.Contains(out.String(), want) {
			t.Errorf("hosts show %s:\n%s\nwant %q", host, out.String(), want)
		}
	}

	web.Reset()
	s = testSettings(t, addr)
	s.Delay = 2 * time.Millisecond
	off := false
	s.URL.LearnAliases = &off
	crawlInProcess(t, s, web.Seeds())
	r = web.Report()
	t.Logf("learning off: %s", r)
	if m := r.MaxAliasFetches(); m <= 2 {
		t.Errorf("with learning off, alias fetches per host at most %d: the web does not tell", m)
	}
}

// TestCrawlLearnsAliasesDespiteTokens: the same web with a token new on
// every request in every page (a CSRF token, a session id), so that no
// alias ever answers the bytes of its original. The rules are confirmed
// on the payloads with their tokens masked: at most 2 alias fetches per
// host, every page fetched, the differing host's pages all kept.
func TestCrawlLearnsAliasesDespiteTokens(t *testing.T) {
	web, addr := startShapes(t, fakeweb.ShapesConfig{Hosts: 20, Aliases: true, Tokens: true})
	s := testSettings(t, addr)
	s.Delay = 2 * time.Millisecond
	res := crawlInProcess(t, s, web.Seeds())
	r := web.Report()
	t.Logf("server side: %s", r)
	t.Logf("crawler: %+v", res.Stats.Aliases)
	if r.Coverage != 1 {
		t.Errorf("coverage %.3f, want 1; missing %v", r.Coverage, r.Missing)
	}
	if m := r.MaxAliasFetches(); m > 2 {
		t.Errorf("alias fetches per host up to %d, want at most 2: %v", m, r.AliasFetches)
	}
	if n := r.AliasFetches["h1."+web.Config().Domain]; n != 0 {
		t.Errorf("%d alias fetches on h1, whose index.html pages differ", n)
	}
}

// TestCrawlEndlessTraps is the acceptance test of the template defence:
// a 20-host web where every host carries an endless trap (session
// chains whose pages link only /sess/N+1 and /sess/N+2, calendars,
// ever-longer searches, repeating paths) and one host 500 pages of
// genuine pagination, crawled with no --max-depth. The crawl ends by
// itself, at most 2% of the requests are inside traps and at most 10 on
// any host, every page outside them is fetched, the pagination to its
// end.
func TestCrawlEndlessTraps(t *testing.T) {
	web, addr := startShapes(t, fakeweb.ShapesConfig{Hosts: 20, Articles: 300, Traps: true, Pagination: 500})
	s := testSettings(t, addr)
	s.Delay = 2 * time.Millisecond
	if err := s.validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	res, err := runCrawl(ctx, s, web.Seeds(), slog.New(slog.NewTextHandler(io.Discard, nil)), newTerminal(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the crawl did not end by itself")
	}
	r := web.Report()
	t.Logf("server side: %s", r)
	t.Logf("crawler: %+v", res.Stats.Traps)
	if r.Coverage != 1 {
		t.Errorf("coverage of pages outside traps %.3f, want 1; missing %v", r.Coverage, r.Missing)
	}
	if r.PaginationCovered != r.Pagination || r.Pagination != 500*3 {
		t.Errorf("pagination: %d of %d pages fetched, want all 1500", r.PaginationCovered, r.Pagination)
	}
	if share := r.TrapShare(); share > 0.02 {
		t.Errorf("%d of %d requests (%.2f%%) inside traps, want at most 2%%", r.TrapRequests, r.Requests, 100*share)
	}
	if m := r.MaxTrapRequests(); m > 10 {
		t.Errorf("up to %d trap requests on one host, want at most 10: %v", m, r.TrapsPerHost)
	}
	if res.Stats.Traps.Template == 0 {
		t.Errorf("the template defence refused nothing")
	}
}

// TestEndlessTrapsResumed: the endless-trap web crawled in many short
// runs, each stopped by --max-pages while the traps are being learnt
// and resumed from the data directory, keeps the bound of an
// uninterrupted crawl (TestCrawlEndlessTraps): at most 10 trap requests
// on any host, every page outside the traps fetched. The trap defences'
// state is stored with the host records; when it was kept in memory
// only, every run paid each trap's window again.
func TestEndlessTrapsResumed(t *testing.T) {
	web, addr := startShapes(t, fakeweb.ShapesConfig{Hosts: 4, Articles: 24, Traps: true})
	s := testSettings(t, addr)
	s.Delay = 2 * time.Millisecond
	s.MaxPages = 12
	runs := 0
	for {
		seeds := web.Seeds()
		if runs > 0 {
			seeds = nil // resumed: the seeds come from the state
		}
		res := crawlInProcess(t, s, seeds)
		runs++
		if res.Stats.Frontier.Queued == 0 {
			break
		}
		if runs > 40 {
			t.Fatalf("the crawl does not end: %s", web.Report())
		}
	}
	r := web.Report()
	t.Logf("%d runs; server side: %s", runs, r)
	if r.Coverage != 1 {
		t.Errorf("coverage of pages outside traps %.3f, want 1; missing %v", r.Coverage, r.Missing)
	}
	if m := r.MaxTrapRequests(); m > 10 {
		t.Errorf("up to %d trap requests on one host over %d runs, want at most 10 as in one run: %v", m, runs, r.TrapsPerHost)
	}
	if r.Traps[fakeweb.ShapeTrapSession] == 0 || r.Traps[fakeweb.ShapeTrapCalendar] == 0 {
		t.Errorf("the session and calendar traps were not entered: %v", r.Traps)
	}
	// `godwit hosts HOST` prints what the store kept: h0's session
	// template (closed: its pages link nothing else), h1's calendar.
	fr, err := frontier.Open(frontier.Options{Dir: dataDir(s.Data).state()})
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	b := &backend{now: time.Now}
	for host, want := range map[string]string{"h0." + web.Config().Domain: " closed", "h1." + web.Config().Domain: "calendars, up to"} {
		info, ok, err := fr.Host(host)
		if err != nil || !ok {
			t.Fatalf("Host(%s) = %v, %v", host, ok, err)
		}
		var out strings.Builder
		printHost(&out, b.host(info, 0), time.Now())
		if !strings.Contains(out.String(), "pages counted") || !strings.Contains(out.String(), want) {
			t.Errorf("hosts show %s:\n%s\nwant the trap state, %q", host, out.String(), want)
		}
	}
}

// TestBinaryCrashEndlessTraps: the endless-trap web crawled by `godwit
// crawl`, killed with SIGKILL each time a few more trap pages were
// fetched and restarted on the same --data, keeps the bound of an
// uninterrupted crawl: at most 10 distinct trap URLs requested on any
// host (a request in flight at a kill, whose outcome the kill lost, is
// made again: counted once).
func TestBinaryCrashEndlessTraps(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: -short")
	}
	web, addr := startShapes(t, fakeweb.ShapesConfig{Hosts: 4, Articles: 24, Traps: true})
	// --timeout 2s: a lease a kill left out holds its host for as long
	// after the restart (the lease timeout follows it).
	args := []string{"crawl", "--data", filepath.Join(t.TempDir(), "data"), "--delay", "20ms", "--workers", "4",
		"--timeout", "2s", "--admin", "off", "--proxy", "http://" + addr, "--seeds", seedsFile(t, web.Seeds())}
	const kills = 6
	for i := range kills {
		before := web.Report()
		cmd := exec.Command(godwitBinary(t), args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill once the run fetched 3 more trap pages (mid-learning), or
		// 20 more pages (the traps learnt).
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			r := web.Report()
			if r.TrapRequests >= before.TrapRequests+3 || r.Requests >= before.Requests+20 {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
			t.Fatalf("run %d ended on its own (%v) before the kill\n%s", i, err, stderr.String())
		}
	}
	if res := runBinary(t, args...); res.code != 0 {
		t.Fatalf("final run: exit %d\n%s", res.code, res.stderr)
	}
	r := web.Report()
	t.Logf("%d kills; server side: %s; distinct trap URLs per host %v", kills, r, r.TrapURLsPerHost)
	if r.Coverage != 1 {
		t.Errorf("coverage of pages outside traps %.3f, want 1; missing %v", r.Coverage, r.Missing)
	}
	if m := r.MaxTrapURLs(); m > 10 {
		t.Errorf("up to %d trap URLs requested on one host over %d kills, want at most 10 as in one run: %v", m, kills, r.TrapURLsPerHost)
	}
}
