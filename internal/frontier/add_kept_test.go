package frontier

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// TestAddKeepsWrittenRecords: the URL records Add writes for known URLs
// (a band rise, a shorter path) are kept in memory, with the value of
// the queue entry it wrote, so that the next link to the URL costs no
// store read; and every kept record and value is what the store holds
// (with the URL's unsaved cash), through a random
// mix of links with and without cash, shorter paths, leases and
// completions.
func TestAddKeepsWrittenRecords(t *testing.T) { testAddKeeps(t, 0, false) }

// TestAddKeepsWrittenRecordsFailing is the same with a bound of 24
// entries (so that they are evicted, saved and reused all the time) and
// one Add in 8 failing its commit: a failed Add leaves the entries as
// they were, and the stored records and total agree at the end.
func TestAddKeepsWrittenRecordsFailing(t *testing.T) { testAddKeeps(t, 24, true) }

func testAddKeeps(t *testing.T, bound int, fail bool) {
	f, err := Open(Options{Dir: t.TempDir(), Policy: politeness.Policy{Delay: time.Nanosecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.unsaved.max = bound
	ctx := t.Context()

	var links []crawl.Link
	for i := range 20 {
		l := link("h0", i)
		l.Depth, l.Cash = 2, 0.01
		links = append(links, l)
	}
	if _, err := f.Add(ctx, links); err != nil {
		t.Fatal(err)
	}
	nav := links[0]
	uk := urlKey("h0", nav.Key)
	before, err := f.urlRecord("h0", nav.Key)
	if err != nil {
		t.Fatal(err)
	}
	// A band rise moves the URL and writes its record: kept.
	nav.Cash = 5
	if _, err := f.Add(ctx, []crawl.Link{nav}); err != nil {
		t.Fatal(err)
	}
	after, err := f.urlRecord("h0", nav.Key)
	if err != nil {
		t.Fatal(err)
	}
	if after.prio >= before.prio {
		t.Fatalf("band %d → %d: the link did not raise it", before.prio, after.prio)
	}
	if rec, ok := f.unsaved.record(uk); !ok || rec.prio != after.prio || !near(rec.cash, 5.01) {
		t.Fatalf("after a band rise: kept %v (band %d, cash %v), want kept in band %d with 5.01", ok, rec.prio, rec.cash, after.prio)
	}
	checkKept(t, f)

	rng := rand.New(rand.NewPCG(27, 1))
	leases := []crawl.Lease{}
	for step := range 600 {
		switch r := rng.IntN(10); {
		case r < 6:
			n := 1 + rng.IntN(12)
			links := make([]crawl.Link, n)
			for i := range links {
				l := link([]string{"h0", "h1", "h2", "h3"}[rng.IntN(4)], rng.IntN(60))
				l.Depth = 1 + rng.IntN(5)
				l.Cash = []float64{0, 0.001, 0.05, 2}[rng.IntN(4)]
				links[i] = l
			}
			if fail && rng.IntN(8) == 0 {
				before, total := snapshotUnsaved(f), f.opic.total
				f.mu.Lock()
				f.failCommit = errors.New("injected")
				f.mu.Unlock()
				_, err := f.Add(ctx, links)
				f.mu.Lock()
				f.failCommit = nil
				f.mu.Unlock()
				// (An Add whose links change nothing commits nothing.)
				if err == nil {
					break
				}
				if d := unsavedDiff(before, snapshotUnsaved(f)); d != "" || f.opic.total != total {
					t.Fatalf("step %d: after a failed Add, against before it: OPIC total %v, was %v\n%s", step, f.opic.total, total, d)
				}
				break
			}
			if _, err := f.Add(ctx, links); err != nil {
				t.Fatal(err)
			}
		case r < 8:
			if f.Stats().Queued == 0 {
				continue
			}
			// Every host with queued URLs may be leased already:
			// then Next waits, and the step leases nothing.
			lctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			l, err := f.Next(lctx)
			cancel()
			if errors.Is(err, context.DeadlineExceeded) {
				continue
			}
			if err != nil {
				t.Fatalf("step %d: Next: %v", step, err)
			}
			leases = append(leases, l)
		default:
			if len(leases) == 0 {
				continue
			}
			i := rng.IntN(len(leases))
			done(t, f, leases[i], uint64(step))
			leases = append(leases[:i], leases[i+1:]...)
		}
		checkKept(t, f)
	}
	for _, l := range leases {
		done(t, f, l, 1)
	}
	checkKept(t, f)
	// (Records store cash as float32: the sums agree to its precision.)
	if s, want := storedTotal(t, f), f.opic.total-f.unsaved.sum; math.Abs(s-want) > 1e-6*want {
		t.Errorf("stored total %v, records' sum %v", f.opic.total-f.unsaved.sum, s)
	}
}

// checkKept fails unless every record kept with the unsaved cash is the
// stored record with the URL's unsaved delta.
func checkKept(t *testing.T, f *Frontier) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, e := range f.unsaved.delta {
		if !e.hasRec {
			continue
		}
		v, found, err := f.db.Get([]byte(k))
		if err != nil {
			t.Fatal(err)
		}
		if !found {
			t.Fatalf("%q: kept %+v, none stored", k, e.rec)
		}
		stored, err := decodeURLRecord(v)
		if err != nil {
			t.Fatal(err)
		}
		want := stored
		want.cash += e.delta
		got := e.rec
		if math.Abs(got.cash-want.cash) > 1e-6*max(1, want.cash) {
			t.Fatalf("%q: kept cash %v, stored %v + unsaved %v", k, got.cash, stored.cash, e.delta)
		}
		got.cash, want.cash = 0, 0
		if !bytes.Equal(got.encode(), want.encode()) {
			t.Fatalf("%q: kept %+v, stored %+v", k, e.rec, stored)
		}
		if e.task == nil {
			continue
		}
		// The queue entry's value kept with it is the stored one.
		task, err := decodeTask(e.task)
		if err != nil {
			t.Fatalf("%q: kept queue entry: %v", k, err)
		}
		if e.rec.state != urlQueued {
			t.Fatalf("%q: a queue entry kept for a record in state %v", k, e.rec.state)
		}
		v, found, err = f.db.Get(queueKey(task.Host, e.rec.prio, e.rec.seq))
		if err != nil {
			t.Fatal(err)
		}
		if !found || !bytes.Equal(v, e.task) {
			t.Fatalf("%q: kept queue entry %+v (band %d, seq %d), stored %v %q", k, task, e.rec.prio, e.rec.seq, found, v)
		}
	}
}
