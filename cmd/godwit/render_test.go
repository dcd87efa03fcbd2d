package main

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/lifecycle"
	"github.com/godwit-crawler/godwit/internal/render"
)

// TestRenderSPAWeb is the acceptance test of rendering against fakeweb's
// SPA shape, judged from the server side: rendering (auto, with its
// defaults: every page of this web is a shell) covers every page,
// those only script-built links reach and those only scrolling reaches
// included (when the web has them), with no politeness violation counting every browser request,
// no request for the path robots.txt disallows, and no request no page
// made; with --render never the crawl gets the shells only.
func TestRenderSPAWeb(t *testing.T) {
	if _, err := render.FindBrowser(""); err != nil {
		t.Skip("chromium is not installed: rendering is not tested")
	}
	// One host of six pages, to keep the test short (a render costs
	// seconds): it has no page only a scrolled link reaches, which
	// internal/crawl's TestRenderCrawl covers.
	cfg := fakeweb.Config{Hosts: 1, PagesPerHost: 6, Seed: 7, SPA: true}
	type spaCrawl struct {
		crawlResult
		bundleRequests int // requests fakeweb saw for the shells' script
	}
	crawlSPA := func(mode string) (fakeweb.Report, spaCrawl) {
		web, addr := startWeb(t, cfg)
		seeds := []string{"http://h0." + web.Config().Domain + "/"}
		s := testSettings(t, addr)
		s.Delay = 5 * time.Millisecond
		s.Render.Mode = mode // the default share: it bounds only renders that explore
		s.Render.Screenshot = true
		res := crawlInProcess(t, s, seeds)
		r := web.Report(fakeweb.Judge{Delay: s.Delay, Seeds: seeds})
		t.Logf("--render %s: %s; rendered %+v", mode, r, res.Render)
		bundle := 0
		for _, q := range web.Requests() {
			if strings.HasSuffix(q.RawURL, "/spa/app.js") {
				bundle++
			}
		}
		return r, spaCrawl{crawlResult: res, bundleRequests: bundle}
	}
	r, res := crawlSPA("auto")
	// The bundle every shell loads is fetched once, not once per page
	// rendered: each render's browser context starts with an empty cache,
	// and the crawl answers it from the requisites it fetched.
	if n := res.bundleRequests; n != 1 {
		t.Errorf("%s fetched %d times for %d pages rendered, want once", "/spa/app.js", n, res.Render.Pages)
	}
	if r.SPAHosts == 0 || r.RenderedOnly == 0 {
		t.Fatalf("the web has %d SPA hosts and %d rendered-only pages: not the web this test needs", r.SPAHosts, r.RenderedOnly)
	}
	if r.Coverage != 1 || r.RenderedOnlyCovered != r.RenderedOnly || r.ScrollOnlyCovered != r.ScrollOnly {
		t.Errorf("coverage %.3f, rendered-only %d/%d, scroll-only %d/%d; want all", r.Coverage,
			r.RenderedOnlyCovered, r.RenderedOnly, r.ScrollOnlyCovered, r.ScrollOnly)
	}
	if r.ConcurrencyViolations != 0 || r.GapViolations != 0 || r.SPATrackRequests != 0 || r.Unmade != 0 {
		t.Errorf("%d concurrency and %d gap violations, %d requests for the disallowed /api/track, %d requests no page made %v; want none",
			r.ConcurrencyViolations, r.GapViolations, r.SPATrackRequests, r.Unmade, r.UnmadeSample)
	}
	// The WARC files, conversion and screenshot records included, pass
	// our verifier and the independent readers.
	var paths []string
	for _, name := range res.WARCFiles {
		paths = append(paths, filepath.Join(res.WARCDir, name))
	}
	fault := func(_, msg string) { t.Error(msg) }
	ours := verifyOurs(t, paths, fault)
	theirs := readNlnwa(t, paths, fault)
	if ours.Records != theirs.records || int64(theirs.types["conversion"]) != res.Render.Pages || int64(theirs.types["resource"]) != res.Render.Pages {
		t.Errorf("records: ours %d, nlnwa/gowarc %d %v; want as many conversion and resource records as pages rendered (%d)",
			ours.Records, theirs.records, theirs.types, res.Render.Pages)
	}
	if ia := verifyIA(t, paths, fault); ia.records != theirs.records {
		t.Errorf("internetarchive/gowarc read %d records, nlnwa/gowarc %d", ia.records, theirs.records)
	}
	if w := readWarcio(t, paths, fault); w != nil && w.Records != theirs.records {
		t.Errorf("warcio read %d records, nlnwa/gowarc %d", w.Records, theirs.records)
	}
	never, _ := crawlSPA("never")
	if never.RenderedOnlyCovered != 0 || never.ScrollOnlyCovered != 0 {
		t.Errorf("--render never covered %d rendered-only and %d scroll-only pages, want none (only the shells)",
			never.RenderedOnlyCovered, never.ScrollOnlyCovered)
	}
}

// TestRenderSettings: --render takes never, auto or always; always
// without a browser, or a --browser that is not there, is an error in
// words; auto without a browser renders nothing; the effective settings
// show the defaults.
func TestRenderSettings(t *testing.T) {
	if err := (renderSettings{Mode: "sometimes"}).validate(); err == nil {
		t.Error(`validate(--render sometimes) = nil, want an error`)
	}
	if err := (renderSettings{MaxShare: 1.5}).validate(); err == nil {
		t.Error("validate(max_share 1.5) = nil, want an error")
	}
	log := slog.New(slog.DiscardHandler)
	var g lifecycle.Group
	defer g.Stop()
	s := defaultSettings()
	s.Render = renderSettings{Mode: "always", Browser: "/nonexistent/chromium"}
	var ccfg crawl.Config
	if _, err := startRender(t.Context(), &g, s, &ccfg, log); err == nil || !strings.Contains(err.Error(), "needs a browser") {
		t.Errorf("--render always --browser /nonexistent: err = %v, want one saying it needs a browser", err)
	}
	t.Setenv("PATH", t.TempDir()) // no chromium there
	s.Render = renderSettings{Mode: "auto"}
	if pool, err := startRender(t.Context(), &g, s, &ccfg, log); err != nil || pool != nil || ccfg.Render.Mode != "" {
		t.Errorf("--render auto without a browser: pool %v, err %v, mode %q; want no pool, no error", pool, err, ccfg.Render.Mode)
	}
	s.Render = renderSettings{Mode: "always"}
	if _, err := startRender(t.Context(), &g, s, &ccfg, log); err == nil {
		t.Error("--render always without a browser: no error")
	}
	e := effectiveSettings(defaultSettings()).Render
	if e.Mode != "auto" || e.Workers != 2 || e.MaxShare != 0.2 || e.RestartAfter != 200 || e.Learn != 3 {
		t.Errorf("effective render settings %+v, want auto, 2 tabs, share 0.2, restart after 200, learn 3", e)
	}
}

// TestHostShowRender: godwit hosts show H says the host's render verdict
// and its evidence.
func TestHostShowRender(t *testing.T) {
	var b strings.Builder
	printHost(&b, admin.Host{Name: "h0.example", Render: &admin.HostRender{Mode: "auto", Verdict: "pays",
		Rendered: 3, Found: 3, NewLinks: 12, LastReasons: []string{"empty-app-root"}}}, time.Now())
	want := "pays (mode auto): 3 pages rendered, 3 found more, 0 found nothing, 12 links only rendering found, last picked for empty-app-root"
	if !strings.Contains(b.String(), want) {
		t.Errorf("hosts show:\n%s\nwant a rendering line %q", b.String(), want)
	}
}

// TestRenderKilled: `godwit crawl --render auto` SIGKILLed while a page
// is being rendered (the browser has asked for the page's JSON through
// godwit) leaves no browser process behind, and the same command again
// resumes and covers the SPA web, rendered-only pages included, politely
// and without the disallowed request, judged by the web.
func TestRenderKilled(t *testing.T) {
	if _, err := render.FindBrowser(""); err != nil {
		t.Skip("chromium is not installed: rendering is not tested")
	}
	web, addr := startWeb(t, fakeweb.Config{Hosts: 1, PagesPerHost: 6, Seed: 7, SPA: true})
	seed := "http://h0." + web.Config().Domain + "/"
	tmp := t.TempDir() // the browser's profile goes here: its processes name it
	args := []string{"crawl", seed, "--proxy", "http://" + addr, "--allow-private", "--data", filepath.Join(t.TempDir(), "d"),
		"--delay", "5ms", "--render", "auto", "--admin", "off", "--timeout", "5s"}
	cmd := exec.Command(godwitBinary(t), args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rendering := func() bool {
		for _, q := range web.Requests() {
			if strings.Contains(q.RawURL, "/api/page/") {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(60 * time.Second)
	for !rendering() {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no render started within a minute:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(processesNaming(tmp)) == 0 {
		t.Fatalf("no process names the browser's profile in %s while a page renders: the check below would see nothing", tmp)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	// The kernel ends the browser with its parent (Pdeathsig); its helpers
	// follow. Nothing that names this run's profile may be left.
	deadline = time.Now().Add(10 * time.Second)
	for {
		left := processesNaming(tmp)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("browser processes left 10 s after the crawl was killed: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}

	again := exec.Command(godwitBinary(t), args...)
	again.Env = append(os.Environ(), "TMPDIR="+tmp)
	if out, err := again.CombinedOutput(); err != nil {
		t.Fatalf("the crawl run again: %v\n%s", err, out)
	}
	r := web.Report(fakeweb.Judge{Delay: 5 * time.Millisecond, Seeds: []string{seed}})
	if r.Coverage != 1 || r.RenderedOnlyCovered != r.RenderedOnly || r.RenderedOnly == 0 {
		t.Errorf("after the kill and resume: coverage %.3f, rendered-only %d/%d; want all", r.Coverage, r.RenderedOnlyCovered, r.RenderedOnly)
	}
	// The page in render at the kill is fetched again, and its
	// sub-requests: a worker's worth (one page and its script and JSON).
	if r.ConcurrencyViolations != 0 || r.GapViolations != 0 || r.SPATrackRequests != 0 || r.Unmade != 0 || r.Duplicates > 1 {
		t.Errorf("%d concurrency and %d gap violations, %d requests for the disallowed /api/track, %d requests no page made, %d pages fetched twice; want none but the page in render at the kill",
			r.ConcurrencyViolations, r.GapViolations, r.SPATrackRequests, r.Unmade, r.Duplicates)
	}
	if left := processesNaming(tmp); len(left) != 0 {
		t.Errorf("browser processes left after the resumed crawl ended: %v", left)
	}
}

// processesNaming lists the processes whose command line contains s.
func processesNaming(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(s)) {
			out = append(out, e.Name()+": "+string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// TestClusterRender: two cluster nodes with --render auto crawl an SPA
// web, each rendering the pages of the hosts it owns with its own browser,
// every browser request through the owning node's politeness: the web is
// covered, rendered-only pages included, with no violation and no
// request for the path robots.txt disallows, judged by the web.
func TestClusterRender(t *testing.T) {
	clusterTest(t)
	if _, err := render.FindBrowser(""); err != nil {
		t.Skip("chromium is not installed: rendering is not tested")
	}
	web, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 5, Seed: 7, SPA: true})
	seeds := seedsFile(t, web.Seeds())
	nats := startNATS(t)
	var nodes []*crawlProcess
	for i := 1; i <= 2; i++ {
		args := append(clusterArgs(nats, "render", "n"+strconv.Itoa(i), filepath.Join(t.TempDir(), "d"), addr),
			"--render", "auto")
		if i == 1 {
			args = append(args, "--seeds", seeds)
		}
		nodes = append(nodes, startCrawlBinary(t, args...))
	}
	deadline := time.After(3 * time.Minute)
	for i, p := range nodes {
		select {
		case <-p.done:
		case <-deadline:
			dumpNodes(t, nodes...)
			r := web.Report(fakeweb.Judge{Delay: 20 * time.Millisecond})
			t.Fatalf("node %d still running after 3 minutes (coverage %.3f, missing %v)", i+1, r.Coverage, r.Missing)
		}
		if p.code != 0 {
			t.Errorf("node %d exited with %d:\n%s", i+1, p.code, tail(p.stderr.String(), 4096))
		}
	}
	r := web.Report(fakeweb.Judge{Delay: 20 * time.Millisecond})
	t.Logf("%s", r)
	for i, p := range nodes {
		t.Logf("node %d:\n%s\n%s", i+1, grepLines(p.stdout.String(), "render"), grepLines(p.stderr.String(), "DEBUG"))
	}
	if r.Coverage != 1 || r.RenderedOnly == 0 || r.RenderedOnlyCovered != r.RenderedOnly {
		t.Errorf("coverage %.3f, rendered-only %d/%d; want all", r.Coverage, r.RenderedOnlyCovered, r.RenderedOnly)
	}
	if r.ConcurrencyViolations != 0 || r.GapViolations != 0 || r.SPATrackRequests != 0 || r.Unmade != 0 || r.Duplicates != 0 {
		t.Errorf("%d concurrency and %d gap violations, %d requests for the disallowed /api/track, %d requests no page made, %d duplicates; want none",
			r.ConcurrencyViolations, r.GapViolations, r.SPATrackRequests, r.Unmade, r.Duplicates)
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if strings.Contains(line, sub) {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestRenderIPBudget: a rendering page's browser requests take part in
// the IP budget: two hosts on one address, each the other's CDN (the
// page requisites), rendered always, with an IP concurrency of 1: the
// address never has two requests in flight, nor two starts closer than
// --ip-delay, counting every browser request (fakeweb's judge). (Pages
// and requisites fetched again by the browser are not judged here: a
// render fetches what it needs.)
func TestRenderIPBudget(t *testing.T) {
	if _, err := render.FindBrowser(""); err != nil {
		t.Skip("chromium is not installed: rendering is not tested")
	}
	web := newDirectWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 1, Seed: 5, Requisites: true}, "127.0.0.2")
	s := web.settings(t)
	s.Delay = 5 * time.Millisecond
	s.IPConcurrency = 1
	s.IPDelay = 20 * time.Millisecond
	s.Render.Mode = "always"
	res := crawlInProcess(t, s, web.Seeds())
	r := web.Report(fakeweb.Judge{Delay: s.Delay, IPConcurrency: 1, IPDelay: s.IPDelay})
	t.Logf("%d requests, IP min gap %v; rendered %+v", r.Requests, r.IPMinGap, res.Render)
	if r.Coverage != 1 || res.Render.Pages == 0 || res.Render.SubRequests == 0 {
		t.Fatalf("coverage %.3f, rendered %+v; want every page, rendered, and browser requests fetched", r.Coverage, res.Render)
	}
	if r.ConcurrencyViolations != 0 || r.GapViolations != 0 || r.IPConcurrencyViolations != 0 || r.IPGapViolations != 0 {
		t.Errorf("violations: per host %d concurrency and %d gap, per IP %d concurrency and %d gap; want none",
			r.ConcurrencyViolations, r.GapViolations, r.IPConcurrencyViolations, r.IPGapViolations)
		for i, v := range r.Violations {
			if i < 10 && v.Kind != fakeweb.ViolationDuplicate {
				t.Logf("violation: %+v", v)
			}
		}
	}
	if r.IPPeak["127.0.0.2"] != 1 {
		t.Errorf("%d requests in flight at once to the address, want 1", r.IPPeak["127.0.0.2"])
	}
}
