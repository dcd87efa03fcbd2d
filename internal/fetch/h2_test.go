package fetch

import (
	"bufio"
	"bytes"
	"context"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestFetchHTTP2: with HTTP2 on, a server that offers h2 is spoken to in
// HTTP/2 (the server saw HTTP/2.0) and the exchange comes back in
// HTTP/1.1 form; with it off, the same server is spoken to in HTTP/1.1
// and the bytes are exact.
func TestFetchHTTP2(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Proto", r.Proto)
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Add("Set-Thing", "a")
		w.Header().Add("Set-Thing", "b")
		io.WriteString(w, "hello "+r.Proto)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())

	t.Run("h2", func(t *testing.T) {
		c := newTestClient(t, Config{AllowPrivate: true, RootCAs: pool, HTTP2: true})
		resp, err := c.Fetch(context.Background(), Request{URL: srv.URL + "/a/b?q=1"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Protocol != "h2" || resp.Proto != "HTTP/2.0" || string(resp.Body) != "hello HTTP/2.0" {
			t.Fatalf("Fetch = %s %s %q, want h2 both ways", resp.Protocol, resp.Proto, resp.Body)
		}
		if resp.TLSVersion != "tls/1.3" || !resp.Reserialized {
			t.Errorf("TLSVersion %q, Reserialized %v; want tls/1.3, true", resp.TLSVersion, resp.Reserialized)
		}
		host := strings.TrimPrefix(srv.URL, "https://")
		req := string(resp.RawRequest)
		if !strings.HasPrefix(req, "GET /a/b?q=1 HTTP/1.1\r\nhost: "+host+"\r\n") ||
			!strings.Contains(req, "\r\nuser-agent: "+c.cfg.UserAgent+"\r\n") || !strings.HasSuffix(req, "\r\n\r\n") ||
			strings.Contains(req, ":method") {
			t.Errorf("RawRequest = %q", req)
		}
		hdr := string(resp.RawHeader)
		if !strings.HasPrefix(hdr, "HTTP/1.1 200 OK\r\n") || !strings.Contains(hdr, "\r\nx-proto: HTTP/2.0\r\n") ||
			!strings.Contains(hdr, "\r\nset-thing: a\r\nset-thing: b\r\n") || strings.Contains(hdr, "Content-Type") {
			t.Errorf("RawHeader = %q", hdr)
		}
		// The HTTP/1.1 form reads back as the response.
		back, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(append(append([]byte(nil), resp.RawHeader...), resp.RawBody...))), nil)
		if err != nil {
			t.Fatalf("ReadResponse over the HTTP/1.1 form: %v", err)
		}
		body, _ := io.ReadAll(back.Body)
		if back.StatusCode != 200 || back.Header.Get("Content-Type") != "text/plain" || !bytes.Equal(body, resp.Body) {
			t.Errorf("read back %d %q %q", back.StatusCode, back.Header, body)
		}
	})
	t.Run("off", func(t *testing.T) {
		c := newTestClient(t, Config{AllowPrivate: true, RootCAs: pool})
		resp, err := c.Fetch(context.Background(), Request{URL: srv.URL + "/"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Protocol != "http/1.1" || string(resp.Body) != "hello HTTP/1.1" || resp.Reserialized {
			t.Errorf("Fetch = %s %q reserialized %v, want exact HTTP/1.1", resp.Protocol, resp.Body, resp.Reserialized)
		}
		if resp.TLSVersion != "tls/1.3" {
			t.Errorf("TLSVersion = %q, want tls/1.3", resp.TLSVersion)
		}
	})
	t.Run("plain http", func(t *testing.T) {
		plain := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") })
		c := newTestClient(t, Config{AllowPrivate: true, HTTP2: true})
		resp, err := c.Fetch(context.Background(), Request{URL: plain.URL + "/"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Protocol != "http/1.1" || resp.TLSVersion != "" {
			t.Errorf("plain HTTP: Protocol %q, TLSVersion %q", resp.Protocol, resp.TLSVersion)
		}
	})
}

// TestHTTP2NotToProxy: with HTTP2 on, an https proxy that offers h2 is
// still spoken to in HTTP/1.1 (net/http has no HTTP/2 proxies).
func TestHTTP2NotToProxy(t *testing.T) {
	var log proxyLog
	proxy := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Proto", r.Proto)
		log.handler(w, r)
	}))
	proxy.EnableHTTP2 = true
	proxy.StartTLS()
	t.Cleanup(proxy.Close)
	pool := x509.NewCertPool()
	pool.AddCert(proxy.Certificate())
	c := newTestClient(t, Config{Proxy: proxy.URL, RootCAs: pool, HTTP2: true})
	const target = "http://example.test/x"
	resp, err := c.Fetch(context.Background(), Request{URL: target})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("X-Proto") != "HTTP/1.1" || string(resp.Body) != "proxied "+target || resp.Protocol != "http/1.1" {
		t.Errorf("via an https proxy: %s %q, protocol %s", resp.Header.Get("X-Proto"), resp.Body, resp.Protocol)
	}
}
