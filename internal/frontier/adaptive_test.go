package frontier

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// adaptivePolicy: 1 s delay, 2 s first backoff, breaker after 3 failures
// for 1 m.
func adaptivePolicy() politeness.Policy {
	return politeness.Policy{
		Delay: time.Second, BackoffBase: 2 * time.Second, BackoffMax: time.Minute,
		BreakerThreshold: 3, BreakerOpenFor: time.Minute, BreakerOpenMax: 10 * time.Minute,
		LatencyFactor: 2, MaxLatencyDelay: 30 * time.Second, RetryAfterCap: time.Hour,
	}
}

func openAt(t testing.TB, dir string, p politeness.Policy) *Frontier {
	t.Helper()
	// Jitter 0: backoffs are exactly half their nominal value.
	f, err := Open(Options{Dir: dir, Policy: p, Rand: func() float64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func hostInfo(t *testing.T, f *Frontier, name string) crawl.HostInfo {
	t.Helper()
	info, ok, err := f.Host(name)
	if err != nil || !ok {
		t.Fatalf("Host(%q) = %v, %v", name, ok, err)
	}
	return info
}

// TestRetryAfterDelaysHost: a 429 with Retry-After keeps the host's next
// lease until it expired, the wait survives a restart, and Host says why.
func TestRetryAfterDelaysHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		f := openAt(t, dir, adaptivePolicy())
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2)})
		l := mustNext(t, f)
		end := time.Now()
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Retry, Requested: true, Start: end, End: end,
			Status: 429, Health: politeness.Throttled, RetryAfter: 90 * time.Second, HasRetryAfter: true})
		info := hostInfo(t, f, "a")
		if info.Waiting != politeness.ReasonRetryAfter || !info.NextReady.Equal(end.Add(90*time.Second)) || info.ErrorStreak != 1 {
			t.Errorf("Host = %+v, want waiting for retry-after until +90s", info)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		f = openAt(t, dir, adaptivePolicy())
		defer f.Close()
		mustNext(t, f)
		if got := time.Since(end); got != 90*time.Second {
			t.Errorf("next lease %v after the 429, want 90s", got)
		}
	})
}

// TestBackoffAndBreaker: transient failures back off exponentially, the
// third opens the breaker for a minute, the lease after it is a probe, and
// a good answer closes it.
func TestBackoffAndBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openAt(t, t.TempDir(), adaptivePolicy())
		defer f.Close()
		for i := range 10 {
			f.Add(t.Context(), []crawl.Link{link("a", i)})
		}
		fail := func() time.Time {
			l := mustNext(t, f)
			end := time.Now()
			f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: end, End: end,
				Class: crawl.ClassTransient, Health: politeness.Transient})
			return end
		}
		end := fail()
		start := end
		// Backoff 2 s with zero jitter is 1 s: the configured delay (1 s) is as long.
		end = fail()
		if got := end.Sub(start); got != time.Second {
			t.Errorf("after failure 1: next request after %v, want 1s", got)
		}
		start = end
		end = fail() // failure 3: the breaker opens
		if got := end.Sub(start); got != 2*time.Second {
			t.Errorf("after failure 2: next request after %v, want 2s (4s backoff, half by jitter 0)", got)
		}
		info := hostInfo(t, f, "a")
		if info.Breaker != politeness.BreakerOpen || info.Waiting != politeness.ReasonBreaker || info.ErrorStreak != 3 {
			t.Fatalf("after 3 failures: %+v", info)
		}
		l := mustNext(t, f)
		if got := time.Since(end); got != time.Minute {
			t.Errorf("probe came %v after the breaker opened, want 1m", got)
		}
		if info := hostInfo(t, f, "a"); info.Breaker != politeness.BreakerHalfOpen || !info.Leased {
			t.Errorf("during the probe: %+v", info)
		}
		now := time.Now()
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: now, FirstByte: now, End: now, Status: 200})
		info = hostInfo(t, f, "a")
		if info.Breaker != politeness.BreakerClosed || info.ErrorStreak != 0 || info.Waiting != politeness.ReasonConfigured {
			t.Errorf("after a good probe: %+v", info)
		}
		mustNext(t, f)
		if got := time.Since(now); got != time.Second {
			t.Errorf("after the breaker closed, next request after %v, want 1s", got)
		}
	})
}

// TestLatencyStretchesGap: a host answering in 3 s gets 6 s between
// requests (LatencyFactor 2), and Host reports the latency as the reason.
func TestLatencyStretchesGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openAt(t, t.TempDir(), adaptivePolicy())
		defer f.Close()
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2)})
		l := mustNext(t, f)
		start := time.Now()
		time.Sleep(3 * time.Second)
		end := time.Now()
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: start, FirstByte: end, End: end, Status: 200})
		info := hostInfo(t, f, "a")
		if info.Delay != (politeness.Delay{Gap: 6 * time.Second, Reason: politeness.ReasonLatency}) || info.Latency != 3*time.Second {
			t.Errorf("Host = %+v, want a 6s gap for latency", info)
		}
		mustNext(t, f)
		if got := time.Since(end); got != 6*time.Second {
			t.Errorf("next request %v after a 3 s answer, want 6s", got)
		}
	})
}

// TestValidatorsKept: a done URL's validators are stored with it, and a
// replay of it carries them.
func TestValidatorsKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openAt(t, t.TempDir(), adaptivePolicy())
		defer f.Close()
		ln := link("a", 1)
		ln.Depth = 3
		f.Add(t.Context(), []crawl.Link{ln})
		l := mustNext(t, f)
		v := crawl.Validators{ETag: `"v1"`, LastModified: "Sat, 21 Nov 2026 10:00:00 GMT"}
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now(), Status: 200,
			Capture: &crawl.Capture{File: "x.warc.gz", Offset: 0, Length: 10}, Validators: v})
		rec, err := f.urlRecord("a", ln.Key)
		if err != nil || rec.valid != v {
			t.Fatalf("stored validators = %+v, %v; want %+v", rec.valid, err, v)
		}
	})
}

// TestHostUnknownAndIdle: Host answers for idle hosts from the store and
// says ok=false for hosts never seen.
func TestHostUnknownAndIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openAt(t, t.TempDir(), adaptivePolicy())
		defer f.Close()
		if _, ok, err := f.Host("nowhere"); ok || err != nil {
			t.Errorf("Host(unknown) = %v, %v", ok, err)
		}
		f.Add(t.Context(), []crawl.Link{link("a", 1)})
		l := mustNext(t, f)
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now(), Status: 200,
			Robots: &crawl.RobotsState{Status: crawl.RobotsMissing, FetchedAt: time.Now()}})
		info := hostInfo(t, f, "a")
		if info.Queued != 0 || info.Fetched != 1 || info.Robots != crawl.RobotsMissing || info.Leased {
			t.Errorf("idle host = %+v", info)
		}
	})
}
