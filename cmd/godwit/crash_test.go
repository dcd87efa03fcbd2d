package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestBinaryCrashResume kills `godwit crawl` with SIGKILL at random moments,
// restarting it each time with the same --data, then lets it finish. Judged
// from the server side across all runs: full coverage, no politeness
// violation (the first requests after each restart included), and no
// duplicate fetch beyond the URLs in flight at a kill (at most workers per
// kill). Every WARC file must then read cleanly with an independent reader.
func TestBinaryCrashResume(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: -short")
	}
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	addr := startFakewebBinary(t, "--hosts", "10", "--pages", "60", "--seed", "12",
		"--robots", "allow,disallow,crawl-delay,not-found", "--crawl-delay", "80ms", "--seeds-out", seeds)
	testCrashResume(t, fakewebConfigForCrashTest(), dir, []string{"--proxy", "http://" + addr, "--seeds", seeds}, 10,
		func() fakeweb.Report { return fetchReport(t, addr, crashDelay) })
}

// TestBinaryCrashResumeDirect is TestBinaryCrashResume on the same web
// served directly over HTTPS on three loopback addresses: every restart
// resolves names (--resolve), dials through the SSRF guard and opens TLS
// itself, with no proxy between.
func TestBinaryCrashResumeDirect(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: -short")
	}
	cfg := fakewebConfigForCrashTest()
	cfg.HTTPS = true
	web := newDirectWeb(t, cfg, directLoopback...)
	args := append([]string{"--seeds", seedsFile(t, web.Seeds())}, web.args()...)
	r := testCrashResume(t, cfg, t.TempDir(), args, 6, func() fakeweb.Report {
		return web.Report(fakeweb.Judge{Delay: 30 * time.Millisecond})
	})
	for _, q := range web.Requests() {
		if q.Proxy || !strings.HasPrefix(q.RawURL, "https://") {
			t.Fatalf("fakeweb saw %s (proxy %v), want only direct https:// requests", q.RawURL, q.Proxy)
		}
	}
	if r.Requests == 0 {
		t.Fatal("no requests")
	}
}

// crashDelay is the crash tests' --delay.
const crashDelay = "30ms"

// testCrashResume runs `godwit crawl` with args plus a data directory in
// dir, kills it kills times at random moments, lets a last run finish and
// judges the whole by report, the web's view, and the WARC files by the
// pages of a web made with cfg. It returns the report.
func testCrashResume(t *testing.T, cfg fakeweb.Config, dir string, args []string, kills int, report func() fakeweb.Report) fakeweb.Report {
	t.Helper()
	const workers = 4
	data := filepath.Join(dir, "data")
	args = append([]string{"crawl", "--data", data, "--delay", crashDelay, "--workers", strconv.Itoa(workers), "--timeout", "2s"}, args...)
	rng := rand.New(rand.NewPCG(1, 2))

	for i := range kills {
		cmd := exec.Command(godwitBinary(t), args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill at a random moment, from right after start-up to well into the crawl.
		time.Sleep(time.Duration(100+rng.IntN(700)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
			t.Fatalf("run %d ended on its own (%v) before the kill; the web is too small for this test\n%s", i, err, stderr.String())
		}
	}
	res := runBinary(t, args...)
	if res.code != 0 {
		t.Fatalf("final run: exit %d\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stdout, "resumed and finished") {
		t.Errorf("final run did not resume:\n%s", res.stdout)
	}

	r := report()
	if r.ConcurrencyViolations+r.GapViolations+r.DisallowedRequests+r.BeforeRobots+r.UnavailableHostRequests != 0 {
		t.Errorf("violations across restarts:\n%s", r)
	}
	if r.Coverage != 1 {
		t.Errorf("coverage %.3f after resuming, want 1", r.Coverage)
	}
	if r.Duplicates > workers*kills {
		t.Errorf("%d duplicate fetches, more than %d (workers × kills) in flight at the kills", r.Duplicates, workers*kills)
	}
	t.Logf("%d kills: %d requests, %d duplicates (bound %d)", kills, r.Requests, r.Duplicates, workers*kills)

	warcs, _ := filepath.Glob(filepath.Join(data, "warc", "*"))
	if len(warcs) == 0 {
		t.Fatal("no WARC files")
	}
	web, err := fakeweb.New(cfg) // to compare the archived payloads with
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range warcs {
		switch {
		case strings.HasSuffix(p, ".open"):
			t.Errorf("%s left open after a clean finish", filepath.Base(p))
		case strings.HasSuffix(p, ".cdxj"):
		default:
			readWARC(t, p, web, map[string]int{})
			// Files completed by a killed run are indexed by a later one.
			if _, err := os.Stat(strings.TrimSuffix(p, ".warc.gz") + ".cdxj"); err != nil {
				t.Errorf("%s has no CDXJ index: %v", filepath.Base(p), err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(data, "state", "seeds.txt")); err != nil {
		t.Error(err)
	}
	return r
}

// fakewebConfigForCrashTest mirrors the flags given to the fakeweb process,
// so archived payloads can be compared with the pages it served.
func fakewebConfigForCrashTest() fakeweb.Config {
	cfg := fakeweb.Config{Hosts: 10, PagesPerHost: 60, Seed: 12, CrawlDelay: 80 * time.Millisecond,
		Robots: []fakeweb.RobotsKind{fakeweb.RobotsAllow, fakeweb.RobotsDisallow, fakeweb.RobotsCrawlDelay, fakeweb.RobotsNotFound}}
	cfg.Default()
	return cfg
}
