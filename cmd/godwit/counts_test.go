package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/wacz"
)

// TestBinaryCountsAgree: one crawl of the simulated web, by the built
// binary with its admin server on a loopback port, counts the same pages,
// redirects, robots.txt and sitemap fetches in its end-of-crawl summary,
// /api/status, /metrics and `godwit export pages`, and those are what the
// web served. The crawl is paused mid-way (so that nothing moves while the
// counts are read), then stopped; resumed, its summary counts the first
// run's WARC file too.
func TestBinaryCountsAgree(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	data := filepath.Join(dir, "data")
	web := startFakewebBinary(t, "--hosts", "3", "--pages", "40", "--seed", "5", "--redirects", "0.1",
		"--sitemaps", "--robots", "allow,disallow,not-found", "--seeds-out", seeds)

	cmd := exec.Command(godwitBinary(t), "crawl", "--proxy", "http://"+web, "--seeds", seeds, "--delay", "100ms",
		"--workers", "3", "--data", data, "--admin", "127.0.0.1:0")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		stderrMu sync.Mutex
		stderr   strings.Builder
	)
	apiURL := make(chan string, 1)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		sc := bufio.NewScanner(stderrPipe)
		re := regexp.MustCompile(`admin API and dashboard.*url=(http://\S+?)/?$`)
		for sc.Scan() {
			stderrMu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			stderrMu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				apiURL <- m[1]
			}
		}
	}()
	stopped := false
	defer func() {
		if !stopped {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	var api string
	select {
	case api = <-apiURL:
	case <-time.After(30 * time.Second):
		stderrMu.Lock()
		defer stderrMu.Unlock()
		t.Fatalf("the admin server never said where it listens:\n%s", stderr.String())
	}
	get := func(path string) []byte {
		t.Helper()
		resp, err := http.Get(api + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s\n%s", path, resp.Status, b)
		}
		return b
	}
	status := func() admin.Status {
		t.Helper()
		var st admin.Status
		if err := json.Unmarshal(get("/api/status"), &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	// Let the crawl fetch some pages, redirects and sitemaps, then pause
	// it and wait for the fetches in flight.
	for deadline := time.Now().Add(60 * time.Second); ; {
		st := status()
		if st.PagesFetched >= 20 && st.SitemapFetches > 0 && st.Redirects > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the crawl did not get going: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := http.Post(api+"/api/pause", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var st admin.Status
	for deadline := time.Now().Add(30 * time.Second); ; {
		if st = status(); st.Paused && st.InFlight == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("fetches still in flight while paused: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	metrics := parseMetrics(string(get("/metrics")))
	if st2 := status(); st2.PagesFetched != st.PagesFetched {
		t.Fatalf("a paused crawl's pages went from %d to %d", st.PagesFetched, st2.PagesFetched)
	}

	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	stopped = true
	<-stderrDone
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, stderr.String())
	}
	summary := parseSummary(t, stdout.String())
	exported := exportCounts(t, data)
	served := fetchReport(t, web, "100ms")

	type row struct {
		what                                  string
		summary, status, metrics, export, web int64
	}
	rows := []row{
		{"pages", summary["pages"], st.PagesFetched, metrics["godwit_pages_total"], exported["pages"], -1},
		{"redirects", summary["redirects"], st.Redirects, metrics["godwit_redirects_total"], exported["redirects"], -1},
		{"robots.txt", summary["robots.txt"], st.RobotsFetches, metrics["godwit_robots_fetches_total"], exported["robots.txt"], int64(served.RobotsRequests)},
		{"sitemaps", summary["sitemaps"], st.SitemapFetches, metrics["godwit_sitemap_fetches_total"], exported["sitemaps"], int64(served.SitemapRequests)},
		{"pages+redirects", summary["pages"] + summary["redirects"], st.PagesFetched + st.Redirects,
			metrics["godwit_pages_total"] + metrics["godwit_redirects_total"], exported["pages"] + exported["redirects"], int64(served.PageRequests)},
	}
	for _, r := range rows {
		if r.summary != r.status || r.status != r.metrics || r.metrics != r.export || (r.web >= 0 && r.export != r.web) {
			t.Errorf("%s: summary %d, /api/status %d, /metrics %d, export %d, served by the web %d (-1: not told apart)",
				r.what, r.summary, r.status, r.metrics, r.export, r.web)
		}
	}
	if summary["pages"] < 20 {
		t.Errorf("summary counts %d pages, want the 20 or more /api/status saw", summary["pages"])
	}
	if t.Failed() {
		t.Logf("summary:\n%s", stdout.String())
	}

	// Resumed to the end, the summary counts the first run's WARC file too.
	res := runBinary(t, "crawl", "--proxy", "http://"+web, "--seeds", seeds, "--delay", "100ms", "--data", data, "--admin", "off")
	if res.code != 0 {
		t.Fatalf("resumed crawl: exit %d\n%s", res.code, res.stderr)
	}
	warcs, _ := filepath.Glob(filepath.Join(data, "warc", "*.warc.gz"))
	if want := fmt.Sprintf("warc        %d file(s) (1 written in this run)", len(warcs)); len(warcs) < 2 || !strings.Contains(res.stdout, want) {
		t.Errorf("%d WARC files in the directory; the resumed summary does not say %q:\n%s", len(warcs), want, res.stdout)
	}
}

// parseSummary reads the counts of a crawl's summary: pages, redirects,
// robots.txt and sitemaps fetched.
func parseSummary(t *testing.T, out string) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[2] == "fetched" || len(f) >= 3 && strings.HasPrefix(f[2], "fetched") {
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				got[f[0]] = n
			}
		}
	}
	for _, k := range []string{"pages", "redirects", "robots.txt", "sitemaps"} {
		if _, ok := got[k]; !ok {
			t.Fatalf("summary has no %q count:\n%s", k, out)
		}
	}
	return got
}

// parseMetrics reads the unlabelled samples of a Prometheus text page.
func parseMetrics(page string) map[string]int64 {
	got := map[string]int64{}
	for _, line := range strings.Split(page, "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			got[name] = int64(v)
		}
	}
	return got
}

// exportCounts runs `godwit export pages` and counts its lines by kind:
// robots.txt, sitemaps (the simulated web's sitemap paths), redirects
// (3xx but 304) and pages (the rest).
func exportCounts(t *testing.T, data string) map[string]int64 {
	t.Helper()
	res := runBinary(t, "export", "pages", "--data", data)
	if res.code != 0 {
		t.Fatalf("export pages: exit %d: %s", res.code, res.stderr)
	}
	got := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		var p wacz.PageLine
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("export line %q: %v", line, err)
		}
		u, err := url.Parse(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case u.Path == "/robots.txt":
			got["robots.txt"]++
		case strings.HasPrefix(u.Path, "/sitemap"):
			got["sitemaps"]++
		case p.Status >= 300 && p.Status < 400 && p.Status != 304:
			got["redirects"]++
		default:
			got["pages"]++
		}
	}
	return got
}
