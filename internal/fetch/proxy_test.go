package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// proxyLog is a fake forward proxy: it answers every request itself and
// records what it was asked.
type proxyLog struct {
	mu       sync.Mutex
	requests []string // request-target as received
	auth     []string // Proxy-Authorization as received
}

func (p *proxyLog) handler(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.requests = append(p.requests, r.RequestURI)
	p.auth = append(p.auth, r.Header.Get("Proxy-Authorization"))
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "proxied %s", r.RequestURI)
}

func (p *proxyLog) seen() ([]string, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...), append([]string(nil), p.auth...)
}

func TestFetchViaProxy(t *testing.T) {
	const target = "http://example.test/page?q=1"
	tests := []struct {
		name string
		cfg  func(proxyURL string) Config
	}{
		{"configured proxy", func(p string) Config { return Config{Proxy: p} }},
		{"configured proxy with credentials", func(p string) Config {
			return Config{Proxy: strings.Replace(p, "http://", "http://user:s3cret@", 1)}
		}},
		{"proxy from environment", func(p string) Config {
			return Config{ProxyEnv: ProxyEnv{HTTPProxy: p, NoProxy: "other.test"}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log proxyLog
			proxy := serve(t, log.handler)
			// AllowPrivate is off: the proxy is on loopback and trusted.
			c := newTestClient(t, tt.cfg(proxy.URL))

			resp, err := c.Fetch(context.Background(), Request{URL: target})
			if err != nil {
				t.Fatalf("Fetch(%s) via proxy: %v", target, err)
			}
			if resp.Status != 200 || string(resp.Body) != "proxied "+target {
				t.Errorf("Fetch via proxy = %d %q, want 200 from the proxy", resp.Status, resp.Body)
			}
			if resp.IP != "127.0.0.1" {
				t.Errorf("IP = %q, want the proxy's 127.0.0.1", resp.IP)
			}
			if want := "GET " + target + " HTTP/1.1\r\nHost: example.test\r\n"; !strings.HasPrefix(string(resp.RawRequest), want) {
				t.Errorf("RawRequest = %q, want absolute-form %q", resp.RawRequest, want)
			}
			if strings.Contains(string(resp.RawRequest), "Proxy-Authorization") {
				t.Errorf("RawRequest = %q carries proxy credentials", resp.RawRequest)
			}

			// Literal forbidden targets are refused before the proxy is asked:
			// it would resolve and connect to them on our behalf.
			for _, bad := range []string{"http://127.0.0.1/", "http://[::1]:8080/", "http://localhost/", "http://10.0.0.1/"} {
				_, err := c.Fetch(context.Background(), Request{URL: bad})
				if !errors.Is(err, ErrForbiddenAddress) {
					t.Errorf("Fetch(%s) via proxy error = %v, want ErrForbiddenAddress", bad, err)
				}
			}

			requests, auth := log.seen()
			if len(requests) != 1 || requests[0] != target {
				t.Errorf("proxy saw %q, want exactly [%s]", requests, target)
			}
			if strings.Contains(tt.name, "credentials") && (len(auth) != 1 || !strings.HasPrefix(auth[0], "Basic ")) {
				t.Errorf("proxy saw Proxy-Authorization %q, want Basic credentials", auth)
			}
		})
	}
}

func TestProxySelection(t *testing.T) {
	const (
		hp = "http://hproxy.example:3128"
		sp = "http://sproxy.example:3129"
	)
	env := func(noProxy string) Config {
		return Config{ProxyEnv: ProxyEnv{HTTPProxy: hp, HTTPSProxy: sp, NoProxy: noProxy}}
	}
	tests := []struct {
		cfg    Config
		target string
		want   string // "" = direct
	}{
		{Config{}, "http://example.com/", ""},
		{Config{Proxy: "fixed.example:8080"}, "https://example.com/", "http://fixed.example:8080"},
		{Config{Proxy: "http://fixed.example:8080"}, "http://localhost/", "http://fixed.example:8080"},
		{env(""), "http://example.com/", hp},
		{env(""), "https://example.com/", sp},
		{Config{ProxyEnv: ProxyEnv{HTTPProxy: hp}}, "https://example.com/", ""},
		{env(""), "http://localhost:8080/", ""},
		{env(""), "http://127.0.0.2/", ""},
		{env(""), "http://[::1]/", ""},
		{env("*"), "http://example.com/", ""},
		{env("example.com"), "http://example.com/", ""},
		{env("example.com"), "http://www.example.com/", ""},
		{env("example.com"), "http://notexample.com/", hp},
		{env(".example.com"), "http://example.com/", hp},
		{env(".example.com"), "http://www.example.com/", ""},
		{env("*.example.com"), "http://www.example.com/", ""},
		{env("example.com:8080"), "http://example.com:8080/", ""},
		{env("example.com:8080"), "http://example.com/", hp},
		{env("EXAMPLE.COM"), "http://Example.Com/", ""},
		{env(" foo.test , 192.168.1.0/24 "), "http://192.168.1.77/", ""},
		{env("192.168.1.0/24"), "http://192.168.2.1/", hp},
		{env("10.0.0.1"), "http://10.0.0.1:81/", ""},
		{env("10.0.0.1:80"), "http://10.0.0.1:81/", hp},
		{env("[2001:db8::1]:443"), "https://[2001:db8::1]/", ""},
		{env("2001:db8::/32"), "https://[2001:db8::5]/", ""},
	}
	for _, tt := range tests {
		p, err := newProxies(tt.cfg)
		if err != nil {
			t.Fatalf("newProxies(%+v): %v", tt.cfg, err)
		}
		u, _ := url.Parse(tt.target)
		var got string
		if pu := p.forURL(u); pu != nil {
			got = pu.String()
		}
		if got != tt.want {
			t.Errorf("proxy for %s with %+v = %q, want %q", tt.target, tt.cfg.ProxyEnv, got, tt.want)
		}
	}
}

func TestProxyEnvFrom(t *testing.T) {
	vars := map[string]string{
		"HTTP_PROXY": "upper:1", "http_proxy": "lower:1",
		"https_proxy": "lower:2",
		"no_proxy":    "a.test",
	}
	got := ProxyEnvFrom(func(k string) string { return vars[k] })
	want := ProxyEnv{HTTPProxy: "upper:1", HTTPSProxy: "lower:2", NoProxy: "a.test"}
	if got != want {
		t.Errorf("ProxyEnvFrom = %+v, want %+v", got, want)
	}
}

// TestProxyKeepsConnections: net/http pools every http:// URL sent through
// a proxy under the proxy's key, so the per-host idle limit must not cap
// the connections kept to the proxy: rounds of concurrent fetches to
// different hosts reuse the connections of the first round. Judged from
// the proxy's side, by the connections it accepted.
func TestProxyKeepsConnections(t *testing.T) {
	const workers, rounds = 8, 3
	var (
		mu       sync.Mutex
		conns    int
		arrived  int
		release  = make(chan struct{})
		released = release
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived++
		ch := released
		mu.Unlock()
		<-ch // all of a round's requests are in flight at once
		fmt.Fprint(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := newTestClient(t, Config{Proxy: srv.URL})
	for round := range rounds {
		errs := make(chan error, workers)
		for i := range workers {
			go func() {
				resp, err := c.Fetch(context.Background(), Request{URL: fmt.Sprintf("http://h%d.example.test/%d", i, round)})
				if err == nil && resp.Status != http.StatusOK {
					err = fmt.Errorf("status %d", resp.Status)
				}
				errs <- err
			}()
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			n := arrived
			mu.Unlock()
			if n == (round+1)*workers {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %d requests arrived, want %d", round, n, (round+1)*workers)
			}
			time.Sleep(time.Millisecond)
		}
		mu.Lock()
		released = make(chan struct{})
		close(release)
		release = released
		mu.Unlock()
		for range workers {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if conns > workers {
		t.Errorf("the proxy accepted %d connections for %d rounds of %d concurrent fetches, want %d (kept alive)", conns, rounds, workers, workers)
	}
}
