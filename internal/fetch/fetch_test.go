package fetch

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"minimal", Config{UserAgent: "a"}, true},
		{"no user agent", Config{}, false},
		{"user agent with newline", Config{UserAgent: "a\r\nX-Evil: 1"}, false},
		{"negative timeout", Config{UserAgent: "a", Timeout: -time.Second}, false},
		{"negative body cap", Config{UserAgent: "a", MaxBodyBytes: -1}, false},
		{"proxy", Config{UserAgent: "a", Proxy: "http://proxy.example:3128"}, true},
		{"proxy without scheme", Config{UserAgent: "a", Proxy: "proxy.example:3128"}, true},
		{"socks proxy", Config{UserAgent: "a", Proxy: "socks5h://proxy.example:1080"}, true},
		{"proxy bad scheme", Config{UserAgent: "a", Proxy: "ftp://proxy.example"}, false},
		{"proxy unparseable", Config{UserAgent: "a", Proxy: "http://[::1"}, false},
		{"proxy bad port", Config{UserAgent: "a", Proxy: "http://proxy.example:port"}, false},
		{"env proxy unparseable", Config{UserAgent: "a", ProxyEnv: ProxyEnv{HTTPSProxy: "http://[::1"}}, false},
		{"env no_proxy anything goes", Config{UserAgent: "a", ProxyEnv: ProxyEnv{NoProxy: "*, ::1, [x"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if (err == nil) != tt.ok {
				t.Errorf("Validate(%+v) = %v, want ok=%v", tt.cfg, err, tt.ok)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "fetch: ") {
				t.Errorf("Validate error %q lacks the fetch: prefix", err)
			}
			if err != nil && strings.Contains(tt.cfg.Proxy, "[") && strings.Contains(err.Error(), tt.cfg.Proxy) {
				t.Errorf("Validate error %q quotes the proxy URL", err)
			}
		})
	}
}

func TestConfigDefault(t *testing.T) {
	var c Config
	c.Default()
	want := Config{
		Timeout: 30 * time.Second, DialTimeout: 10 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: 20 * time.Second,
		MaxBodyBytes: 10 << 20, MaxDecodedBytes: 20 << 20, MaxIdleConnsPerHost: 2,
		DNSCacheTTL: 5 * time.Minute, DNSMinTTL: 30 * time.Second, DNSMaxTTL: time.Hour,
		DNSNegativeTTL: time.Minute, DNSCacheSize: 100_000,
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Default() = %+v, want %+v", c, want)
	}
	c = Config{MaxBodyBytes: 1000, Timeout: time.Second}
	c.Default()
	if c.MaxDecodedBytes != 2000 || c.Timeout != time.Second {
		t.Errorf("Default() kept/derived %+v, want MaxDecodedBytes 2000 and Timeout 1s", c)
	}
}

func TestNewRejectsInvalid(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Error("New(Config{}) = nil error, want missing user agent")
	}
}

func TestFetch(t *testing.T) {
	page := strings.Repeat("<p>hello</p>", 100)
	var mu sync.Mutex
	var seen *http.Request
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("X-Multi", "one")
		w.Header().Add("X-Multi", "two")
		w.Header().Set("Content-Length", fmt.Sprint(len(page)))
		fmt.Fprint(w, page)
	})
	c := newTestClient(t, Config{AllowPrivate: true})

	before := time.Now()
	resp, err := c.Fetch(context.Background(), Request{
		URL: srv.URL + "/path/a%20b?q=1&r=2",
		Header: http.Header{
			"If-None-Match": {`"v1"`},
			"cookie":        {"session=secret"},
			"Accept":        {"text/plain"},
		},
	})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if resp.Status != 200 || resp.Proto != "HTTP/1.1" || string(resp.Body) != page || resp.Truncated != "" {
		t.Errorf("Fetch = %d %s, %d bytes, truncated %q; want 200 HTTP/1.1, %d bytes, not truncated",
			resp.Status, resp.Proto, len(resp.Body), resp.Truncated, len(page))
	}
	if resp.IP != "127.0.0.1" {
		t.Errorf("IP = %q, want 127.0.0.1", resp.IP)
	}
	if resp.Start.Before(before) || resp.End.Before(resp.Start) {
		t.Errorf("Start, End = %v, %v; want before ≤ Start ≤ End", resp.Start, resp.End)
	}
	if !resp.IsHTML() {
		t.Errorf("IsHTML() = false for %q", resp.Header.Get("Content-Type"))
	}

	// What the server saw.
	mu.Lock()
	defer mu.Unlock()
	for k, want := range map[string]string{
		"User-Agent":      testAgent,
		"Accept":          "text/plain",
		"Accept-Encoding": "gzip, deflate, br, zstd",
		"If-None-Match":   `"v1"`,
		"Cookie":          "",
	} {
		if got := seen.Header.Get(k); got != want {
			t.Errorf("server saw %s: %q, want %q", k, got, want)
		}
	}

	// RawRequest is what was sent, line by line.
	raw := string(resp.RawRequest)
	wantStart := "GET /path/a%20b?q=1&r=2 HTTP/1.1\r\n"
	if !strings.HasPrefix(raw, wantStart) {
		t.Errorf("RawRequest starts %q, want %q", firstLine(raw), wantStart)
	}
	if !strings.HasSuffix(raw, "\r\n\r\n") || strings.Count(raw, "\r\n\r\n") != 1 {
		t.Errorf("RawRequest = %q, want one header block ending in CRLF CRLF", raw)
	}
	lines := strings.Split(strings.TrimSuffix(raw, "\r\n\r\n"), "\r\n")[1:]
	if lines[0] != "Host: "+seen.Host || lines[1] != "User-Agent: "+testAgent {
		t.Errorf("RawRequest header starts %q, want Host then User-Agent (net/http's order)", lines[:2])
	}
	for _, line := range lines {
		k, v, _ := strings.Cut(line, ": ")
		if k == "Host" {
			continue
		}
		if !contains(seen.Header.Values(k), v) {
			t.Errorf("RawRequest line %q: server saw %s = %q", line, k, seen.Header.Values(k))
		}
	}
	if len(lines)-1 != len(seen.Header) {
		t.Errorf("RawRequest has %d fields besides Host, server saw %d: %q vs %v", len(lines)-1, len(seen.Header), lines, seen.Header)
	}

	// RawHeader is the response header as received.
	if resp.Reserialized {
		t.Error("Reserialized = true for a plain http exchange")
	}
	checkWire(t, resp)
	rh := string(resp.RawHeader)
	for _, want := range []string{"HTTP/1.1 200 OK\r\n", "Content-Type: text/html; charset=utf-8\r\n",
		"X-Multi: one\r\nX-Multi: two\r\n", fmt.Sprintf("Content-Length: %d\r\n", len(page))} {
		if !strings.Contains(rh, want) {
			t.Errorf("RawHeader = %q, want it to contain %q", rh, want)
		}
	}
	if !strings.HasPrefix(rh, "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(rh, "\r\n\r\n") {
		t.Errorf("RawHeader = %q, want status line first and CRLF CRLF last", rh)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\r\n")
	return line
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestFetchChunked(t *testing.T) {
	parts := []string{"<html>", strings.Repeat("x", 5000), "</html>"}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for _, p := range parts {
			fmt.Fprint(w, p)
			w.(http.Flusher).Flush() // no Content-Length: chunked
		}
	})
	c := newTestClient(t, Config{AllowPrivate: true})
	resp, err := c.Fetch(context.Background(), Request{URL: srv.URL})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if got, want := string(resp.Body), strings.Join(parts, ""); got != want {
		t.Errorf("Body = %d bytes, want the %d de-chunked bytes", len(got), len(want))
	}
	// The exact capture keeps the framing: RawHeader says chunked and
	// RawBody holds the chunks.
	rh := string(resp.RawHeader)
	if !strings.HasPrefix(rh, "HTTP/1.1 200 OK\r\n") || !strings.Contains(rh, "Transfer-Encoding: chunked\r\n") {
		t.Errorf("RawHeader = %q, want status line HTTP/1.1 200 OK and Transfer-Encoding: chunked", rh)
	}
	if resp.Reserialized || !bytes.HasSuffix(resp.RawBody, []byte("0\r\n\r\n")) {
		t.Errorf("Reserialized %v, RawBody ends %q; want the exact chunked body", resp.Reserialized, resp.RawBody[max(0, len(resp.RawBody)-10):])
	}
	checkWire(t, resp)
}

func TestFetchRawHeaderConnectionClose(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		fmt.Fprint(w, "bye")
	})
	c := newTestClient(t, Config{AllowPrivate: true})
	resp, err := c.Fetch(context.Background(), Request{URL: srv.URL})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if !bytes.Contains(resp.RawHeader, []byte("Connection: close\r\n")) {
		t.Errorf("RawHeader = %q, want Connection: close restored", resp.RawHeader)
	}
}

func TestFetchBodyCap(t *testing.T) {
	const limit = 10 << 10
	body := bytes.Repeat([]byte("0123456789abcdef"), 100<<10/16)
	tests := []struct {
		name          string
		size          int
		contentLength bool
		want          string
	}{
		{"over, with length", 100 << 10, true, TruncatedLength},
		{"over, chunked", 100 << 10, false, TruncatedLength},
		{"exactly the cap", limit, true, ""},
		{"exactly the cap, chunked", limit, false, ""},
		{"one over", limit + 1, true, TruncatedLength},
		{"under", limit - 1, false, ""},
		{"empty", 0, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.contentLength {
					w.Header().Set("Content-Length", fmt.Sprint(tt.size))
				}
				w.Write(body[:tt.size])
			})
			c := newTestClient(t, Config{AllowPrivate: true, MaxBodyBytes: limit})
			resp, err := c.Fetch(context.Background(), Request{URL: srv.URL})
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			wantLen := min(tt.size, limit)
			if resp.Truncated != tt.want || !bytes.Equal(resp.Body, body[:wantLen]) {
				t.Errorf("Fetch of %d bytes, cap %d = %d bytes, Truncated %q; want the first %d, Truncated %q",
					tt.size, limit, len(resp.Body), resp.Truncated, wantLen, tt.want)
			}
		})
	}
}

func TestFetchSlowDrip(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>")
		w.(http.Flusher).Flush()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				fmt.Fprint(w, "x")
				w.(http.Flusher).Flush()
			}
		}
	})
	c := newTestClient(t, Config{AllowPrivate: true, Timeout: 300 * time.Millisecond})
	resp, err := c.Fetch(context.Background(), Request{URL: srv.URL})
	if err != nil {
		t.Fatalf("Fetch of a slow drip = %v, want the body cut at the deadline", err)
	}
	if resp.Truncated != TruncatedTime || !bytes.HasPrefix(resp.Body, []byte("<html>")) {
		t.Errorf("Fetch of a slow drip = %q, Truncated %q; want the bytes so far, Truncated %q",
			resp.Body, resp.Truncated, TruncatedTime)
	}
}

func TestFetchCallerCancelDuringBody(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html>")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := newTestClient(t, Config{AllowPrivate: true})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	resp, err := c.Fetch(ctx, Request{URL: srv.URL})
	if err == nil {
		t.Fatalf("Fetch cancelled by the caller = %+v, want an error (only our own Timeout yields Truncated)", resp)
	}
	if Classify(err) != Transient {
		t.Errorf("Classify(%v) = %v, want transient", err, Classify(err))
	}
}

func TestFetchHang(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	})
	c := newTestClient(t, Config{AllowPrivate: true, Timeout: 300 * time.Millisecond})
	resp, err := c.Fetch(context.Background(), Request{URL: srv.URL})
	if err == nil {
		t.Fatalf("Fetch of a hanging server = %+v, want a timeout error", resp)
	}
	if Classify(err) != Transient {
		t.Errorf("Classify(%v) = %v, want transient", err, Classify(err))
	}
	if !strings.HasPrefix(err.Error(), "fetch: get ") || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("error = %q, want fetch: get … timeout …", err)
	}
}

func TestFetchRedirectNotFollowed(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, "/new?x=1", http.StatusMovedPermanently)
	})
	c := newTestClient(t, Config{AllowPrivate: true})
	resp, err := c.Fetch(context.Background(), Request{URL: srv.URL + "/old"})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if resp.Status != 301 || hits.Load() != 1 {
		t.Errorf("Fetch = %d after %d requests, want 301 after 1", resp.Status, hits.Load())
	}
	loc, ok := resp.Location()
	if want := srv.URL + "/new?x=1"; loc != want || !ok {
		t.Errorf("Location() = %q, %v; want %q, true", loc, ok, want)
	}
}

func TestFetchServerErrorIsResponse(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	c := newTestClient(t, Config{AllowPrivate: true})
	resp, err := c.Fetch(context.Background(), Request{URL: srv.URL})
	if err != nil || resp.Status != 503 {
		t.Fatalf("Fetch = %v, %v; want a 503 Response", resp, err)
	}
}

func TestFetchEncodedBody(t *testing.T) {
	page := []byte("<!doctype html><title>t</title>" + strings.Repeat("<p>godwit</p>", 500))
	for _, coding := range []string{"gzip", "deflate", "br", "zstd"} {
		t.Run(coding, func(t *testing.T) {
			encoded := encode(t, coding, page)
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if !strings.Contains(r.Header.Get("Accept-Encoding"), coding) {
					t.Errorf("Accept-Encoding %q lacks %s", r.Header.Get("Accept-Encoding"), coding)
				}
				w.Header().Set("Content-Encoding", coding) // no Content-Type: sniffed
				w.Write(encoded)
			})
			c := newTestClient(t, Config{AllowPrivate: true})
			resp, err := c.Fetch(context.Background(), Request{URL: srv.URL})
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if !bytes.Equal(resp.Body, encoded) {
				t.Errorf("Body = %d bytes, want the %d encoded bytes as sent", len(resp.Body), len(encoded))
			}
			if !bytes.Contains(resp.RawHeader, []byte("Content-Encoding: "+coding+"\r\n")) {
				t.Errorf("RawHeader = %q lacks Content-Encoding", resp.RawHeader)
			}
			checkWire(t, resp)
			got, err := c.Decode(resp)
			if err != nil || !bytes.Equal(got, page) {
				t.Errorf("Decode = %d bytes, %v; want the %d-byte page", len(got), err, len(page))
			}
			if ct := resp.ContentType(); ct != "text/html" {
				t.Errorf("ContentType() = %q, want text/html sniffed from the decoded body", ct)
			}
		})
	}
}

func TestFetchGzipBomb(t *testing.T) {
	const expanded = 1 << 30 // 1 GiB of zeros, about 6.5 MB on the wire
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		writeGzipZeros(w, expanded) // streamed, never held in memory
	})
	const limit = 4 << 20
	c := newTestClient(t, Config{AllowPrivate: true, MaxDecodedBytes: limit})
	resp, err := c.Fetch(context.Background(), Request{URL: srv.URL})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if resp.Truncated != "" {
		t.Fatalf("Fetch of the bomb: Truncated %q after %d bytes, want it whole", resp.Truncated, len(resp.Body))
	}
	var got []byte
	alloc := allocated(func() { got, err = c.Decode(resp) })
	if !errors.Is(err, ErrTooLarge) || len(got) != limit {
		t.Errorf("Decode(bomb) = %d bytes, %v; want %d bytes and ErrTooLarge", len(got), err, limit)
	}
	if alloc > 64<<20 {
		t.Errorf("Decode(bomb) allocated %d MiB, want bounded by the %d MiB cap", alloc>>20, limit>>20)
	}
}

func TestFetchSSRF(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "internal secrets")
	})
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	tests := []struct {
		name         string
		url          string
		allowPrivate bool
		wantErr      bool
	}{
		{"loopback refused", srv.URL, false, true},
		{"loopback allowed", srv.URL, true, false},
		{"localhost refused", "http://localhost:" + port + "/", false, true},
		{"sub.localhost refused", "http://a.localhost:" + port + "/", false, true},
		{"ipv6 loopback refused", "http://[::1]:" + port + "/", false, true},
		{"mapped loopback refused", "http://[::ffff:127.0.0.1]:" + port + "/", false, true},
		{"numeric host refused", "http://2130706433:" + port + "/", false, true},
		{"short numeric host refused", "http://127.1:" + port + "/", false, true},
		{"private refused", "http://10.1.2.3:" + port + "/", false, true},
		{"metadata refused", "http://169.254.169.254/latest/meta-data/", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits.Store(0)
			c := newTestClient(t, Config{AllowPrivate: tt.allowPrivate, Timeout: 2 * time.Second})
			resp, err := c.Fetch(context.Background(), Request{URL: tt.url})
			if !tt.wantErr {
				if err != nil || resp.Status != 200 {
					t.Fatalf("Fetch(%s) = %v, %v; want 200", tt.url, resp, err)
				}
				return
			}
			if !errors.Is(err, ErrForbiddenAddress) {
				t.Fatalf("Fetch(%s) error = %v, want ErrForbiddenAddress", tt.url, err)
			}
			if Classify(err) != Policy {
				t.Errorf("Classify(%v) = %v, want policy", err, Classify(err))
			}
			if hits.Load() != 0 {
				t.Errorf("server got %d requests, want none", hits.Load())
			}
		})
	}
}

// TestDialGuard checks the guard at the connection level, where it catches
// names that resolve to forbidden addresses (and DNS rebinding): Fetch
// already refuses literal IPs, so this calls the dialer directly.
func TestDialGuard(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	addr := ln.Addr().String()

	guarded := newTestClient(t, Config{})
	if conn, err := guarded.dial(context.Background(), "tcp", addr); !errors.Is(err, ErrForbiddenAddress) {
		if conn != nil {
			conn.Close()
		}
		t.Errorf("guarded dial(%s) error = %v, want ErrForbiddenAddress", addr, err)
	}
	// "localhost" resolves to loopback: caught after resolution.
	_, port, _ := net.SplitHostPort(addr)
	if conn, err := guarded.dial(context.Background(), "tcp", "localhost:"+port); !errors.Is(err, ErrForbiddenAddress) {
		if conn != nil {
			conn.Close()
		}
		t.Errorf("guarded dial(localhost:%s) error = %v, want ErrForbiddenAddress", port, err)
	}

	// The configured proxy is trusted even on loopback.
	viaProxy := newTestClient(t, Config{Proxy: "http://" + addr})
	conn, err := viaProxy.dial(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatalf("dial to the configured proxy %s: %v", addr, err)
	}
	conn.Close()

	open := newTestClient(t, Config{AllowPrivate: true})
	conn, err = open.dial(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatalf("dial with AllowPrivate: %v", err)
	}
	conn.Close()
}

func TestFetchTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "proto %s", r.Proto)
	}))
	srv.EnableHTTP2 = true                           // offered by the server; we must still speak HTTP/1.1
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted case fails the handshake on purpose
	srv.StartTLS()
	t.Cleanup(srv.Close)

	t.Run("untrusted certificate", func(t *testing.T) {
		c := newTestClient(t, Config{AllowPrivate: true})
		_, err := c.Fetch(context.Background(), Request{URL: srv.URL})
		var unknown x509.UnknownAuthorityError
		if !errors.As(err, &unknown) || Classify(err) != Permanent {
			t.Errorf("Fetch with an untrusted certificate = %v (%v), want a permanent x509 error", err, Classify(err))
		}
	})
	t.Run("trusted", func(t *testing.T) {
		c := newTestClient(t, Config{AllowPrivate: true})
		pool := x509.NewCertPool()
		pool.AddCert(srv.Certificate())
		c.transport.TLSClientConfig.RootCAs = pool
		resp, err := c.Fetch(context.Background(), Request{URL: srv.URL + "/secure"})
		if err != nil {
			t.Fatalf("Fetch: %v", err)
		}
		if resp.Proto != "HTTP/1.1" || string(resp.Body) != "proto HTTP/1.1" {
			t.Errorf("Fetch over TLS = %s %q, want HTTP/1.1 both ways", resp.Proto, resp.Body)
		}
		if !bytes.HasPrefix(resp.RawRequest, []byte("GET /secure HTTP/1.1\r\n")) || resp.IP != "127.0.0.1" {
			t.Errorf("RawRequest = %q, IP %q", firstLine(string(resp.RawRequest)), resp.IP)
		}
	})
}

func TestFetchErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/"
	ln.Close()

	tests := []struct {
		name    string
		url     string
		want    Class
		wantErr error
	}{
		{"connection refused", refused, Transient, nil},
		{"unsupported scheme", "ftp://example.com/file", Permanent, ErrUnsupportedScheme},
		{"relative", "/just/a/path", Permanent, ErrInvalidURL},
		{"no host", "http:///path", Permanent, ErrInvalidURL},
		{"unparseable", "http://exa mple.com/", Permanent, ErrInvalidURL},
	}
	c := newTestClient(t, Config{AllowPrivate: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Fetch(context.Background(), Request{URL: tt.url})
			if err == nil || resp != nil {
				t.Fatalf("Fetch(%q) = %v, %v; want only an error", tt.url, resp, err)
			}
			if got := Classify(err); got != tt.want {
				t.Errorf("Classify(%v) = %v, want %v", err, got, tt.want)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Fetch(%q) error = %v, want %v", tt.url, err, tt.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "fetch: ") {
				t.Errorf("error %q lacks the fetch: prefix", err)
			}
		})
	}
}

func TestFetchConcurrent(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "page %s", r.URL.Path)
	})
	c := newTestClient(t, Config{AllowPrivate: true})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 5 {
				path := fmt.Sprintf("/%d/%d", i, j)
				resp, err := c.Fetch(context.Background(), Request{URL: srv.URL + path})
				if err != nil {
					t.Errorf("Fetch(%s): %v", path, err)
					return
				}
				if string(resp.Body) != "page "+path || !bytes.HasPrefix(resp.RawRequest, []byte("GET "+path+" ")) {
					t.Errorf("Fetch(%s) = %q, request %q", path, resp.Body, firstLine(string(resp.RawRequest)))
				}
				if resp.Reserialized || bytes.Count(resp.RawRequest, []byte("GET ")) != 1 {
					t.Errorf("Fetch(%s): Reserialized %v, RawRequest %q; want one exact request", path, resp.Reserialized, resp.RawRequest)
				}
				checkWire(t, resp)
			}
		})
	}
	wg.Wait()
}

// BenchmarkFetch measures the per-page overhead of Fetch over a keep-alive
// loopback connection, for a 10 KiB page sent with a Content-Length or
// chunked, with the wire capture on (as in production) and off.
func BenchmarkFetch(b *testing.B) {
	page := bytes.Repeat([]byte("<p>godwit benchmark page</p>\n"), 10<<10/29)
	srv := serve(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/chunked" {
			w.Write(page[:len(page)/2])
			w.(http.Flusher).Flush()
			w.Write(page[len(page)/2:])
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(page)))
		w.Write(page)
	})
	for _, framing := range []string{"length", "chunked"} {
		for _, capture := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/capture=%v", framing, capture), func(b *testing.B) {
				c := newTestClient(b, Config{AllowPrivate: true})
				c.noRecord = !capture
				ctx := context.Background()
				url := srv.URL + "/" + framing
				b.SetBytes(int64(len(page)))
				b.ReportAllocs()
				for b.Loop() {
					resp, err := c.Fetch(ctx, Request{URL: url})
					if err != nil || len(resp.Body) != len(page) || resp.Reserialized == capture {
						b.Fatalf("Fetch = %v", err)
					}
				}
			})
		}
	}
}
