package fetch

import (
	"context"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestFetchWrote: Request.Wrote is called once per request, as soon as
// the request is on the wire and before any answer: the server answers
// only once the client has reported it (it waits for that), over
// HTTP/1.1, HTTPS and HTTP/2, on a new connection and on a kept one.
func TestFetchWrote(t *testing.T) {
	reported := make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-reported:
		case <-time.After(5 * time.Second):
			http.Error(w, "the client did not report its request on the wire", http.StatusGatewayTimeout)
			return
		}
		w.Write([]byte(r.Proto))
	})
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	tlsSrv := httptest.NewUnstartedServer(h)
	tlsSrv.EnableHTTP2 = true
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(tlsSrv.Certificate())
	for _, tc := range []struct {
		name, url, proto string
		http2            bool
	}{
		{"http", plain.URL, "HTTP/1.1", false},
		{"https", tlsSrv.URL, "HTTP/1.1", false},
		{"h2", tlsSrv.URL, "HTTP/2.0", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, Config{AllowPrivate: true, RootCAs: pool, HTTP2: tc.http2})
			for i := range 2 { // a new connection, then the same one
				var mu sync.Mutex
				var calls []time.Time
				resp, err := c.Fetch(context.Background(), Request{URL: tc.url + "/", Wrote: func(at time.Time) {
					mu.Lock()
					calls = append(calls, at)
					mu.Unlock()
					reported <- struct{}{}
				}})
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				if resp.Status != 200 || string(resp.Body) != tc.proto {
					t.Fatalf("request %d: %d %q", i, resp.Status, resp.Body)
				}
				if len(calls) != 1 || calls[0].Before(resp.Start) || calls[0].After(resp.FirstByte) {
					t.Errorf("request %d: Wrote called at %v, want once between the connection (%v) and the first byte (%v)", i, calls, resp.Start, resp.FirstByte)
				}
				mu.Unlock()
			}
		})
	}
}
