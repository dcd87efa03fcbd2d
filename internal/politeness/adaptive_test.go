package politeness

import (
	"net/http"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func testPolicy() Policy {
	p := Policy{
		Delay:            time.Second,
		CrawlDelayCap:    10 * time.Second,
		LatencyFactor:    2,
		MaxLatencyDelay:  30 * time.Second,
		RetryAfterCap:    time.Hour,
		BackoffBase:      4 * time.Second,
		BackoffMax:       time.Minute,
		BreakerThreshold: 3,
		BreakerOpenFor:   time.Minute,
		BreakerOpenMax:   5 * time.Minute,
	}
	p.Default()
	return p
}

func TestParseRetryAfter(t *testing.T) {
	now := t0
	tests := []struct {
		value, date string
		want        time.Duration
		ok          bool
	}{
		{"", "", 0, false},
		{"120", "", 2 * time.Minute, true},
		{" 5 ", "", 5 * time.Second, true},
		{"0", "", 0, true},
		{"-5", "", 0, false},
		{"1.5", "", 0, false},
		{"soon", "", 0, false},
		{"99999999999999999999", "", time.Duration(1<<63-1) / time.Second * time.Second, true},
		// HTTP-date, in the three formats RFC 9110 requires readers to accept.
		{now.Add(90 * time.Second).Format(http.TimeFormat), "", 90 * time.Second, true},
		{now.Add(30 * time.Second).Format(time.RFC850), "", 30 * time.Second, true},
		{now.Add(10 * time.Second).Format(time.ANSIC), "", 10 * time.Second, true},
		// A date in the past means "now".
		{now.Add(-time.Hour).Format(http.TimeFormat), "", 0, true},
		// Measured from the server's Date, not our clock: a server an hour
		// behind asking for 60 s means 60 s.
		{now.Add(-time.Hour + time.Minute).Format(http.TimeFormat), now.Add(-time.Hour).Format(http.TimeFormat), time.Minute, true},
		// An unparseable Date falls back to our clock.
		{now.Add(time.Minute).Format(http.TimeFormat), "yesterday", time.Minute, true},
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfter(tt.value, tt.date, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfter(%q, %q) = %v, %v; want %v, %v", tt.value, tt.date, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoffGrowthAndJitter(t *testing.T) {
	p := testPolicy()
	// Uncapped values: 4s, 8s, 16s, 32s, then the 1m cap.
	want := []time.Duration{4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second, time.Minute, time.Minute}
	for i, d := range want {
		streak := i + 1
		lo, hi := p.Backoff(streak, 0), p.Backoff(streak, 0.999999)
		if lo != d/2 {
			t.Errorf("Backoff(%d, 0) = %v, want %v", streak, lo, d/2)
		}
		if hi >= d || hi < d-d/1000 {
			t.Errorf("Backoff(%d, ~1) = %v, want just under %v", streak, hi, d)
		}
		for _, j := range []float64{0.1, 0.5, 0.9} {
			if got := p.Backoff(streak, j); got < d/2 || got >= d {
				t.Errorf("Backoff(%d, %v) = %v, outside [%v, %v)", streak, j, got, d/2, d)
			}
		}
	}
	// Out-of-range jitter is clamped, never negative or beyond the bound.
	if got := p.Backoff(1, -3); got != 2*time.Second {
		t.Errorf("Backoff(1, -3) = %v", got)
	}
	if got := p.Backoff(1, 7); got != 4*time.Second {
		t.Errorf("Backoff(1, 7) = %v", got)
	}
	// Huge streaks do not overflow.
	if got := p.Backoff(1000, 0.5); got < 30*time.Second || got > time.Minute {
		t.Errorf("Backoff(1000) = %v", got)
	}
}

func TestLatencyProportionalDelay(t *testing.T) {
	p := testPolicy()
	var s HostState
	// A fast server: the configured delay rules.
	s = p.Observe(s, Observation{Start: t0, FirstByte: t0.Add(100 * time.Millisecond), End: t0.Add(200 * time.Millisecond)})
	if d, _ := p.HostGap(s, 0); d != (Delay{time.Second, ReasonConfigured}) {
		t.Errorf("fast server: %+v", d)
	}
	// The server slows down to 3 s per answer: the smoothed latency climbs
	// towards it and the gap follows at twice that.
	for i := 0; i < 20; i++ {
		start := t0.Add(time.Duration(i) * time.Minute)
		s = p.Observe(s, Observation{Start: start, FirstByte: start.Add(3 * time.Second), End: start.Add(3 * time.Second)})
	}
	d, _ := p.HostGap(s, 0)
	if d.Reason != ReasonLatency || d.Gap < 5900*time.Millisecond || d.Gap > 6*time.Second {
		t.Errorf("slow server: %+v (latency %v), want ≈6s by latency", d, s.Latency)
	}
	// A larger Crawl-delay still wins; one above the cap is capped.
	if d, capped := p.HostGap(s, 8*time.Second); d != (Delay{8 * time.Second, ReasonCrawlDelay}) || capped {
		t.Errorf("crawl-delay 8s: %+v capped=%v", d, capped)
	}
	if d, capped := p.HostGap(HostState{}, time.Hour); d != (Delay{10 * time.Second, ReasonCrawlDelay}) || !capped {
		t.Errorf("crawl-delay 1h: %+v capped=%v", d, capped)
	}
	// The latency delay is bounded.
	huge := HostState{Latency: time.Hour}
	if d, _ := p.HostGap(huge, 0); d != (Delay{30 * time.Second, ReasonLatency}) {
		t.Errorf("huge latency: %+v", d)
	}
	// Turned off.
	off := p
	off.LatencyFactor = -1
	if d, _ := off.HostGap(s, 0); d.Reason != ReasonConfigured {
		t.Errorf("latency factor off: %+v", d)
	}
	// A response without a first byte (a failure) does not move the mean.
	before := s.Latency
	s = p.Observe(s, Observation{Start: t0, End: t0.Add(time.Minute), Failure: Transient})
	if s.Latency != before {
		t.Errorf("latency moved without a response: %v → %v", before, s.Latency)
	}
}

func TestRetryAfterParksHost(t *testing.T) {
	p := testPolicy()
	end := t0.Add(time.Second)
	s := p.Observe(HostState{}, Observation{Start: t0, FirstByte: t0, End: end, Failure: Throttled, RetryAfter: 90 * time.Second, HasRetryAfter: true})
	if s.Until != end.Add(90*time.Second) || s.Why != ReasonRetryAfter {
		t.Fatalf("after 429 Retry-After 90: until %v why %s", s.Until.Sub(end), s.Why)
	}
	gap, _ := p.HostGap(s, 0)
	ready, d := Ready(s, end, gap)
	if !ready.Equal(end.Add(90*time.Second)) || d.Reason != ReasonRetryAfter || d.Gap != 90*time.Second {
		t.Errorf("Ready = %v, %+v", ready.Sub(end), d)
	}
	// A success does not cut the server's wait short.
	s = p.Observe(s, Observation{Start: end, FirstByte: end, End: end.Add(time.Second)})
	if s.Until != end.Add(90*time.Second) {
		t.Errorf("success shortened Retry-After: %v", s.Until.Sub(end))
	}
	// Capped.
	s = p.Observe(HostState{}, Observation{End: end, Failure: Throttled, RetryAfter: 48 * time.Hour, HasRetryAfter: true})
	if s.Until != end.Add(time.Hour) {
		t.Errorf("Retry-After 48h not capped at 1h: %v", s.Until.Sub(end))
	}
	// 503 without Retry-After: exponential backoff instead.
	s = p.Observe(HostState{}, Observation{End: end, Failure: Throttled, Jitter: 0})
	if s.Until != end.Add(2*time.Second) || s.Why != ReasonBackoff {
		t.Errorf("503 without Retry-After: %v %s", s.Until.Sub(end), s.Why)
	}
}

func TestBreaker(t *testing.T) {
	p := testPolicy() // threshold 3, open 1m doubling to 5m
	var s HostState
	now := t0
	fail := func() {
		now = now.Add(time.Second)
		s = p.Probe(s, now)
		s = p.Observe(s, Observation{Start: now, End: now, Failure: Transient, Jitter: 0.5})
	}
	fail()
	fail()
	if s.Breaker != BreakerClosed || s.Streak != 2 || s.Why != ReasonBackoff {
		t.Fatalf("after 2 failures: %+v", s)
	}
	fail()
	if s.Breaker != BreakerOpen || s.Trips != 1 || s.Why != ReasonBreaker || s.Until != now.Add(time.Minute) {
		t.Fatalf("after 3 failures: breaker %s trips %d why %s until +%v", s.Breaker, s.Trips, s.Why, s.Until.Sub(now))
	}
	// Before the cool-down ends a request is not a probe.
	if got := p.Probe(s, now.Add(30*time.Second)); got.Breaker != BreakerOpen {
		t.Errorf("probe before cool-down: %s", got.Breaker)
	}
	// The probe fails: open again, twice as long.
	now = s.Until
	s = p.Probe(s, now)
	if s.Breaker != BreakerHalfOpen {
		t.Fatalf("at cool-down end: %s", s.Breaker)
	}
	s = p.Observe(s, Observation{Start: now, End: now, Failure: Transient})
	if s.Breaker != BreakerOpen || s.Trips != 2 || s.Until != now.Add(2*time.Minute) {
		t.Fatalf("failed probe: %s trips %d until +%v", s.Breaker, s.Trips, s.Until.Sub(now))
	}
	// Trips keep doubling up to the cap.
	for i := 0; i < 5; i++ {
		now = s.Until
		s = p.Observe(p.Probe(s, now), Observation{Start: now, End: now, Failure: Transient})
	}
	if s.Until != now.Add(5*time.Minute) {
		t.Errorf("cool-down not capped: +%v", s.Until.Sub(now))
	}
	// A good answer to the probe closes it and forgets the streak.
	now = s.Until
	s = p.Observe(p.Probe(s, now), Observation{Start: now, FirstByte: now, End: now})
	if s.Breaker != BreakerClosed || s.Streak != 0 || s.Trips != 0 {
		t.Errorf("successful probe: %+v", s)
	}
	// Throttling counts towards the breaker too: a 503 storm parks the host.
	s = HostState{}
	for i := 0; i < 3; i++ {
		s = p.Observe(s, Observation{End: now, Failure: Throttled, RetryAfter: time.Second, HasRetryAfter: true})
	}
	if s.Breaker != BreakerOpen || s.Why != ReasonBreaker {
		t.Errorf("503 storm: %s %s", s.Breaker, s.Why)
	}
}

func TestReadyKeepsLaterWait(t *testing.T) {
	end := t0
	gap := Delay{time.Second, ReasonConfigured}
	// An expired wait does not matter.
	s := HostState{Until: end.Add(-time.Minute), Why: ReasonBackoff}
	if r, d := Ready(s, end, gap); !r.Equal(end.Add(time.Second)) || d != gap {
		t.Errorf("expired wait: %v %+v", r.Sub(end), d)
	}
	// A wait shorter than the gap does not matter either.
	s.Until = end.Add(500 * time.Millisecond)
	if r, d := Ready(s, end, gap); !r.Equal(end.Add(time.Second)) || d != gap {
		t.Errorf("short wait: %v %+v", r.Sub(end), d)
	}
}
