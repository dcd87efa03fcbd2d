package frontier

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/robots"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func link(host string, n int) crawl.Link {
	u := fmt.Sprintf("http://%s/p/%d", host, n)
	return crawl.Link{URL: u, Key: u, Host: host}
}

// openTest opens a frontier in a fresh directory, closed when the test ends.
func openTest(t testing.TB, p politeness.Policy) *Frontier {
	t.Helper()
	f, err := Open(Options{Dir: t.TempDir(), Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

func newTestFrontier(t testing.TB, delay time.Duration) *Frontier {
	return openTest(t, politeness.Policy{Delay: delay})
}

func mustNext(t *testing.T, f *Frontier) crawl.Lease {
	t.Helper()
	l, err := f.Next(t.Context())
	if err != nil {
		t.Fatalf("Next() error = %v", err)
	}
	return l
}

func TestAddIsIdempotent(t *testing.T) {
	f := newTestFrontier(t, time.Second)
	ctx := t.Context()
	n, _ := f.Add(ctx, []crawl.Link{link("a", 1), link("a", 2), link("a", 1)})
	if n != 2 {
		t.Errorf("Add(a1, a2, a1) = %d, want 2", n)
	}
	n, _ = f.Add(ctx, []crawl.Link{link("a", 2)})
	if n != 0 {
		t.Errorf("Add(seen) = %d, want 0", n)
	}
	if s := f.Stats(); s.Queued != 2 || s.Seen != 2 || s.Hosts != 1 {
		t.Errorf("Stats() = %+v, want 2 queued, 2 seen, 1 host", s)
	}
}

// TestOneLeasePerHost: while a host's lease is out, Next hands out other
// hosts, and blocks rather than hand out the same host twice.
func TestOneLeasePerHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newTestFrontier(t, time.Second)
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2), link("b", 1)})
		l1 := mustNext(t, f)
		l2 := mustNext(t, f)
		if l1.Task.Host == l2.Task.Host {
			t.Fatalf("two leases for host %s at once", l1.Task.Host)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		if l, err := f.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Next() with every host leased = %+v, %v; want to block until the deadline", l.Task, err)
		}
	})
}

// TestReadyTime: the next lease for a host comes no earlier than the end of
// the previous exchange plus the delay, and a robots Crawl-delay above the
// delay wins, up to the cap.
func TestReadyTime(t *testing.T) {
	tests := []struct {
		name   string
		robots string
		want   time.Duration
	}{
		{"delay", "", 2 * time.Second},
		{"crawl-delay", "User-agent: *\nCrawl-delay: 5\n", 5 * time.Second},
		{"capped", "User-agent: *\nCrawl-delay: 3600\n", 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := openTest(t, politeness.Policy{Delay: 2 * time.Second, CrawlDelayCap: 10 * time.Second})
				f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2)})
				l := mustNext(t, f)
				end := time.Now().Add(300 * time.Millisecond)
				time.Sleep(300 * time.Millisecond)
				out := crawl.Outcome{Disposition: crawl.Done, Requested: true, End: end}
				if tt.robots != "" {
					out.Robots = &crawl.RobotsState{Status: crawl.RobotsOK, Rules: robots.Parse([]byte(tt.robots)).Group("godwit")}
				}
				f.Complete(t.Context(), l, out)
				mustNext(t, f)
				if got := time.Since(end); got != tt.want {
					t.Errorf("second lease %v after the first exchange ended, want %v", got, tt.want)
				}
			})
		})
	}
}

// TestReopenWaitsOneGap: a frontier opened on an existing crawl leases
// no host before one gap after it opened, though the store says the host
// is ready: the process before may have contacted it as it died, its
// reservation not yet on disk (leases are not fsynced).
func TestReopenWaitsOneGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		p := politeness.Policy{Delay: 2 * time.Second}
		f, err := Open(Options{Dir: dir, Policy: p})
		if err != nil {
			t.Fatal(err)
		}
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("b", 1)})
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute) // every host long ready
		if f, err = Open(Options{Dir: dir, Policy: p}); err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		start := time.Now()
		for range 2 {
			mustNext(t, f)
			if got := time.Since(start); got != 2*time.Second {
				t.Errorf("a host leased %v after the reopen, want one gap (2s)", got)
			}
		}
	})
}

// TestNoRequestKeepsReadyTime: an outcome that sent no request (robots.txt
// disallowed the URL) does not delay the host.
func TestNoRequestKeepsReadyTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newTestFrontier(t, time.Minute)
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2)})
		start := time.Now()
		l := mustNext(t, f)
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Class: crawl.ClassPolicy})
		mustNext(t, f)
		if got := time.Since(start); got != 0 {
			t.Errorf("host delayed %v after an outcome without a request", got)
		}
	})
}

func TestUnavailableRobotsBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openTest(t, politeness.Policy{Delay: time.Second, RobotsBackoff: time.Minute})
		f.Add(t.Context(), []crawl.Link{link("a", 1)})
		l := mustNext(t, f)
		now := time.Now()
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Requeue, Requested: true, End: now,
			Robots: &crawl.RobotsState{Status: crawl.RobotsUnavailable, Failures: 2, FetchedAt: now}})
		l = mustNext(t, f)
		if got := time.Since(now); got != 2*time.Minute {
			t.Errorf("robots.txt retried after %v, want 2m (second failure)", got)
		}
		if l.Robots.Status != crawl.RobotsUnavailable || l.Task.Key != link("a", 1).Key {
			t.Errorf("lease after requeue = %+v, want the same task with the stored robots state", l)
		}
	})
}

func TestDispositions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newTestFrontier(t, time.Second)
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2)})
		l := mustNext(t, f) // a1
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Requeue})
		if l = mustNext(t, f); l.Task.Key != link("a", 1).Key {
			t.Fatalf("after Requeue got %s, want a1 again at the head", l.Task.Key)
		}
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Retry})
		if l = mustNext(t, f); l.Task.Key != link("a", 2).Key {
			t.Fatalf("after Retry got %s, want a2 (a1 goes to the back)", l.Task.Key)
		}
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done})
		if l = mustNext(t, f); l.Task.Key != link("a", 1).Key || l.Task.Attempt != 1 {
			t.Fatalf("got %s attempt %d, want a1 attempt 1", l.Task.Key, l.Task.Attempt)
		}
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done})
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Requeue}) // twice: a no-op
		if _, err := f.Next(t.Context()); !errors.Is(err, crawl.ErrExhausted) {
			t.Fatalf("Next() = %v, want ErrExhausted", err)
		}
	})
}

// TestExhaustedWaitsForLeases: with nothing queued but a lease out, Next
// waits, because the lease may still discover links.
func TestExhaustedWaitsForLeases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newTestFrontier(t, time.Second)
		f.Add(t.Context(), []crawl.Link{link("a", 1)})
		l := mustNext(t, f)
		got := make(chan crawl.Lease, 1)
		go func() {
			l2, err := f.Next(t.Context())
			if err != nil {
				t.Errorf("Next() error = %v", err)
			}
			got <- l2
		}()
		synctest.Wait()
		select {
		case l2 := <-got:
			t.Fatalf("Next() returned %+v while the only host was leased", l2.Task)
		default:
		}
		f.Add(t.Context(), []crawl.Link{link("b", 1)})
		if l2 := <-got; l2.Task.Host != "b" {
			t.Errorf("woken Next() leased %s, want b", l2.Task.Host)
		}
		f.Complete(t.Context(), l, crawl.Outcome{})
	})
}

// TestShorterPath: a URL found again by a shorter path takes the smaller
// depth; if it was already fetched, its capture is replayed, never fetched
// twice.
func TestShorterPath(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		f := openTest(t, politeness.Policy{Delay: time.Second})
		deep := func(n, depth int) crawl.Link { l := link("a", n); l.Depth = depth; return l }

		// Queued: updated in place.
		f.Add(ctx, []crawl.Link{deep(1, 5)})
		f.Add(ctx, []crawl.Link{deep(1, 2)})
		l := mustNext(t, f)
		if l.Task.Depth != 2 || l.Task.Replay != nil {
			t.Fatalf("queued URL found shallower: lease depth %d replay %v, want 2, nil", l.Task.Depth, l.Task.Replay)
		}
		// Leased: replayed once the lease completes with a capture.
		f.Add(ctx, []crawl.Link{deep(1, 1)})
		capture := &crawl.Capture{File: "x.warc.gz", Offset: 42}
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Capture: capture})
		l = mustNext(t, f)
		if l.Task.Depth != 1 || l.Task.Replay == nil || *l.Task.Replay != *capture {
			t.Fatalf("leased URL found shallower: lease %+v, want a replay of %+v at depth 1", l.Task, capture)
		}
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Capture: l.Task.Replay})
		// Done: replayed.
		f.Add(ctx, []crawl.Link{deep(1, 0)})
		l = mustNext(t, f)
		if l.Task.Depth != 0 || l.Task.Replay == nil {
			t.Fatalf("fetched URL found shallower: lease %+v, want a replay at depth 0", l.Task)
		}
		// A capture the worker cannot read (another node's WARC file):
		// the URL is fetched at the smaller depth instead, as a first
		// attempt, and the new capture is the one kept.
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Retry})
		l = mustNext(t, f)
		if l.Task.Depth != 0 || l.Task.Replay != nil || l.Task.Attempt != 0 {
			t.Fatalf("unreadable replay: lease depth %d replay %v attempt %d, want a fetch at depth 0, attempt 0", l.Task.Depth, l.Task.Replay, l.Task.Attempt)
		}
		refetched := &crawl.Capture{File: "y.warc.gz", Offset: 7}
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Status: 200, Capture: refetched})
		if rec, err := f.urlRecord("a", l.Task.Key); err != nil || rec.capture == nil || *rec.capture != *refetched {
			t.Fatalf("after the fetch that replaced a replay: capture %+v (%v), want %+v", rec.capture, err, refetched)
		}
		// Deeper or equal: nothing.
		if n, _ := f.Add(ctx, []crawl.Link{deep(1, 0), deep(1, 3)}); n != 0 {
			t.Errorf("Add(seen) = %d", n)
		}
		// Done without a capture (failed fetch): nothing to replay.
		f.Add(ctx, []crawl.Link{deep(2, 3)})
		l = mustNext(t, f)
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done})
		f.Add(ctx, []crawl.Link{deep(2, 1)})
		if _, err := f.Next(ctx); !errors.Is(err, crawl.ErrExhausted) {
			t.Fatalf("Next() = %v, want ErrExhausted: nothing to replay", err)
		}
	})
}

// TestNextHonoursEndedContext: a ready host does not make Next ignore an
// ended context (a stopped crawl must stop leasing).
func TestNextHonoursEndedContext(t *testing.T) {
	f := newTestFrontier(t, time.Second)
	f.Add(t.Context(), []crawl.Link{link("a", 1)})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if l, err := f.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next(ended ctx) = %+v, %v; want context.Canceled", l.Task, err)
	}
}

// TestShorterPathWhileLeasedPersists: a URL found by a shorter path while
// its lease is out is stored at the new depth, so a restart before the
// lease completes fetches it at that depth.
func TestShorterPathWhileLeasedPersists(t *testing.T) {
	dir := t.TempDir()
	open := func() *Frontier {
		f, err := Open(Options{Dir: dir, Policy: politeness.Policy{Delay: time.Nanosecond}, LeaseTimeout: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := open()
	l := link("a", 1)
	l.Depth = 4
	f.Add(t.Context(), []crawl.Link{l})
	mustNext(t, f)
	l.Depth = 1
	f.Add(t.Context(), []crawl.Link{l})
	if err := f.Close(); err != nil { // the lease is lost, as in a crash
		t.Fatal(err)
	}
	f = open()
	defer f.Close()
	time.Sleep(time.Millisecond) // past the reservation
	if got := mustNext(t, f); got.Task.Depth != 1 {
		t.Errorf("after restart the URL is leased at depth %d, want 1", got.Task.Depth)
	}
}
