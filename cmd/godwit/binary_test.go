package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// builds are the programs the tests build, each once per test process,
// in a directory TestMain removes at the end.
var builds = &built{}

type built struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*builtBinary // by name
}

type builtBinary struct {
	once sync.Once
	path string
	err  error
}

// binary builds pkg (go build, run in srcDir) as name the first time it
// is asked for, and returns its path, or why it could not be built.
func (b *built) binary(name, srcDir, pkg string) (string, error) {
	b.mu.Lock()
	if b.bins == nil {
		b.bins = map[string]*builtBinary{}
	}
	bin := b.bins[name]
	if bin == nil {
		bin = &builtBinary{}
		b.bins[name] = bin
	}
	b.mu.Unlock()
	bin.once.Do(func() {
		b.mu.Lock()
		if b.dir == "" {
			b.dir, bin.err = os.MkdirTemp("", "godwit-bin-")
		}
		dir := b.dir
		b.mu.Unlock()
		if bin.err != nil {
			return
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			bin.err = err
			return
		}
		path := filepath.Join(dir, name)
		build := exec.Command(goTool, "build", "-o", path, pkg)
		build.Dir = srcDir
		if out, err := build.CombinedOutput(); err != nil {
			bin.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
			return
		}
		bin.path = path
	})
	return bin.path, bin.err
}

// remove deletes what was built.
func (b *built) remove() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// godwitBinary builds the godwit binary once per test process.
func godwitBinary(t *testing.T) string {
	t.Helper()
	path, err := builds.binary("godwit", ".", ".")
	if err != nil {
		t.Fatal(err)
	}
	return path
}

type cmdResult struct {
	code           int
	stdout, stderr string
}

func runBinary(t *testing.T, args ...string) cmdResult {
	t.Helper()
	cmd := exec.Command(godwitBinary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "HTTP_PROXY=", "http_proxy=")
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cmdResult{code, stdout.String(), stderr.String()}
}

// startFakewebBinary runs `godwit fakeweb` and returns its address.
func startFakewebBinary(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(godwitBinary(t), append([]string{"fakeweb", "--listen", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err != nil {
			t.Errorf("godwit fakeweb exited with %v", err)
		}
	})
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		t.Fatal("godwit fakeweb printed nothing")
	}
	line := sc.Text()
	addr, ok := strings.CutPrefix(line, "fakeweb listening on http://")
	if !ok {
		t.Fatalf("unexpected first line %q", line)
	}
	go func() { // drain the rest so the process never blocks on its stdout
		for sc.Scan() {
		}
	}()
	return addr
}

// TestBinaryCrawlsFakewebViaProxy runs the two commands as a user would.
func TestBinaryCrawlsFakewebViaProxy(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	addr := startFakewebBinary(t, "--hosts", "8", "--pages", "15", "--seed", "4",
		"--robots", "allow,disallow,crawl-delay,not-found,server-error", "--crawl-delay", "100ms",
		"--seeds-out", seeds)
	res := runBinary(t, "crawl", "--proxy", "http://"+addr, "--seeds", seeds,
		"--delay", "20ms", "--data", filepath.Join(dir, "data"), "--timeout", "2s", "--config", writeConfig(t, dir,
			"robots:\n  retries: 2\n  backoff: 100ms\n"))
	if res.code != 0 {
		t.Fatalf("godwit crawl exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "godwit: crawl finished") || !strings.Contains(res.stdout, "warc ") {
		t.Errorf("summary missing from stdout:\n%s", res.stdout)
	}
	checkReport(t, fetchReport(t, addr, "20ms"))
	warcs, _ := filepath.Glob(filepath.Join(dir, "data", "warc", "*.warc.gz"))
	if len(warcs) == 0 {
		t.Error("no WARC file written")
	}
}

// fetchReport asks a fakeweb process for its judgment.
func fetchReport(t *testing.T, addr, delay string) fakeweb.Report {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/_fakeweb/report?delay=" + delay)
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

func writeConfig(t *testing.T, dir, yaml string) string {
	t.Helper()
	p := filepath.Join(dir, fmt.Sprintf("config-%d.yaml", time.Now().UnixNano()))
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBinaryBadInput: each kind of bad input gets one clear line naming the
// problem and exit status 2, never a stack trace.
func TestBinaryBadInput(t *testing.T) {
	dir := t.TempDir()
	badSeeds := filepath.Join(dir, "bad-seeds.txt")
	os.WriteFile(badSeeds, []byte("# seeds\nhttp://ok.example/\nht!tp://bad\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad seed URL", []string{"crawl", "::not a url"}, "bad seed URL"},
		{"not http", []string{"crawl", "ftp://example.com/"}, "bad seed URL"},
		{"missing seeds file", []string{"crawl", "--seeds", filepath.Join(dir, "nope.txt")}, "nope.txt"},
		{"bad seed line", []string{"crawl", "--seeds", badSeeds}, "bad-seeds.txt:3"},
		{"bad duration", []string{"crawl", "--delay", "soon", "http://example.com/"}, "--delay"},
		{"negative workers", []string{"crawl", "--workers", "0", "http://example.com/"}, "--workers"},
		{"bad scope", []string{"crawl", "--scope", "planet", "http://example.com/"}, "--scope"},
		{"bad contact", []string{"crawl", "--contact", "nobody", "http://example.com/"}, "--contact"},
		{"unknown config key", []string{"crawl", "--config", writeConfig(t, dir, "delay: 1s\nspeed: fast\n"), "http://example.com/"}, "speed"},
		{"no seeds", []string{"crawl"}, "no seeds"},
		{"unknown flag", []string{"crawl", "--turbo"}, "turbo"},
		{"unknown command", []string{"fly"}, "fly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runBinary(t, append(tt.args, "--data", filepath.Join(dir, "data"))...)
			if res.code != 2 {
				t.Errorf("exit status %d, want 2\nstderr: %s", res.code, res.stderr)
			}
			lines := strings.Split(strings.TrimSpace(res.stderr), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tt.want) {
				t.Errorf("stderr = %q, want one line mentioning %q", res.stderr, tt.want)
			}
			if strings.Contains(res.stderr, "goroutine ") {
				t.Errorf("stack trace on bad input:\n%s", res.stderr)
			}
		})
	}
}

// TestBinarySkipBadSeeds: with --skip-bad-seeds a malformed line is
// reported with its line number and the other seeds are crawled.
func TestBinarySkipBadSeeds(t *testing.T) {
	dir := t.TempDir()
	addr := startFakewebBinary(t, "--hosts", "1", "--pages", "3")
	seeds := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seeds, []byte("http://h0.fake.test/\n\nht!tp://bad   # a typo\n"), 0o644)
	res := runBinary(t, "crawl", "--proxy", "http://"+addr, "--seeds", seeds, "--skip-bad-seeds",
		"--delay", "10ms", "--data", filepath.Join(dir, "data"))
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "seeds.txt:3") {
		t.Errorf("stderr does not name the bad line:\n%s", res.stderr)
	}
	if r := fetchReport(t, addr, "10ms"); r.Coverage != 1 || !r.OK() {
		t.Errorf("the good seed's site was not crawled politely and fully:\n%s", r)
	}
}

// TestBinaryInterrupt: SIGINT during a crawl exits 0 with a summary.
func TestBinaryInterrupt(t *testing.T) {
	dir := t.TempDir()
	addr := startFakewebBinary(t, "--hosts", "2", "--pages", "500", "--seeds-out", filepath.Join(dir, "seeds.txt"))
	cmd := exec.Command(godwitBinary(t), "crawl", "--proxy", "http://"+addr, "--seeds", filepath.Join(dir, "seeds.txt"),
		"--delay", "50ms", "--data", filepath.Join(dir, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() // if the wait fails the test
	// Interrupted once it is crawling.
	waitUntil(t, nil, "the crawl fetches", func() bool { return fetchReport(t, addr, "50ms").PageRequests >= 5 })
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if err != nil {
		t.Fatalf("exit after SIGINT: %v\nstderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "godwit: crawl stopped") {
		t.Errorf("no summary after SIGINT:\n%s", stdout.String())
	}
}

func TestBinaryDemo(t *testing.T) {
	res := runBinary(t, "demo", "--hosts", "8", "--pages", "15", "--delay", "20ms")
	if res.code != 0 {
		t.Fatalf("godwit demo exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{"godwit: crawl finished", "judged the crawl from the server side: polite", "coverage    1.000"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, res.stdout)
		}
	}
}

func TestBinaryVersion(t *testing.T) {
	if res := runBinary(t, "version"); res.code != 0 || !strings.HasPrefix(res.stdout, "godwit ") {
		t.Errorf("godwit version = %d %q", res.code, res.stdout)
	}
}
