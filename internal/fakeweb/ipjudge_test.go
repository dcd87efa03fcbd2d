package fakeweb_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestReportIPBudget serves a web directly on two loopback addresses and
// holds three requests in flight: to two hosts on 127.0.0.2 and one on
// 127.0.0.3. The judge sees the two on one address together (over an IP
// concurrency of 1) and too close (under an hour's IP delay), and no
// violation of any host's rules: the hosts differ.
func TestReportIPBudget(t *testing.T) {
	web, err := fakeweb.New(fakeweb.Config{Hosts: 3, PagesPerHost: 2, Latency: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	addrs := map[string]string{}
	ctx, cancel := context.WithCancel(context.Background())
	var served []chan error
	for _, a := range []string{"127.0.0.2", "127.0.0.3"} {
		ln, err := net.Listen("tcp", net.JoinHostPort(a, "0"))
		if err != nil {
			cancel()
			t.Skipf("cannot listen on %s: %v", a, err)
		}
		addrs[a] = ln.Addr().String()
		ch := make(chan error, 1)
		go func() { ch <- web.Serve(ctx, ln) }()
		served = append(served, ch)
	}
	defer func() {
		cancel()
		for _, ch := range served {
			if err := <-ch; err != nil {
				t.Error(err)
			}
		}
	}()
	on := map[string]string{"h0.fake.test": "127.0.0.2", "h1.fake.test": "127.0.0.2", "h2.fake.test": "127.0.0.3"}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		return (&net.Dialer{}).DialContext(ctx, network, addrs[on[host]])
	}}
	defer tr.CloseIdleConnections()
	rctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for _, h := range []string{"h0.fake.test", "h1.fake.test", "h2.fake.test"} {
		before := len(web.Requests())
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(rctx, http.MethodGet, (&url.URL{Scheme: "http", Host: h, Path: "/"}).String(), nil)
			if resp, err := tr.RoundTrip(req); err == nil {
				resp.Body.Close()
			}
		})
		waitFor(t, func() bool { return len(web.Requests()) > before })
	}
	stop()
	wg.Wait()
	r := web.Report(fakeweb.Judge{IPConcurrency: 1, IPDelay: time.Hour})
	if r.IPConcurrencyViolations != 1 || r.IPGapViolations != 1 {
		t.Errorf("IP violations: concurrency %d, gap %d; want 1 and 1\n%v", r.IPConcurrencyViolations, r.IPGapViolations, r)
	}
	if r.ConcurrencyViolations != 0 || r.GapViolations != 0 {
		t.Errorf("host violations: concurrency %d, gap %d; want none", r.ConcurrencyViolations, r.GapViolations)
	}
	if r.IPPeak["127.0.0.2"] != 2 || r.IPPeak["127.0.0.3"] != 1 {
		t.Errorf("IP peaks %v, want 2 on 127.0.0.2 and 1 on 127.0.0.3", r.IPPeak)
	}
	if r.OK() {
		t.Error("OK() with IP violations")
	}
	for _, q := range web.Requests() {
		if q.Local != on[q.Host] {
			t.Errorf("request for %s logged on %q, want %s", q.Host, q.Local, on[q.Host])
		}
	}
	// Without an IP budget to judge, the same log breaks no IP rule.
	if r := web.Report(fakeweb.Judge{}); r.IPConcurrencyViolations != 0 || r.IPGapViolations != 0 {
		t.Errorf("no IP budget judged, yet %d and %d IP violations", r.IPConcurrencyViolations, r.IPGapViolations)
	}
}
