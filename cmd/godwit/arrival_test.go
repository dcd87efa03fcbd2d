//go:build linux

package main

import (
	"slices"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestCrawlDirectIPDelayByArrival is issue 25's per-IP delay at an IP
// concurrency above 1, judged exactly: a single node crawls 30 hosts on
// three loopback addresses with --ip-concurrency 4 --ip-delay 20ms, and
// fakeweb judges every gap between two requests' starts to an address at
// no tolerance, timing each request by the kernel's receive time
// (Request.Arrived) rather than by its handler's entry, which lags the
// wire by milliseconds to tens of them on a loaded machine
// (docs/decisions.md, 2026-11-27, "The IP delay runs from the wire").
// It logs the same crawl judged by handler entry, and how late the
// handlers were entered.
func TestCrawlDirectIPDelayByArrival(t *testing.T) {
	const ipDelay = 20 * time.Millisecond
	for _, tc := range []struct {
		name  string
		https bool
		http2 string
		proto string
	}{
		{"h2", true, "auto", "HTTP/2.0"},
		{"https-http1", true, "off", "HTTP/1.1"},
		{"http", false, "off", "HTTP/1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			web := newDirectWeb(t, fakeweb.Config{
				Hosts: 30, PagesPerHost: 4, Seed: 21, HTTPS: tc.https,
				// Answers that take a while keep several requests to an
				// address in flight at once.
				Latency: 40 * time.Millisecond,
			}, directLoopback...)
			s := web.settings(t)
			s.HTTP2 = tc.http2
			s.Workers = 8
			s.IPConcurrency = 4
			s.IPDelay = ipDelay
			crawlInProcess(t, s, web.Seeds())
			judge := fakeweb.Judge{Delay: s.Delay, IPConcurrency: s.IPConcurrency, IPDelay: ipDelay}
			r := web.Report(judge)
			checkReport(t, r)
			judge.HandlerEntry = true
			entry := web.Report(judge)

			var lag []time.Duration
			peak := 0
			for _, q := range web.Requests() {
				if q.Proto != tc.proto || q.Proxy {
					t.Fatalf("fakeweb saw %s %s (proxy %v), want only direct %s", q.Proto, q.RawURL, q.Proxy, tc.proto)
				}
				if q.Arrived.IsZero() {
					t.Fatalf("%s: no kernel receive time", q.RawURL)
				}
				lag = append(lag, q.Start.Sub(q.Arrived))
			}
			for _, p := range r.IPPeak {
				peak = max(peak, p)
			}
			if peak < 2 {
				t.Errorf("at most %d request in flight to an address: the IP delay was not judged above an IP concurrency of 1 (peaks %v)", peak, r.IPPeak)
			}
			slices.Sort(lag)
			q := func(f float64) time.Duration { return lag[int(f*float64(len(lag)-1))] }
			t.Logf("%d requests, peaks %v; by arrival: %d gaps short of %v, smallest %v; by handler entry: %d short, smallest %v; handler entry after arrival: median %v, p99 %v, max %v",
				r.Requests, r.IPPeak, r.IPGapViolations, ipDelay, r.IPMinGap, entry.IPGapViolations, entry.IPMinGap, q(0.5), q(0.99), lag[len(lag)-1])
		})
	}
}
