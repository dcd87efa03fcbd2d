package main

import (
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/datadir"
)

// TestBinaryNothingFetchable: a crawl none of whose seeds can be fetched
// ends promptly (not after minutes of robots.txt retries) with exit
// status 3 and one line saying why; the loopback case names
// --allow-private, and the loopback server sees no request; when no
// server answered at all, the line points to "godwit demo". Such a first
// run keeps nothing in --data, so the same command again is as prompt
// and says the same.
func TestBinaryNothingFetchable(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedURL := "http://" + closed.Addr().String() + "/"
	closed.Close() // nothing listens there now: connection refused

	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"loopback without --allow-private", []string{srv.URL + "/"},
			[]string{"address refused by the SSRF guard", "use --allow-private to crawl private or loopback addresses"}},
		{"no such host", []string{"http://godwit-test.invalid/"}, []string{"no such host", offlineHint}},
		{"connection refused", []string{"--allow-private", refusedURL}, []string{"connection refused", offlineHint}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			for run := 1; run <= 2; run++ {
				nothingFetchable(t, data, tt.args, tt.want)
				if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("run %d left --data behind (%v)", run, err)
				}
			}
			if tt.name == "loopback without --allow-private" {
				return
			}
			// A --data directory that was there stays, holding nothing.
			if err := os.Mkdir(data, 0o755); err != nil {
				t.Fatal(err)
			}
			nothingFetchable(t, data, tt.args, tt.want)
			if c, err := datadir.Inspect(data); err != nil || len(c.Owned)+len(c.Foreign) != 0 {
				t.Errorf("the existing --data holds %+v (%v), want nothing", c, err)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server saw %d requests", n)
	}
}

// offlineHint is the pointer of a crawl no server answered.
const offlineHint = `no network? "godwit demo" crawls a simulated web on this machine (README: "Try it offline")`

// nothingFetchable runs a crawl of seeds in data that can fetch nothing,
// and checks it ends promptly with exit status 3 and one line saying
// why, with each of want.
func nothingFetchable(t *testing.T, data string, args, want []string) {
	t.Helper()
	start := time.Now()
	res := runBinary(t, append([]string{"crawl", "--admin", "off", "--data", data}, args...)...)
	took := time.Since(start)
	if res.code != 3 {
		t.Errorf("exit status %d, want 3\nstderr:\n%s", res.code, res.stderr)
	}
	if took > 20*time.Second {
		t.Errorf("took %v: a crawl that can fetch nothing must give up in seconds", took)
	}
	var lines []string
	for _, l := range strings.Split(res.stderr, "\n") {
		if strings.HasPrefix(l, "godwit: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "nothing fetched") {
		t.Fatalf("want one line \"godwit: nothing fetched…\" on stderr, got:\n%s", res.stderr)
	}
	for _, w := range append(want, "nothing was kept in "+data) {
		if !strings.Contains(lines[0], w) {
			t.Errorf("reason %q lacks %q", lines[0], w)
		}
	}
	if !strings.Contains(res.stdout, "godwit: crawl finished") {
		t.Errorf("no summary on stdout:\n%s", res.stdout)
	}
}

// TestBinaryExitZeroWhenSomeSeedFetched: one seed that cannot be fetched
// among good ones is not a failed crawl.
func TestBinaryExitZeroWhenSomeSeedFetched(t *testing.T) {
	dir := t.TempDir()
	addr := startFakewebBinary(t, "--hosts", "1", "--pages", "3")
	res := runBinary(t, "crawl", "--admin", "off", "--proxy", "http://"+addr, "--delay", "10ms",
		"--data", filepath.Join(dir, "data"), "--config", writeConfig(t, dir, "robots:\n  retries: 1\n"),
		"http://h0.fake.test/", "http://nohost.fake.test/")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
}

// TestBinaryExitReasons: a crawl whose only seed was answered, but with
// an HTTP error, or whose host's robots.txt stays unreachable (5xx) until
// its retries are spent, fetched nothing: exit status 3 and one line
// naming the reason. The server's log says what the crawler asked.
func TestBinaryExitReasons(t *testing.T) {
	tests := []struct {
		name        string
		robots      int // status of /robots.txt
		seed        int // status of the seed
		want        string
		wantSeedGet bool
	}{
		{"seed answers 404", http.StatusNotFound, http.StatusNotFound, "HTTP status 404", true},
		{"seed answers 410", http.StatusOK, http.StatusGone, "HTTP status 410", true},
		{"robots.txt answers 503", http.StatusServiceUnavailable, http.StatusOK, "robots.txt unreachable (HTTP status 503)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var robotsGets, seedGets atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/robots.txt":
					robotsGets.Add(1)
					w.WriteHeader(tt.robots)
					if tt.robots == http.StatusOK {
						w.Write([]byte("User-agent: *\nAllow: /\n"))
					}
				case "/seed":
					seedGets.Add(1)
					w.WriteHeader(tt.seed)
				default:
					t.Errorf("unexpected request for %s", r.URL)
				}
			}))
			defer srv.Close()
			dir := t.TempDir()
			cfg := writeConfig(t, dir, "robots:\n  retries: 1\n  backoff: 100ms\n  backoff_max: 100ms\nadapt:\n  retries: 0\n")
			res := runBinary(t, "crawl", "--admin", "off", "--allow-private", "--delay", "10ms", "--config", cfg,
				"--data", filepath.Join(dir, "data"), srv.URL+"/seed")
			if res.code != 3 {
				t.Errorf("exit status %d, want 3\nstderr:\n%s", res.code, res.stderr)
			}
			var lines []string
			for _, l := range strings.Split(res.stderr, "\n") {
				if strings.HasPrefix(l, "godwit: ") {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || !strings.Contains(lines[0], "nothing fetched: every seed failed") || !strings.Contains(lines[0], tt.want) {
				t.Errorf("want one line \"godwit: nothing fetched: every seed failed: … %s\" on stderr, got:\n%s", tt.want, res.stderr)
			}
			if robotsGets.Load() == 0 {
				t.Error("robots.txt was never asked for")
			}
			if got := seedGets.Load() > 0; got != tt.wantSeedGet {
				t.Errorf("seed fetched: %v (%d requests), want %v", got, seedGets.Load(), tt.wantSeedGet)
			}
		})
	}
}
