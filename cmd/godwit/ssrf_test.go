package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fetch"
)

// fakeDNS resolves the names of the test to fixed addresses.
type fakeDNS map[string][]netip.Addr

func (d fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := d[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestSSRFGuardInCrawl: without --allow-private, a crawl refuses seeds and
// redirect targets that are, or resolve to, loopback, private and
// link-local addresses, without a single connection to them, and says why
// in a classified error. A public-looking site (reached through a proxy,
// which is trusted) redirects to each of them.
func TestSSRFGuardInCrawl(t *testing.T) {
	var hits atomic.Int64
	victim := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "secret")
	}))
	defer victim.Close()
	port := victim.Listener.Addr().(*net.TCPAddr).Port

	forbidden := []string{
		fmt.Sprintf("http://127.0.0.1:%d/", port),
		"http://10.1.2.3/",
		"http://169.254.169.254/latest/meta-data/",
		fmt.Sprintf("http://[::1]:%d/", port),
		fmt.Sprintf("http://evil.test:%d/", port),   // resolves to 127.0.0.1
		fmt.Sprintf("http://rebind.test:%d/", port), // a public and a private address
		"http://metadata.test/",                     // resolves to 169.254.169.254
		"http://private.test/",                      // resolves to 10.0.0.7
	}
	dns := fakeDNS{
		"evil.test":     {netip.MustParseAddr("127.0.0.1")},
		"rebind.test":   {netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("127.0.0.1")},
		"metadata.test": {netip.MustParseAddr("169.254.169.254")},
		"private.test":  {netip.MustParseAddr("10.0.0.7")},
	}

	// The site that redirects: served by a trusted forward proxy.
	var links strings.Builder
	for i := range forbidden {
		fmt.Fprintf(&links, `<a href="/r/%d">r</a>`, i)
	}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Host != "start.test" {
			http.Error(w, "this proxy serves start.test only", http.StatusBadGateway)
			return
		}
		switch p := r.URL.Path; {
		case p == "/robots.txt":
			http.NotFound(w, r)
		case p == "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, links.String())
		case strings.HasPrefix(p, "/r/"):
			var i int
			fmt.Sscanf(p, "/r/%d", &i)
			http.Redirect(w, r, forbidden[i], http.StatusFound)
		}
	}))
	defer proxy.Close()

	s := defaultSettings()
	s.Admin = "off"
	s.Data = t.TempDir()
	s.Delay = 10 * time.Millisecond
	s.Scope = "any"
	s.Timeout = 3 * time.Second
	s.resolver = dns
	// start.test through the proxy; every other name is dialed directly,
	// through the resolver and the guard.
	noProxy := []string{"evil.test", "rebind.test", "metadata.test", "private.test", "127.0.0.1", "10.1.2.3", "169.254.169.254", "[::1]"}
	s.proxyEnv = fetch.ProxyEnv{HTTPProxy: proxy.URL, NoProxy: strings.Join(noProxy, ",")}

	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	seeds := append([]string{"http://start.test/"}, forbidden...)
	res, err := runCrawl(t.Context(), s, seeds, log, newTerminal(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server saw %d requests", n)
	}
	// Every forbidden host is refused once (at its robots.txt, the first
	// request to any host), as a policy error naming the address.
	for _, raw := range forbidden {
		u, _ := url.Parse(raw)
		if !strings.Contains(logs.String(), "host="+u.Hostname()) && !strings.Contains(logs.String(), "host="+u.Host) {
			t.Errorf("no log line for refused host %s", u.Host)
		}
	}
	for _, want := range []string{
		"forbidden address 127.0.0.1", "forbidden address 10.1.2.3", "forbidden address 169.254.169.254", "forbidden address ::1",
		"evil.test resolves to 127.0.0.1", "rebind.test resolves to 127.0.0.1",
		"metadata.test resolves to 169.254.169.254", "private.test resolves to 10.0.0.7",
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if res.Stats.Policy < int64(len(forbidden)) {
		t.Errorf("Stats.Policy = %d, want at least %d refusals", res.Stats.Policy, len(forbidden))
	}
	if t.Failed() {
		t.Logf("log:\n%s", logs.String())
	}
}
