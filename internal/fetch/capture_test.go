package fetch

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// checkWire checks the capture invariant: reading RawHeader followed by
// RawBody as an HTTP response yields Body, with nothing left over.
func checkWire(t *testing.T, resp *Response) {
	t.Helper()
	wire := append(append([]byte(nil), resp.RawHeader...), resp.RawBody...)
	br := bufio.NewReader(bytes.NewReader(wire))
	parsed, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Errorf("ReadResponse(RawHeader+RawBody = %q): %v", clip(wire), err)
		return
	}
	got, err := io.ReadAll(parsed.Body)
	if err != nil {
		t.Errorf("reading the body of RawHeader+RawBody: %v", err)
	}
	if !bytes.Equal(got, resp.Body) {
		t.Errorf("body of RawHeader+RawBody = %q, want Body %q", clip(got), clip(resp.Body))
	}
	if parsed.StatusCode != resp.Status {
		t.Errorf("status of RawHeader+RawBody = %d, want %d", parsed.StatusCode, resp.Status)
	}
	if rest, _ := io.ReadAll(br); len(rest) > 0 {
		t.Errorf("RawHeader+RawBody has %q after the message", clip(rest))
	}
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// rawServer is a loopback server that answers each request it reads with
// the bytes respond returns for it (the n-th request over all
// connections), then closes the connection if asked to.
type rawServer struct {
	ln      net.Listener
	wg      sync.WaitGroup
	n       atomic.Int32
	respond func(n int, w io.Writer) (close bool)
}

func startRaw(t *testing.T, respond func(n int, w io.Writer) bool) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, respond: respond}
	s.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Go(func() { s.serve(conn) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) serve(conn net.Conn) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	for {
		for { // the request header: GETs have no body
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if line == "\r\n" {
				break
			}
		}
		if s.respond(int(s.n.Add(1))-1, conn) {
			return
		}
	}
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() }

func TestCaptureExactRaw(t *testing.T) {
	gz := encode(t, "gzip", []byte(strings.Repeat("<p>gzip</p>", 300)))
	tests := []struct {
		name   string
		header string // sent as is
		body   string // sent as is after header
		close  bool
		want   string // Body
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nx-lower: a\r\nContent-Type: text/plain\r\n\r\n", "hello", false, "hello"},
		{"close-delimited", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n", "<p>until close</p>", true, "<p>until close</p>"},
		{"http/1.0", "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n", "old server", true, "old server"},
		{"bare LF", "HTTP/1.1 200 OK\nContent-Length: 3\nContent-Type: text/plain\n\n", "abc", false, "abc"},
		{"chunked with extensions and trailer",
			"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nTrailer: X-Sum\r\n\r\n",
			"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 42\r\n\r\n", false, "hello world"},
		{"gzip", fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", len(gz)), string(gz), false, string(gz)},
		{"103 then 200",
			"HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n", "ok", false, "ok"},
		{"304", "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n", "", false, ""},
		{"204", "HTTP/1.1 204 No Content\r\n\r\n", "", false, ""},
		{"304 claiming chunked", "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRaw(t, func(_ int, w io.Writer) bool {
				io.WriteString(w, tt.header+tt.body)
				return tt.close
			})
			c := newTestClient(t, Config{AllowPrivate: true})
			resp, err := c.Fetch(context.Background(), Request{URL: srv.url() + "/x"})
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if string(resp.Body) != tt.want || resp.Truncated != "" {
				t.Errorf("Body = %q (truncated %q), want %q", clip(resp.Body), resp.Truncated, clip([]byte(tt.want)))
			}
			wantHeader := tt.header
			if tt.name == "103 then 200" {
				wantHeader = wantHeader[strings.Index(wantHeader, "HTTP/1.1 200"):]
			}
			if string(resp.RawHeader) != wantHeader || string(resp.RawBody) != tt.body || resp.Reserialized {
				t.Errorf("RawHeader, RawBody, Reserialized = %q, %q, %v; want %q, %q, false",
					resp.RawHeader, clip(resp.RawBody), resp.Reserialized, wantHeader, clip([]byte(tt.body)))
			}
			if len(resp.Body) > 0 && !strings.Contains(strings.ToLower(wantHeader), "chunked") && &resp.RawBody[0] != &resp.Body[0] {
				t.Error("RawBody is a copy of Body, want the same bytes")
			}
			if !strings.HasPrefix(string(resp.RawRequest), "GET /x HTTP/1.1\r\nHost: ") || !strings.HasSuffix(string(resp.RawRequest), "\r\n\r\n") {
				t.Errorf("RawRequest = %q", resp.RawRequest)
			}
			if resp.FirstByte.Before(resp.Start) || resp.End.Before(resp.FirstByte) {
				t.Errorf("Start %v, FirstByte %v, End %v out of order", resp.Start, resp.FirstByte, resp.End)
			}
			checkWire(t, resp)
		})
	}
}

func TestCaptureExactHTTPTest(t *testing.T) {
	page := strings.Repeat("<p>page</p>", 1000)
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"content-length", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(page)))
			io.WriteString(w, page)
		}},
		{"chunked", func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i < len(page); i += 3000 {
				io.WriteString(w, page[i:min(i+3000, len(page))])
				w.(http.Flusher).Flush()
			}
		}},
		{"gzip chunked", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.(http.Flusher).Flush()
			w.Write(encode(t, "gzip", []byte(page)))
		}},
		{"103 early hints", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", "</style.css>; rel=preload; as=style")
			w.WriteHeader(http.StatusEarlyHints)
			io.WriteString(w, page)
		}},
		{"304", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"v1"`)
			w.WriteHeader(http.StatusNotModified)
		}},
		{"204", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, tt.handler)
			c := newTestClient(t, Config{AllowPrivate: true})
			resp, err := c.Fetch(context.Background(), Request{URL: srv.URL})
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if resp.Reserialized || !bytes.HasPrefix(resp.RawHeader, []byte("HTTP/1.1 ")) {
				t.Errorf("Reserialized %v, RawHeader %q; want an exact capture", resp.Reserialized, resp.RawHeader)
			}
			if bytes.Contains(resp.RawHeader, []byte(" 103 ")) {
				t.Errorf("RawHeader = %q holds the interim response", resp.RawHeader)
			}
			checkWire(t, resp)
		})
	}
}

// TestCaptureKeepAlive fetches several pages over one connection: each
// capture holds its own exchange and nothing of the previous one.
func TestCaptureKeepAlive(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := strings.Repeat("page "+r.URL.Path+" ", 200)
		if strings.HasSuffix(r.URL.Path, "c") {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		}
		io.WriteString(w, body)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := newTestClient(t, Config{AllowPrivate: true})
	for i, path := range []string{"/1c", "/2", "/3", "/4c", "/5c"} {
		resp, err := c.Fetch(context.Background(), Request{URL: srv.URL + path})
		if err != nil {
			t.Fatalf("Fetch(%s): %v", path, err)
		}
		if want := strings.Repeat("page "+path+" ", 200); string(resp.Body) != want {
			t.Errorf("Fetch(%s) body = %q", path, clip(resp.Body))
		}
		if resp.Reserialized {
			t.Errorf("Fetch(%s) #%d: Reserialized", path, i)
		}
		if n := bytes.Count(resp.RawRequest, []byte("GET ")); n != 1 || !bytes.HasPrefix(resp.RawRequest, []byte("GET "+path+" HTTP/1.1\r\n")) {
			t.Errorf("Fetch(%s) RawRequest = %q, want one request for %s", path, resp.RawRequest, path)
		}
		if n := bytes.Count(resp.RawHeader, []byte("HTTP/1.1")); n != 1 {
			t.Errorf("Fetch(%s) RawHeader = %q, want one status line", path, resp.RawHeader)
		}
		checkWire(t, resp)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("server saw %d connections, want 1 (keep-alive)", n)
	}
}

func TestCaptureTruncated(t *testing.T) {
	const limit = 1000
	data := strings.Repeat("0123456789", 500)
	var chunkedWire strings.Builder
	for i := 0; i < len(data); i += 300 {
		part := data[i:min(i+300, len(data))]
		fmt.Fprintf(&chunkedWire, "%x\r\n%s\r\n", len(part), part)
	}
	chunkedWire.WriteString("0\r\n\r\n")
	tests := []struct {
		name, header, body string
	}{
		{"content-length", fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(data)), data},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", chunkedWire.String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRaw(t, func(_ int, w io.Writer) bool {
				io.WriteString(w, tt.header+tt.body)
				return false
			})
			c := newTestClient(t, Config{AllowPrivate: true, MaxBodyBytes: limit})
			resp, err := c.Fetch(context.Background(), Request{URL: srv.url()})
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if resp.Truncated != TruncatedLength || string(resp.Body) != data[:limit] {
				t.Errorf("Body = %d bytes, Truncated %q; want the first %d, %q", len(resp.Body), resp.Truncated, limit, TruncatedLength)
			}
			if string(resp.RawHeader) != tt.header || !strings.HasPrefix(tt.body, string(resp.RawBody)) || resp.Reserialized {
				t.Errorf("RawHeader %q, RawBody %q, Reserialized %v; want the header and a prefix of the body as sent",
					resp.RawHeader, clip(resp.RawBody), resp.Reserialized)
			}
			checkTruncatedWire(t, resp)
		})
	}
}

// checkTruncatedWire checks that the body in RawHeader+RawBody, read as
// far as it goes, is Body.
func checkTruncatedWire(t *testing.T, resp *Response) {
	t.Helper()
	body := resp.RawBody
	if bytes.Contains(bytes.ToLower(resp.RawHeader), []byte("chunked")) {
		got, _ := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(body)))
		body = got
	}
	if !bytes.Equal(body, resp.Body) {
		t.Errorf("RawBody holds %q, want Body %q", clip(body), clip(resp.Body))
	}
}

func TestCaptureSlowDrip(t *testing.T) {
	var mu sync.Mutex
	var sent bytes.Buffer
	srv := startRaw(t, func(_ int, w io.Writer) bool {
		write := func(s string) error {
			mu.Lock()
			sent.WriteString(s)
			mu.Unlock()
			_, err := io.WriteString(w, s)
			return err
		}
		if write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n<html>\r\n") != nil {
			return true
		}
		for i := 0; i < 100; i++ {
			time.Sleep(20 * time.Millisecond)
			if write("1\r\nx\r\n") != nil {
				return true
			}
		}
		return true
	})
	c := newTestClient(t, Config{AllowPrivate: true, Timeout: 300 * time.Millisecond})
	resp, err := c.Fetch(context.Background(), Request{URL: srv.url()})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if resp.Truncated != TruncatedTime || !bytes.HasPrefix(resp.Body, []byte("<html>x")) {
		t.Errorf("Body %q, Truncated %q; want a cut drip", resp.Body, resp.Truncated)
	}
	mu.Lock()
	wire := sent.String()
	mu.Unlock()
	if got := string(resp.RawHeader) + string(resp.RawBody); !strings.HasPrefix(wire, got) || resp.Reserialized {
		t.Errorf("RawHeader+RawBody = %q (Reserialized %v), want a prefix of what was sent, %q", got, resp.Reserialized, wire)
	}
	checkTruncatedWire(t, resp)
}

func TestCaptureTLS(t *testing.T) {
	var protos atomic.Value
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Negotiated", r.TLS.NegotiatedProtocol)
		io.WriteString(w, "secure page")
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		protos.Store(append([]string(nil), hello.SupportedProtos...))
		return nil, nil
	}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())

	t.Run("direct", func(t *testing.T) {
		c := newTestClient(t, Config{AllowPrivate: true})
		c.transport.TLSClientConfig.RootCAs = pool
		resp, err := c.Fetch(context.Background(), Request{URL: srv.URL + "/s"})
		if err != nil {
			t.Fatalf("Fetch: %v", err)
		}
		if resp.Reserialized || !bytes.HasPrefix(resp.RawRequest, []byte("GET /s HTTP/1.1\r\n")) {
			t.Errorf("Reserialized %v, RawRequest %q; want an exact capture over TLS", resp.Reserialized, resp.RawRequest)
		}
		if got := resp.Header.Get("X-Negotiated"); got == "h2" {
			t.Errorf("ALPN negotiated %q, want HTTP/1.1", got)
		}
		if got, _ := protos.Load().([]string); len(got) != 1 || got[0] != "http/1.1" {
			t.Errorf("ClientHello offered ALPN %q, want only http/1.1", got)
		}
		checkWire(t, resp)
	})

	t.Run("through a CONNECT tunnel", func(t *testing.T) {
		proxy := serve(t, connectProxy)
		c := newTestClient(t, Config{AllowPrivate: true, Proxy: proxy.URL})
		c.transport.TLSClientConfig.RootCAs = pool
		resp, err := c.Fetch(context.Background(), Request{URL: srv.URL + "/t"})
		if err != nil {
			t.Fatalf("Fetch: %v", err)
		}
		if string(resp.Body) != "secure page" || !resp.Reserialized {
			t.Errorf("Body %q, Reserialized %v; want the page, re-serialized (we only saw ciphertext)", resp.Body, resp.Reserialized)
		}
		if !bytes.HasPrefix(resp.RawRequest, []byte("GET /t HTTP/1.1\r\n")) {
			t.Errorf("RawRequest = %q", resp.RawRequest)
		}
		if got, _ := protos.Load().([]string); len(got) != 1 || got[0] != "http/1.1" {
			t.Errorf("ClientHello in the tunnel offered ALPN %q, want only http/1.1", got)
		}
		checkWire(t, resp)
	})
}

// connectProxy is a minimal CONNECT-only forward proxy.
func connectProxy(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
		return
	}
	upstream, err := net.Dial("tcp", r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer upstream.Close()
	w.WriteHeader(http.StatusOK)
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(upstream, brw)
		upstream.(*net.TCPConn).CloseWrite()
		close(done)
	}()
	io.Copy(conn, upstream)
	conn.Close()
	<-done
}

func TestCaptureViaProxyExact(t *testing.T) {
	var log proxyLog
	proxy := serve(t, log.handler)
	c := newTestClient(t, Config{Proxy: strings.Replace(proxy.URL, "http://", "http://user:s3cret@", 1)})
	resp, err := c.Fetch(context.Background(), Request{URL: "http://example.test/p"})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if resp.Reserialized || !bytes.HasPrefix(resp.RawRequest, []byte("GET http://example.test/p HTTP/1.1\r\nHost: example.test\r\n")) {
		t.Errorf("Reserialized %v, RawRequest %q; want the exact absolute-form request", resp.Reserialized, resp.RawRequest)
	}
	if bytes.Contains(bytes.ToLower(resp.RawRequest), []byte("proxy-authorization")) || bytes.Contains(resp.RawRequest, []byte("Basic ")) {
		t.Errorf("RawRequest = %q carries proxy credentials", resp.RawRequest)
	}
	if _, auth := log.seen(); len(auth) != 1 || auth[0] == "" {
		t.Errorf("proxy saw Proxy-Authorization %q, want credentials", auth)
	}
	checkWire(t, resp)
}

func TestExactRequestStripsProxyAuthorization(t *testing.T) {
	wrote := "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nproxy-authorization: Basic eDp5\r\nUser-Agent: x\r\nPROXY-AUTHORIZATION : Basic eg==\r\n\r\n"
	got, ok := exactRequest([]byte(wrote))
	want := "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nUser-Agent: x\r\n\r\n"
	if !ok || string(got) != want {
		t.Errorf("exactRequest(%q) = %q, %v; want %q, true", wrote, got, ok, want)
	}
	if _, ok := exactRequest([]byte("\x16\x03\x01\x02\x00")); ok {
		t.Error("exactRequest(TLS bytes) ok, want not")
	}
}

func TestExactResponseFallback(t *testing.T) {
	resp := &http.Response{StatusCode: 200}
	for _, read := range []string{
		"",
		"\x16\x03\x03 ciphertext",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", // header cut
		"HTTP/1.1 404 Not Found\r\n\r\n",           // another response
		"HTTP/1.1 200 OK\r\n\r\nhellX",             // disagrees with Body
	} {
		if h, b, ok := exactResponse([]byte(read), resp, []byte("hello"), false); ok {
			t.Errorf("exactResponse(%q) = %q, %q, ok; want a fallback", read, h, b)
		}
	}
	chunkedResp := &http.Response{StatusCode: 200, TransferEncoding: []string{"chunked"}}
	for _, read := range []string{
		"HTTP/1.1 200 OK\r\n\r\n5\r\nhello\r\n",          // no last chunk: recording cut
		"HTTP/1.1 200 OK\r\n\r\n5\r\nhelxo\r\n0\r\n\r\n", // disagrees with Body
		"HTTP/1.1 200 OK\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
	} {
		if h, b, ok := exactResponse([]byte(read), chunkedResp, []byte("hello"), false); ok {
			t.Errorf("exactResponse(%q) = %q, %q, ok; want a fallback", read, h, b)
		}
	}
}

func FuzzExactResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), true)
	f.Add([]byte("HTTP/1.1 103 x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), false)
	f.Fuzz(func(t *testing.T, read []byte, truncated bool) {
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(read)), nil)
		if err != nil {
			return
		}
		body, _ := io.ReadAll(resp.Body)
		header, raw, ok := exactResponse(read, resp, body, truncated)
		if !ok {
			return
		}
		if !bytes.Contains(read, header) {
			t.Fatalf("header %q is not from the bytes read", header)
		}
		if !truncated && !chunked(resp) && !bytes.Equal(raw, body) {
			t.Fatalf("RawBody %q != Body %q without transfer coding", raw, body)
		}
		if truncated {
			return
		}
		again, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(append(append([]byte(nil), header...), raw...))), nil)
		if err != nil {
			t.Fatalf("ReadResponse(header+RawBody): %v", err)
		}
		if got, _ := io.ReadAll(again.Body); !bytes.Equal(got, body) {
			t.Fatalf("header+RawBody gives body %q, want %q", got, body)
		}
	})
}

// TestCaptureRetry: the server closes a reused connection after reading
// the second request, so the transport sends it again on a fresh one; the
// capture holds the last attempt only.
func TestCaptureRetry(t *testing.T) {
	srv := startRaw(t, func(n int, w io.Writer) bool {
		switch n {
		case 0:
			io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst")
			return false
		case 1:
			return true // read the request, answer nothing
		}
		io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nX-Attempt: 2\r\n\r\nsecond")
		return false
	})
	c := newTestClient(t, Config{AllowPrivate: true})
	if _, err := c.Fetch(context.Background(), Request{URL: srv.url() + "/1"}); err != nil {
		t.Fatalf("Fetch /1: %v", err)
	}
	resp, err := c.Fetch(context.Background(), Request{URL: srv.url() + "/2"})
	if err != nil {
		t.Fatalf("Fetch /2: %v", err)
	}
	if string(resp.Body) != "second" || resp.Reserialized {
		t.Errorf("Fetch /2 = %q, Reserialized %v", resp.Body, resp.Reserialized)
	}
	if n := bytes.Count(resp.RawRequest, []byte("GET ")); n != 1 {
		t.Errorf("RawRequest = %q, want the last attempt only", resp.RawRequest)
	}
	if want := "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nX-Attempt: 2\r\n\r\n"; string(resp.RawHeader) != want {
		t.Errorf("RawHeader = %q, want %q", resp.RawHeader, want)
	}
	if srv.n.Load() != 3 {
		t.Errorf("server read %d requests, want 3 (one retried)", srv.n.Load())
	}
	checkWire(t, resp)
}

func TestCaptureReadBound(t *testing.T) {
	rc := &recConn{}
	c := newCapture(0, true)
	c.readMax = 10
	c.conn = rc
	c.recordRead(rc, []byte("0123456"))
	c.recordRead(rc, []byte("789abcdef"))
	c.recordRead(rc, []byte("more"))
	if string(c.read) != "0123456789" {
		t.Errorf("recorded %q, want the first 10 bytes", c.read)
	}
	c.recordRead(&recConn{}, []byte("x")) // another connection
	c.stopBodyReads()
	c.readMax = 100
	c.recordRead(rc, []byte("y"))
	if string(c.read) != "0123456789" {
		t.Errorf("recorded %q after stopBodyReads or from another connection", c.read)
	}
}
