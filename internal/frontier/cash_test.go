package frontier

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

// storedTotal is the sum of cash and history over every stored URL
// record, which the stored OPIC total must equal.
func storedTotal(t *testing.T, f *Frontier) float64 {
	t.Helper()
	it, err := f.db.Scan([]byte{tagURL}, []byte{tagURL + 1})
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for ; it.Valid(); it.Next() {
		rec, err := decodeURLRecord(it.Value())
		if err != nil {
			t.Fatal(err)
		}
		sum += rec.cash + rec.history
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return sum
}

// near compares cash, which records keep as float32.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// TestUnsavedCash: cash that links bring to a queued URL without raising
// its band is not written to its record per link (cash.go), yet the URL
// shows it, its lease hands it on, Close writes it, and a crash loses
// only that cash, with the stored total still the sum of the stored
// records.
func TestUnsavedCash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		f := openRecrawl(t, dir, false, time.Minute)
		ctx := t.Context()
		withCash := func(l crawl.Link, cash float64) crawl.Link {
			l.Depth, l.Cash = 1, cash
			return l
		}
		f.Add(ctx, []crawl.Link{withCash(link("a", 0), 1), withCash(link("a", 1), 0.5), withCash(link("a", 2), 0.5)})
		for range 4 {
			// Each a tenth of what 1 holds: its band stays.
			f.Add(ctx, []crawl.Link{withCash(link("a", 1), 0.01)})
		}
		uk := urlKey("a", link("a", 1).Key)
		stored, err := f.urlRecord("a", link("a", 1).Key)
		if err != nil {
			t.Fatal(err)
		}
		if !near(stored.cash, 0.5) {
			t.Errorf("stored cash of 1 = %v, want 0.5: links that leave its band are not written one by one", stored.cash)
		}
		if info, _, _ := f.URL("a", link("a", 1).Key); !near(info.Cash, 0.54) {
			t.Errorf("URL(1).Cash = %v, want 0.54 (stored and unsaved)", info.Cash)
		}
		if !near(f.unsaved.get(uk), 0.04) {
			t.Errorf("unsaved cash of 1 = %v, want 0.04", f.unsaved.get(uk))
		}

		// A new URL: a batch, with the counts record, is committed.
		f.Add(ctx, []crawl.Link{withCash(link("a", 9), 0.1)})
		// A crash after the last sync: the store closes without the
		// frontier's Close, as under kill -9.
		if err := f.db.Sync(); err != nil {
			t.Fatal(err)
		}
		f.closed = true
		if err := f.db.Close(); err != nil {
			t.Fatal(err)
		}
		f = openRecrawl(t, dir, false, time.Minute)
		if s := storedTotal(t, f); !near(f.opic.total, s) || !near(s, 2.1) {
			t.Errorf("after a crash: stored total %v, records' sum %v; want both 2.1 (the unsaved 0.04 lost)", f.opic.total, s)
		}

		for range 4 {
			f.Add(ctx, []crawl.Link{withCash(link("a", 1), 0.01)})
		}
		// Close writes what is unsaved.
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		f = openRecrawl(t, dir, false, time.Minute)
		defer f.Close()
		if info, _, _ := f.URL("a", link("a", 1).Key); !near(info.Cash, 0.54) {
			t.Errorf("after Close and reopening: cash of 1 = %v, want 0.54", info.Cash)
		}
		if s := storedTotal(t, f); !near(f.opic.total, s) || !near(s, 2.14) {
			t.Errorf("after Close: stored total %v, records' sum %v; want 2.14", f.opic.total, s)
		}

		// Unsaved cash older than maxUnsavedAge is written with the next Add.
		f.Add(ctx, []crawl.Link{withCash(link("a", 2), 0.01)})
		time.Sleep(maxUnsavedAge)
		f.Add(ctx, []crawl.Link{withCash(link("a", 3), 0.01)})
		if stored, _ := f.urlRecord("a", link("a", 2).Key); !near(stored.cash, 0.51) || f.unsaved.pending() != 0 {
			t.Errorf("after %v: stored cash of 2 = %v, %d unsaved; want 0.51, none", maxUnsavedAge, stored.cash, f.unsaved.pending())
		}

		// The lease hands on the unsaved cash, and its completion folds it
		// into the record.
		f.Add(ctx, []crawl.Link{withCash(link("a", 2), 0.01)})
		var l crawl.Lease
		for {
			l = mustNext(t, f)
			if l.Task.Key == link("a", 2).Key {
				break
			}
			done(t, f, l, 1)
		}
		if !near(l.Task.Cash, 0.52) {
			t.Errorf("lease of 2 hands on %v, want 0.52 (stored 0.51, unsaved 0.01)", l.Task.Cash)
		}
		done(t, f, l, 1)
		if stored, _ := f.urlRecord("a", link("a", 2).Key); !near(stored.cash, 0) || !near(stored.history, 1.52) || f.unsaved.pending() != 0 {
			t.Errorf("2 fetched: cash %v, history %v, %d unsaved; want 0, 1.52 (its cash and the grant), none", stored.cash, stored.history, f.unsaved.pending())
		}
		if s := storedTotal(t, f); !near(f.opic.total-f.unsaved.sum, s) {
			t.Errorf("stored total %v, records' sum %v", f.opic.total-f.unsaved.sum, s)
		}
	})
}
