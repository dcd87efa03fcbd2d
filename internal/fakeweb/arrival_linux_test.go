package fakeweb

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"testing"
	"time"
)

// arrivalServer serves w on a loopback listener, over plain HTTP or, with
// a CA, over TLS; its client connects to it as the origin of every host,
// offering h2 when h2 is set.
func arrivalServer(t *testing.T, w *Web, tlsOn, h2 bool) *http.Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, ln.Addr().String())
		},
	}
	if tlsOn {
		ca, err := NewCA()
		if err != nil {
			t.Fatal(err)
		}
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(ca.CertPEM())
		tr.TLSClientConfig = &tls.Config{RootCAs: roots}
		tr.ForceAttemptHTTP2 = h2
		if !h2 {
			tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
		go func() { served <- w.ServeTLS(ctx, ln, ca.ServerConfig()) }()
	} else {
		go func() { served <- w.Serve(ctx, ln) }()
	}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	})
	return &http.Client{Transport: tr}
}

type arrivalCase struct {
	name       string
	tls, h2    bool
	proto      string
	hostsHTTPS bool
}

var arrivalCases = []arrivalCase{
	{"http", false, false, "HTTP/1.1", false},
	{"https", true, false, "HTTP/1.1", true},
	{"h2", true, true, "HTTP/2.0", true},
}

// get fetches url with c and returns when the client had written the
// request (httptrace's WroteRequest).
func get(t *testing.T, c *http.Client, url string, wrote func(time.Time)) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote(time.Now()) },
	}))
	resp, err := c.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
}

// TestArrivedFromKernel: a request whose handler is entered 150 ms after
// the client wrote it is logged with Arrived between the client's call
// and the end of its write (give or take 5 ms: loopback stamps the
// segment inside the client's write), and Start 150 ms later; over HTTP,
// HTTPS/1.1 and h2. The request is the second on its connection (the
// first is not delayed), as a crawl's are after the first.
func TestArrivedFromKernel(t *testing.T) {
	const late = 150 * time.Millisecond
	for _, tc := range arrivalCases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := New(Config{Hosts: 2, PagesPerHost: 2, HTTPS: tc.hostsHTTPS})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			var mu sync.Mutex
			var wrote time.Time
			wroteCh := make(chan time.Time, 1)
			w.enter = func(r *http.Request) {
				if r.URL.Path != "/page/1" {
					return
				}
				at := <-wroteCh // the handler can be entered before the client's trace says it wrote
				mu.Lock()
				wrote = at
				mu.Unlock()
				time.Sleep(time.Until(at.Add(late))) // the late handler under test
			}
			c := arrivalServer(t, w, tc.tls, tc.h2) // after w.enter is set: serving reads it
			seed := w.Seeds()[0]
			get(t, c, seed, func(time.Time) {})
			before := time.Now()
			get(t, c, seed+"page/1", func(at time.Time) { wroteCh <- at })
			mu.Lock()
			defer mu.Unlock()
			reqs := w.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests logged, want 2", len(reqs))
			}
			q := reqs[1]
			if q.Path != "/page/1" || q.Proto != tc.proto {
				t.Fatalf("logged %s over %s, want /page/1 over %s", q.Path, q.Proto, tc.proto)
			}
			t.Logf("arrived %v after the client began, %v before its write returned; handler entered %v after arrival",
				q.Arrived.Sub(before), wrote.Sub(q.Arrived), q.Start.Sub(q.Arrived))
			if q.Arrived.Before(before) || q.Arrived.After(wrote.Add(5*time.Millisecond)) {
				t.Errorf("Arrived %v, want within [%v, %v + 5ms] (the client's send)", q.Arrived, before, wrote)
			}
			if q.Start.Sub(q.Arrived) < late-time.Millisecond {
				t.Errorf("Start %v after Arrived, want at least %v (the handler's lateness)", q.Start.Sub(q.Arrived), late)
			}
			if at := q.At(); !at.Equal(q.Arrived) {
				t.Errorf("At() = %v, want Arrived %v", at, q.Arrived)
			}
		})
	}
}

// TestReportIPGapByArrival: two hosts on one address; the request to h0
// is written first and entered late, after the request to h1 written 80
// ms later, so by handler entry they are in the other order and close.
// Judged by arrival (the kernel's), they are 80 ms apart in the order
// sent: no IP gap violation under a 60 ms IP delay, and no per-host one.
func TestReportIPGapByArrival(t *testing.T) {
	const spacing = 80 * time.Millisecond
	for _, tc := range arrivalCases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := New(Config{Hosts: 2, PagesPerHost: 2, HTTPS: tc.hostsHTTPS})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			secondIn := make(chan struct{})
			w.enter = func(r *http.Request) {
				switch r.URL.Path {
				case "/page/1":
					<-secondIn // entered after the later request
				case "/page/2":
					close(secondIn)
				}
			}
			c := arrivalServer(t, w, tc.tls, tc.h2)
			seeds := w.Seeds()
			// Open both connections (robots.txt, as a crawler would),
			// spaced as the pages will be.
			wrote := make(chan time.Time, 1) // the client's trace runs on its own goroutine
			var last time.Time
			for _, s := range seeds {
				time.Sleep(time.Until(last.Add(spacing)))
				get(t, c, s+"robots.txt", func(at time.Time) { wrote <- at })
				last = <-wrote
			}
			time.Sleep(time.Until(last.Add(spacing)))
			var wg sync.WaitGroup
			firstWrote := make(chan time.Time, 1)
			wg.Go(func() { get(t, c, seeds[0]+"page/1", func(at time.Time) { firstWrote <- at }) })
			time.Sleep(time.Until((<-firstWrote).Add(spacing))) // the crawler's IP delay
			get(t, c, seeds[1]+"page/2", func(time.Time) {})
			wg.Wait()

			reqs := w.Requests()
			if len(reqs) != 4 || reqs[2].Path != "/page/2" || reqs[3].Path != "/page/1" {
				t.Fatalf("log %+v, want robots.txt twice, then /page/2 entered before /page/1", reqs)
			}
			t.Logf("by handler entry %v apart, in the other order; by arrival %v apart",
				reqs[3].Start.Sub(reqs[2].Start), reqs[2].Arrived.Sub(reqs[3].Arrived))
			rep := w.Report(Judge{IPConcurrency: 2, IPDelay: spacing - 20*time.Millisecond})
			if rep.IPGapViolations != 0 || rep.ConcurrencyViolations != 0 || rep.GapViolations != 0 {
				t.Errorf("IP gap violations %d, concurrency %d, gap %d, want 0: %v",
					rep.IPGapViolations, rep.ConcurrencyViolations, rep.GapViolations, rep.Violations)
			}
			if gap := reqs[2].Arrived.Sub(reqs[3].Arrived); gap < spacing {
				t.Errorf("arrivals %v apart, want at least %v", gap, spacing)
			}
		})
	}
}
