package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// startDirectWeb serves web as an origin on the loopback addresses addrs
// (one listener each, on a free port): over TLS with a fresh fakeweb CA
// when the web is HTTPS, else plain HTTP. It returns the --resolve lines
// that spread the web's hosts over the addresses round-robin, and the
// CA's PEM file.
func startDirectWeb(t *testing.T, web *fakeweb.Web, addrs []string) (resolve []string, caFile string) {
	t.Helper()
	ca, err := fakeweb.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	caFile = filepath.Join(t.TempDir(), "fakeweb-ca.pem")
	if err := os.WriteFile(caFile, ca.CertPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var ports []int
	var done []chan error
	for _, a := range addrs {
		ln, err := net.Listen("tcp", net.JoinHostPort(a, "0"))
		if err != nil {
			cancel()
			t.Skipf("cannot listen on loopback address %s: %v", a, err)
		}
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
		ch := make(chan error, 1)
		go func() {
			if web.Config().HTTPS {
				ch <- web.ServeTLS(ctx, ln, ca.ServerConfig())
				return
			}
			ch <- web.Serve(ctx, ln)
		}()
		done = append(done, ch)
	}
	t.Cleanup(func() {
		cancel()
		for _, ch := range done {
			if err := <-ch; err != nil {
				t.Errorf("fakeweb.Serve: %v", err)
			}
		}
	})
	port := 80
	if web.Config().HTTPS {
		port = 443
	}
	for i, seed := range web.Seeds() {
		host := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(seed, "https://"), "http://"), "/")
		k := i % len(addrs)
		resolve = append(resolve, fmt.Sprintf("%s:%d:%s:%d", host, port, addrs[k], ports[k]))
	}
	return resolve, caFile
}

// TestCrawlDirectHTTPS crawls a web served directly (no proxy) over HTTPS
// on three loopback addresses: godwit resolves every name by --resolve,
// trusts fakeweb's CA by --ca-cert, dials through its SSRF guard
// (--allow-private) and speaks TLS itself. Judged by what the web saw.
func TestCrawlDirectHTTPS(t *testing.T) { testCrawlDirect(t, true) }

// TestCrawlDirectHTTP is the same over plain HTTP.
func TestCrawlDirectHTTP(t *testing.T) { testCrawlDirect(t, false) }

func testCrawlDirect(t *testing.T, https bool) {
	scheme := "http://"
	if https {
		scheme = "https://"
	}
	web, err := fakeweb.New(fakeweb.Config{
		Hosts:        12,
		PagesPerHost: 8,
		Seed:         5,
		HTTPS:        https,
		CrawlDelay:   100 * time.Millisecond,
		Robots: []fakeweb.RobotsKind{
			fakeweb.RobotsAllow, fakeweb.RobotsDisallow, fakeweb.RobotsCrawlDelay, fakeweb.RobotsNotFound,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	resolve, caFile := startDirectWeb(t, web, []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"})

	s := testSettings(t, "")
	s.Proxy = ""
	s.AllowPrivate = true
	s.Resolve = resolve
	s.CACert = caFile
	res := crawlInProcess(t, s, web.Seeds())
	// The IP budget's concurrency is judged; its delay, with the default
	// concurrency above 1, holds between leases, and a request whose
	// connection took longer reaches the server later (ipgroups.go):
	// TestCrawlDirectIPBudget judges the delay where it is exact.
	r := web.Report(fakeweb.Judge{Delay: s.Delay, IPConcurrency: s.IPConcurrency})
	checkReport(t, r)
	if r.Reachable < 12*4 {
		t.Errorf("only %d pages reachable: the test web is too small to mean much", r.Reachable)
	}
	for _, q := range web.Requests() {
		if q.Proxy || !strings.HasPrefix(q.RawURL, scheme) {
			t.Fatalf("fakeweb saw %s (proxy %v), want only direct %s requests", q.RawURL, q.Proxy, scheme)
		}
	}
	if res.Stats.Pages == 0 || res.Stats.RobotsFetches == 0 {
		t.Errorf("stats = %+v, want pages and robots.txt fetches", res.Stats)
	}
}

// TestCrawlDirectHTTPSUntrusted: the same web without --ca-cert is not
// trusted, so nothing but TLS handshakes reaches it: no request is served.
func TestCrawlDirectHTTPSUntrusted(t *testing.T) {
	web, err := fakeweb.New(fakeweb.Config{Hosts: 2, PagesPerHost: 2, Seed: 5, HTTPS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	resolve, _ := startDirectWeb(t, web, []string{"127.0.0.2"})
	s := testSettings(t, "")
	s.Proxy = ""
	s.AllowPrivate = true
	s.Resolve = resolve
	res := crawlInProcess(t, s, web.Seeds())
	if n := len(web.Requests()); n != 0 {
		t.Errorf("fakeweb served %d requests to a crawler that does not trust its CA", n)
	}
	if res.Stats.Pages != 0 {
		t.Errorf("stats = %+v, want no pages", res.Stats)
	}
}

func TestTransportSettings(t *testing.T) {
	s := defaultSettings()
	s.Resolve = []string{"h1.example:443:127.0.0.2:8443"}
	if o, roots, err := s.transport(); err != nil || len(o) != 1 || o[0].ToPort != 8443 || roots != nil {
		t.Errorf("transport() = %v, %v, %v", o, roots, err)
	}
	s.Resolve = []string{"h1.example"}
	if err := s.validate(); err == nil || !strings.Contains(err.Error(), "--resolve") {
		t.Errorf("validate with a bad --resolve = %v", err)
	}
	s.Resolve = nil
	bad := filepath.Join(t.TempDir(), "bad.pem")
	os.WriteFile(bad, []byte("not a certificate"), 0o644)
	s.CACert = bad
	if err := s.validate(); err == nil || !strings.Contains(err.Error(), "--ca-cert") {
		t.Errorf("validate with a non-PEM --ca-cert = %v", err)
	}
}

func TestTransportConfigKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "godwit.yaml")
	if err := os.WriteFile(path, []byte("resolve: [\"h1.example:127.0.0.2\", \"h2.example:80:127.0.0.3:8080\"]\nca_cert: /etc/extra.pem\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := defaultSettings()
	if err := loadConfigFile(path, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Resolve) != 2 || s.Resolve[1] != "h2.example:80:127.0.0.3:8080" || s.CACert != "/etc/extra.pem" {
		t.Errorf("config file gave resolve %q, ca_cert %q", s.Resolve, s.CACert)
	}
}

// TestCrawlDirectIPBudget crawls 18 hosts served directly on three
// loopback addresses, six per address, with an IP budget of one request
// at a time and 30ms between starts per address: fakeweb sees no request
// to an address overlap another or start too soon after it, and every
// host's own rules kept. Without the frontier's IP gating the six hosts
// of an address overlap at once (16 workers, each response 5ms late).
func TestCrawlDirectIPBudget(t *testing.T) { testCrawlDirectIPBudget(t, false) }

// TestCrawlDirectIPBudgetHTTPS is the same over HTTPS, where a new
// connection's TLS handshake delays a request after its lease.
func TestCrawlDirectIPBudgetHTTPS(t *testing.T) { testCrawlDirectIPBudget(t, true) }

func testCrawlDirectIPBudget(t *testing.T, https bool) {
	web, err := fakeweb.New(fakeweb.Config{Hosts: 18, PagesPerHost: 4, Seed: 7, Latency: 5 * time.Millisecond, HTTPS: https})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	addrs := []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"}
	resolve, caFile := startDirectWeb(t, web, addrs)
	s := testSettings(t, "")
	s.Proxy = ""
	s.AllowPrivate = true
	s.Resolve = resolve
	s.CACert = caFile
	s.IPConcurrency = 1
	s.IPDelay = 30 * time.Millisecond
	crawlInProcess(t, s, web.Seeds())
	r := web.Report(fakeweb.Judge{Delay: s.Delay, IPConcurrency: 1, IPDelay: s.IPDelay})
	checkReport(t, r)
	for _, a := range addrs {
		if r.IPPeak[a] != 1 {
			t.Errorf("address %s: %d requests in flight at once, want 1 (peaks %v)", a, r.IPPeak[a], r.IPPeak)
		}
	}
	t.Logf("IP min gaps %v; %d requests", r.IPMinGap, r.Requests)
}

// TestHostsShowIPGroup: `godwit hosts` and `hosts show` print a host's IP
// group and that it waits for its IP; the API carries both.
func TestHostsShowIPGroup(t *testing.T) {
	now := time.Now()
	info := crawl.HostInfo{Name: "h1.example", Queued: 3, NextReady: now.Add(time.Second),
		Waiting: politeness.ReasonIP, IPGroup: "192.0.2.7"}
	h := (&backend{now: time.Now}).host(info, 0)
	if h.IPGroup != "192.0.2.7" || h.Waiting != "ip" {
		t.Fatalf("API host = %+v, want IP group 192.0.2.7 waiting for ip", h)
	}
	var show, list strings.Builder
	printHost(&show, h, now)
	if !strings.Contains(show.String(), "IP group") || !strings.Contains(show.String(), "192.0.2.7") ||
		!strings.Contains(show.String(), "(ip)") {
		t.Errorf("hosts show:\n%s\nwant its IP group and the wait for it", show.String())
	}
	printHosts(&list, []admin.Host{h}, now)
	lines := strings.Split(strings.TrimSpace(list.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "IP") || !strings.Contains(lines[1], "192.0.2.7") || !strings.Contains(lines[1], " ip ") {
		t.Errorf("hosts:\n%s\nwant an IP column with 192.0.2.7 and the wait", list.String())
	}
}

// TestIPBudgetSettings: the IP budget comes from its flags and config
// keys, defaults to 4 and 250ms, and refuses negative values.
func TestIPBudgetSettings(t *testing.T) {
	d := defaultSettings()
	if d.IPConcurrency != 4 || d.IPDelay != 250*time.Millisecond {
		t.Errorf("defaults %d, %v; want 4, 250ms", d.IPConcurrency, d.IPDelay)
	}
	cfg := filepath.Join(t.TempDir(), "godwit.yaml")
	os.WriteFile(cfg, []byte("ip_concurrency: 2\nip_delay: 1s\n"), 0o644)
	var f crawlFlags
	fs := pflag.NewFlagSet("crawl", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse([]string{"--config", cfg, "--ip-delay", "300ms"}); err != nil {
		t.Fatal(err)
	}
	s, err := f.settings(fs, nil)
	if err != nil || s.IPConcurrency != 2 || s.IPDelay != 300*time.Millisecond {
		t.Errorf("settings = %d, %v, %v; want 2 from the file and 300ms from the flag", s.IPConcurrency, s.IPDelay, err)
	}
	for _, bad := range []func(*crawlSettings){
		func(s *crawlSettings) { s.IPConcurrency = -1 },
		func(s *crawlSettings) { s.IPDelay = -time.Second },
	} {
		s := defaultSettings()
		bad(&s)
		if err := s.validate(); err == nil || !strings.Contains(err.Error(), "--ip-") {
			t.Errorf("validate(%d, %v) = %v, want an --ip- error", s.IPConcurrency, s.IPDelay, err)
		}
	}
}
