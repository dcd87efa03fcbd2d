package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/datadir"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// crawlProcess is a `godwit crawl` running in the background.
type crawlProcess struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	code           int
}

func startCrawlBinary(t *testing.T, args ...string) *crawlProcess {
	t.Helper()
	return startCrawlBinaryEnv(t, nil, args...)
}

// startCrawlBinaryEnv is startCrawlBinary with env added to the
// environment.
func startCrawlBinaryEnv(t *testing.T, env []string, args ...string) *crawlProcess {
	t.Helper()
	p := &crawlProcess{cmd: exec.Command(godwitBinary(t), append([]string{"crawl"}, args...)...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.Env = append(append(os.Environ(), "HTTP_PROXY=", "http_proxy="), env...)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		err := p.cmd.Wait()
		p.code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			p.code = ee.ExitCode()
		} else if err != nil {
			p.code = -2
		}
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

func (p *crawlProcess) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// wait waits for the process to end and returns its exit status (-1 when
// killed by a signal).
func (p *crawlProcess) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		t.Fatal("godwit crawl did not end")
	}
	return p.code
}

// waitUntil polls cond until it holds; the crawl p must still be running.
func waitUntil(t *testing.T, p *crawlProcess, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if p != nil && !p.running() {
			t.Fatalf("the crawl ended before %s: the web is too small for this test\nstdout:\n%s\nstderr:\n%s", what, &p.stdout, &p.stderr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lockPID is the process ID written in DIR/godwit.lock, 0 if none.
func lockPID(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, "godwit.lock"))
	line, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(line)
	return pid
}

// fakewebRequests is a fakeweb process's request log.
func fakewebRequests(t *testing.T, addr string) []fakeweb.Request {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/_fakeweb/requests")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rs []fakeweb.Request
	if err := json.NewDecoder(resp.Body).Decode(&rs); err != nil {
		t.Fatal(err)
	}
	return rs
}

func fetchReportDepth(t *testing.T, addr, delay string, maxDepth int) fakeweb.Report {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/_fakeweb/report?delay=" + delay + "&max_depth=" + strconv.Itoa(maxDepth))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r fakeweb.Report
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

// checkOwnFiles: every file a crawl left in data is one datadir.Inspect
// knows as godwit's, so that --fresh can delete it.
func checkOwnFiles(t *testing.T, data string) {
	t.Helper()
	c, err := datadir.Inspect(data)
	if err != nil || len(c.Foreign) > 0 || !c.Crawl || !c.Settings {
		t.Errorf("datadir.Inspect(%s) = foreign %v, crawl %v, settings %v, %v; want a crawl of godwit's files only", data, c.Foreign, c.Crawl, c.Settings, err)
	}
}

// TestBinaryDataDirInUse: while a crawl runs on DIR, a second crawl there,
// with or without --fresh, is refused with one clear line and exit
// status 2, and touches nothing; godwit status --data shows the running
// crawl. The first crawl is unharmed: full coverage, no politeness
// violation or duplicate fetch seen by the web, and its WARC verifies.
func TestBinaryDataDirInUse(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	addr := startFakewebBinary(t, "--hosts", "4", "--pages", "40", "--seed", "5", "--seeds-out", seeds)
	data := filepath.Join(dir, "data")
	args := []string{"--proxy", "http://" + addr, "--seeds", seeds, "--data", data, "--admin", "off",
		"--delay", "100ms", "--workers", "4", "--timeout", "3s"}
	first := startCrawlBinary(t, args...)
	pid := first.cmd.Process.Pid
	waitUntil(t, first, "the crawl fetches", func() bool { return fetchReport(t, addr, "100ms").PageRequests >= 4 })
	if got := lockPID(data); got != pid {
		t.Errorf("lock file names pid %d, want the crawl's %d", got, pid)
	}

	want := "godwit: " + data + " is in use by another godwit crawl (pid " + strconv.Itoa(pid) + "); stop it first\n"
	for _, extra := range [][]string{nil, {"--fresh"}} {
		res := runBinary(t, append(append([]string{"crawl"}, args...), extra...)...)
		if res.code != 2 || res.stderr != want {
			t.Errorf("second crawl %v: exit %d, stderr %q; want 2, %q", extra, res.code, res.stderr, want)
		}
	}
	// Without seeds, --fresh on the directory in use is refused as such,
	// not for want of seeds.
	if res := runBinary(t, "crawl", "--data", data, "--fresh", "--admin", "off"); res.code != 2 || res.stderr != want {
		t.Errorf("crawl --fresh without seeds: exit %d, stderr %q; want 2, %q", res.code, res.stderr, want)
	}
	st := runBinary(t, "status", "--data", data)
	if st.code != 0 || !strings.Contains(st.stdout, "running now (pid "+strconv.Itoa(pid)) || !strings.Contains(st.stdout, "delay: 100ms") {
		t.Errorf("godwit status --data during the crawl: exit %d\n%s%s", st.code, st.stdout, st.stderr)
	}
	if !first.running() {
		t.Fatal("the first crawl ended before the checks were done: the web is too small for this test")
	}

	if code := first.wait(t); code != 0 || !strings.Contains(first.stdout.String(), "godwit: crawl finished") {
		t.Fatalf("first crawl: exit %d\nstdout:\n%s\nstderr:\n%s", code, &first.stdout, &first.stderr)
	}
	checkReport(t, fetchReport(t, addr, "100ms"))
	warcs, _ := filepath.Glob(filepath.Join(data, "warc", "*.warc.gz"))
	if len(warcs) == 0 {
		t.Fatal("no WARC file")
	}
	if res := runBinary(t, append([]string{"warc", "verify"}, warcs...)...); res.code != 0 {
		t.Errorf("godwit warc verify: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}

	// The same command on the finished crawl has nothing to do, and says
	// what would.
	served := fetchReport(t, addr, "100ms").Requests
	again := runBinary(t, append([]string{"crawl"}, args...)...)
	if again.code != 0 || !strings.Contains(again.stdout, "godwit: crawl resumed and finished") ||
		!strings.Contains(again.stdout, "nothing to do: the crawl in "+data+" had finished, no URL left queued; --fresh starts it over") {
		t.Errorf("crawl again on the finished crawl: exit %d\n%s%s", again.code, again.stdout, again.stderr)
	}
	if n := fetchReport(t, addr, "100ms").Requests; n != served {
		t.Errorf("the finished crawl run again made %d requests", n-served)
	}
	// --fresh says in one line what it deleted; a page budget that ends
	// the crawl is named, with what is left.
	fresh := runBinary(t, append(append([]string{"crawl"}, args...), "--fresh", "--max-pages", "5")...)
	deleted := fmt.Sprintf("godwit: --fresh: deleted the earlier crawl in %s (its state and %d WARC file(s), ", data, len(warcs))
	if fresh.code != 0 || !strings.Contains(fresh.stderr, deleted) {
		t.Errorf("crawl --fresh: exit %d, stderr lacks %q:\n%s", fresh.code, deleted, fresh.stderr)
	}
	if !regexp.MustCompile(`godwit: crawl stopped at its page budget \(--max-pages 5\) in [^;]+; \d+ URLs left queued: run it again for up to 5 more\n`).MatchString(fresh.stdout) {
		t.Errorf("crawl --max-pages 5: the summary does not name the budget:\n%s", fresh.stdout)
	}
}

// TestBinaryKilledCrawlReleasesLock: after kill -9 the lock file still
// names the dead process, but the kernel dropped its lock: the next run
// is not refused and finishes the crawl.
func TestBinaryKilledCrawlReleasesLock(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	addr := startFakewebBinary(t, "--hosts", "3", "--pages", "40", "--seed", "6", "--seeds-out", seeds)
	data := filepath.Join(dir, "data")
	args := []string{"--proxy", "http://" + addr, "--seeds", seeds, "--data", data, "--admin", "off",
		"--delay", "50ms", "--workers", "3", "--timeout", "3s"}
	first := startCrawlBinary(t, args...)
	pid := first.cmd.Process.Pid
	waitUntil(t, first, "the crawl fetches", func() bool { return fetchReport(t, addr, "50ms").PageRequests >= 4 })
	first.cmd.Process.Kill()
	if code := first.wait(t); code != -1 {
		t.Fatalf("killed crawl: exit %d", code)
	}
	if got := lockPID(data); got != pid {
		t.Fatalf("lock file names pid %d after the kill, want the dead %d (the test needs a stale pid)", got, pid)
	}
	checkOwnFiles(t, data) // what a killed crawl leaves is godwit's too (.open files, the store's log)
	st := runBinary(t, "status", "--data", data)
	if st.code != 0 || !strings.Contains(st.stdout, "not running") || !strings.Contains(st.stdout, "did not finish") {
		t.Errorf("godwit status --data after the kill: exit %d\n%s%s", st.code, st.stdout, st.stderr)
	}
	res := runBinary(t, append([]string{"crawl"}, args...)...)
	if res.code != 0 || !strings.Contains(res.stdout, "resumed and finished") {
		t.Fatalf("crawl after kill -9: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	checkOwnFiles(t, data)
	r := fetchReport(t, addr, "50ms")
	if r.Coverage != 1 || r.GapViolations+r.ConcurrencyViolations != 0 || r.Duplicates > 3 {
		t.Errorf("after the kill and resume:\n%s", r)
	}
}

// TestBinaryForeignFilesSurviveFresh: --fresh deletes only godwit's own
// files: with anything else in the directory it refuses, lists what is
// foreign and deletes nothing; resuming there is refused too. A directory
// holding only state/diary.txt is not a crawl to resume, and is left as
// it was.
func TestBinaryForeignFilesSurviveFresh(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	addr := startFakewebBinary(t, "--hosts", "2", "--pages", "5", "--seed", "7", "--seeds-out", seeds)
	data := filepath.Join(dir, "data")
	args := []string{"crawl", "--proxy", "http://" + addr, "--seeds", seeds, "--data", data, "--admin", "off", "--delay", "10ms"}
	if res := runBinary(t, args...); res.code != 0 {
		t.Fatalf("first crawl: exit %d\n%s", res.code, res.stderr)
	}
	warcs, _ := filepath.Glob(filepath.Join(data, "warc", "*.warc.gz"))
	foreign := []string{filepath.Join(data, "warc", "notes.txt"), filepath.Join(data, "state", "diary.txt")}
	for _, f := range foreign {
		os.WriteFile(f, []byte("mine"), 0o644)
	}
	for _, extra := range [][]string{{"--fresh"}, nil} { // --fresh, then a plain resume
		res := runBinary(t, append(args, extra...)...)
		if res.code != 2 || strings.Count(res.stderr, "\n") != 1 ||
			!strings.Contains(res.stderr, "state/diary.txt, warc/notes.txt") || !strings.Contains(res.stderr, "godwit did not write") {
			t.Errorf("crawl %v with foreign files: exit %d, stderr %q; want 2 and one line listing them", extra, res.code, res.stderr)
		}
	}
	for _, f := range append(foreign, warcs...) {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("refused --fresh deleted a file: %v", err)
		}
	}
	// Without them, --fresh starts over: the old files go, the lock stays.
	for _, f := range foreign {
		os.Remove(f)
	}
	res := runBinary(t, append(args, "--fresh")...)
	if res.code != 0 || strings.Contains(res.stdout, "resumed") {
		t.Fatalf("--fresh: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, w := range warcs {
		if _, err := os.Stat(w); err == nil {
			t.Errorf("--fresh kept the old %s", filepath.Base(w))
		}
	}

	// A directory with only state/diary.txt is not a godwit crawl.
	other := filepath.Join(dir, "other")
	diary := filepath.Join(other, "state", "diary.txt")
	os.MkdirAll(filepath.Dir(diary), 0o755)
	os.WriteFile(diary, []byte("dear diary"), 0o644)
	for _, extra := range [][]string{nil, {"--fresh"}} {
		res := runBinary(t, append([]string{"crawl", "--proxy", "http://" + addr, "--seeds", seeds, "--data", other, "--admin", "off"}, extra...)...)
		want := "godwit: --data " + other + " is not a godwit data directory (it holds state/diary.txt); use an empty or new directory\n"
		if res.code != 2 || res.stderr != want {
			t.Errorf("crawl %v into a directory with only state/diary.txt: exit %d, stderr %q; want 2, %q", extra, res.code, res.stderr, want)
		}
	}
	entries, _ := os.ReadDir(other)
	state, _ := os.ReadDir(filepath.Join(other, "state"))
	if len(entries) != 1 || len(state) != 1 {
		t.Errorf("the foreign directory was changed: %v, state/ %v", entries, state)
	}
	if b, _ := os.ReadFile(diary); string(b) != "dear diary" {
		t.Errorf("diary.txt = %q", b)
	}
	if st := runBinary(t, "status", "--data", other); st.code != 2 || !strings.Contains(st.stderr, "holds no godwit crawl") {
		t.Errorf("godwit status --data on it: exit %d, %s", st.code, st.stderr)
	}
}

// TestBinaryResumeWithOnlyData: a crawl started with a proxy, a delay, a
// depth limit, a User-Agent and --allow-private, interrupted, and resumed
// with only --data finishes as it was defined: the web saw every page
// within the depth limit, nothing deeper, every request of the resumed run
// through the proxy with that User-Agent and no closer than the delay.
// A flag given on a later resume overrides the stored value and says so;
// godwit status --data shows the stored settings and the progress.
func TestBinaryResumeWithOnlyData(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	addr := startFakewebBinary(t, "--hosts", "4", "--pages", "40", "--seed", "9", "--seeds-out", seeds)
	data := filepath.Join(dir, "data")
	const ua = "resume-test/1"
	first := startCrawlBinary(t, "--proxy", "http://"+addr, "--seeds", seeds, "--data", data, "--admin", "off",
		"--delay", "150ms", "--max-depth", "2", "--workers", "4", "--timeout", "3s", "--allow-private", "--user-agent", ua)
	waitUntil(t, first, "the first run fetched a few pages", func() bool {
		return fetchReport(t, addr, "150ms").PageRequests >= 6
	})
	first.cmd.Process.Signal(syscall.SIGINT)
	if code := first.wait(t); code != 0 || !strings.Contains(first.stdout.String(), "crawl stopped") {
		t.Fatalf("interrupted run: exit %d\n%s%s", code, &first.stdout, &first.stderr)
	}
	if r := fetchReportDepth(t, addr, "150ms", 2); r.Coverage == 1 {
		t.Fatal("the first run covered everything: nothing left to resume")
	}
	resumedFrom := len(fakewebRequests(t, addr))

	res := runBinary(t, "crawl", "--data", data)
	if res.code != 0 || !strings.Contains(res.stdout, "resumed and finished") {
		t.Fatalf("resume with only --data: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	r := fetchReportDepth(t, addr, "150ms", 2)
	checkReport(t, r) // coverage 1 within depth 2, nothing deeper, no violation at 150ms
	later := fakewebRequests(t, addr)[resumedFrom:]
	if len(later) == 0 {
		t.Fatal("the resumed run sent no request")
	}
	last := map[string]time.Time{}
	minGap := time.Hour
	for _, q := range later {
		if !q.Proxy || !strings.HasPrefix(q.UserAgent, ua) {
			t.Errorf("resumed run: %s %s proxy=%v user-agent %q; want through the proxy as %q", q.Method, q.RawURL, q.Proxy, q.UserAgent, ua)
		}
		if prev, ok := last[q.Host]; ok {
			minGap = min(minGap, q.Start.Sub(prev))
		}
		last[q.Host] = q.Start
	}
	if minGap < 150*time.Millisecond || minGap >= time.Second {
		t.Errorf("resumed run: smallest gap between two requests to a host %v; want the stored 150ms delay (not the default 1s)", minGap)
	}

	// An override on resume is logged, and stored; the admin token is not.
	res = runBinary(t, "crawl", "--data", data, "--delay", "200ms", "--admin-token", "s3cr3t-t0ken")
	if res.code != 0 || !strings.Contains(res.stderr, "delay changed from 150ms to 200ms") {
		t.Errorf("resume with --delay 200ms: exit %d; want the change logged\n%s", res.code, res.stderr)
	}
	if strings.Count(res.stderr, "changed from") != 1 {
		t.Errorf("resume logged other changes than the delay's:\n%s", res.stderr)
	}
	b, err := os.ReadFile(filepath.Join(data, "state", "settings.yaml"))
	if err != nil || bytes.Contains(b, []byte("s3cr3t")) {
		t.Errorf("settings file: %v; holds the admin token: %v", err, bytes.Contains(b, []byte("s3cr3t")))
	}

	st := runBinary(t, "status", "--data", data)
	if st.code != 0 {
		t.Fatalf("godwit status --data: exit %d\n%s", st.code, st.stderr)
	}
	warcs, _ := filepath.Glob(filepath.Join(data, "warc", "*.warc.gz"))
	for _, want := range []string{"not running", "delay: 200ms", "max_depth: 2", "proxy: http://" + addr, "allow_private: true",
		"user_agent: " + ua, " 0 queued", "WARC      " + strconv.Itoa(len(warcs)) + " files"} {
		if !strings.Contains(st.stdout, want) {
			t.Errorf("godwit status --data lacks %q:\n%s", want, st.stdout)
		}
	}
	var js dirStatus
	if st := runBinary(t, "status", "--data", data, "--json"); st.code != 0 || json.Unmarshal([]byte(st.stdout), &js) != nil {
		t.Fatalf("godwit status --data --json: exit %d\n%s%s", st.code, st.stdout, st.stderr)
	}
	var size int64
	for _, w := range warcs {
		fi, _ := os.Stat(w)
		size += fi.Size()
	}
	if js.Progress == nil || js.Progress.Queued != 0 || js.Progress.Seen < int64(r.Covered) || js.WARC.Files != len(warcs) || js.WARC.Bytes != size {
		t.Errorf("godwit status --data --json = %+v, progress %+v; want 0 queued, at least %d seen, %d WARC files of %d bytes",
			js, js.Progress, r.Covered, len(warcs), size)
	}
}
