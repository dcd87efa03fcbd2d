package frontier

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

func openRecrawl(t testing.TB, dir string, recrawl bool) *Frontier {
	t.Helper()
	f, err := Open(Options{Dir: dir, Policy: politeness.Policy{Delay: time.Second}, Recrawl: recrawl, Rand: func() float64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRevisitDue: a fetched URL with a next visit is leased again at that
// time, not before, with its validators and capture for a conditional
// request; the due-time index survives a restart; meanwhile Next waits
// rather than reporting the crawl exhausted.
func TestRevisitDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		f := openRecrawl(t, dir, true)
		ctx := t.Context()
		f.Add(ctx, []crawl.Link{link("a", 1)})
		l := mustNext(t, f)
		end := time.Now()
		capture := &crawl.Capture{File: "x.warc.gz", Offset: 1, Length: 2, RecordID: "<urn:uuid:1>", Date: end}
		valid := crawl.Validators{ETag: `"v1"`}
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: end, Status: 200,
			Capture: capture, Validators: valid, NextVisit: end.Add(time.Hour)})
		if s := f.Stats(); s.Queued != 0 {
			t.Fatalf("queued after the fetch = %d", s.Queued)
		}
		f.Close()

		f = openRecrawl(t, dir, true)
		defer f.Close()
		l = mustNext(t, f) // waits for the due time: no ErrExhausted
		if got := time.Since(end); got != time.Hour {
			t.Errorf("revisit leased %v after the fetch, want 1h", got)
		}
		if l.Task.Key != link("a", 1).Key || l.Task.Validators != valid || l.Task.Prior == nil || l.Task.Prior.RecordID != capture.RecordID {
			t.Errorf("revisit task = %+v (prior %+v)", l.Task, l.Task.Prior)
		}
		f.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now(), Status: 304})
		if _, err := f.Next(ctx); !errors.Is(err, crawl.ErrExhausted) {
			t.Errorf("Next with nothing queued or due = %v, want ErrExhausted", err)
		}
	})
}

// TestRevisitWakesWaitingNext: a revisit that falls due while Next waits
// for a host's politeness gap is promoted in time.
func TestRevisitWakesWaitingNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openRecrawl(t, t.TempDir(), true)
		defer f.Close()
		ctx := t.Context()
		f.Add(ctx, []crawl.Link{link("a", 1), link("b", 1), link("b", 2)})
		la := mustNext(t, f)
		lb := mustNext(t, f)
		if la.Task.Host != "a" {
			la, lb = lb, la
		}
		now := time.Now()
		f.Complete(ctx, la, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: now, NextVisit: now.Add(2 * time.Second)})
		// b's next URL waits for a long Crawl-delay: 10 minutes.
		f.Complete(ctx, lb, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: now,
			Robots: &crawl.RobotsState{Status: crawl.RobotsMissing, FetchedAt: now}})
		f.mu.Lock()
		f.hosts["b"].rec.readyAt = now.Add(10 * time.Minute)
		f.schedule(f.hosts["b"])
		f.mu.Unlock()
		l := mustNext(t, f)
		if l.Task.Host != "a" || time.Since(now) != 2*time.Second {
			t.Errorf("leased %s after %v, want the revisit of a after 2s", l.Task.Host, time.Since(now))
		}
	})
}

// TestNoRecrawlIgnoresNextVisit: without Recrawl a crawl is one pass.
func TestNoRecrawlIgnoresNextVisit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openRecrawl(t, t.TempDir(), false)
		defer f.Close()
		f.Add(t.Context(), []crawl.Link{link("a", 1)})
		l := mustNext(t, f)
		f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now(), NextVisit: time.Now().Add(time.Minute)})
		if _, err := f.Next(t.Context()); !errors.Is(err, crawl.ErrExhausted) {
			t.Errorf("Next = %v, want ErrExhausted", err)
		}
	})
}
