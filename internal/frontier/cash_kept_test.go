package frontier

import (
	"bytes"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

// TestUnsavedCashKeptAfterSave: a save writes a URL's kept record and
// keeps it, clean, so that the next link to it is answered from memory;
// the kept record is the stored one, takes the next link's cash as
// unsaved again, and goes when the URL is fetched (a later link finds
// it finished, not queued again).
func TestUnsavedCashKeptAfterSave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openRecrawl(t, t.TempDir(), false, time.Minute)
		defer f.Close()
		ctx := t.Context()
		withCash := func(l crawl.Link, cash float64) crawl.Link {
			l.Depth, l.Cash = 1, cash
			return l
		}
		key := link("a", 1).Key
		uk := urlKey("a", key)
		f.Add(ctx, []crawl.Link{withCash(link("a", 0), 1), withCash(link("a", 1), 0.5)})
		f.Add(ctx, []crawl.Link{withCash(link("a", 1), 0.01)})
		if f.unsaved.pending() != 1 {
			t.Fatalf("%d URLs with unsaved cash, want 1", f.unsaved.pending())
		}
		time.Sleep(maxUnsavedAge)
		f.Add(ctx, []crawl.Link{withCash(link("a", 0), 0.01)}) // saves (a known URL: the average stays)

		stored, err := f.urlRecord("a", key)
		if err != nil {
			t.Fatal(err)
		}
		if !near(stored.cash, 0.51) || f.unsaved.pending() != 0 {
			t.Fatalf("after the save: stored cash %v, %d unsaved; want 0.51, none", stored.cash, f.unsaved.pending())
		}
		kept, ok := f.unsaved.record(uk)
		if !ok {
			t.Fatal("the saved URL's record is not kept")
		}
		if !bytes.Equal(kept.encode(), stored.encode()) {
			t.Errorf("kept record %+v, stored %+v", kept, stored)
		}
		if s := storedTotal(t, f); !near(f.opic.total-f.unsaved.sum, s) {
			t.Errorf("stored total %v, records' sum %v", f.opic.total-f.unsaved.sum, s)
		}

		// The next link's cash is unsaved again, on top of the stored 0.51.
		f.Add(ctx, []crawl.Link{withCash(link("a", 1), 0.01)})
		if info, _, _ := f.URL("a", key); !near(info.Cash, 0.52) || f.unsaved.pending() != 1 {
			t.Errorf("URL(1).Cash = %v, %d unsaved; want 0.52, 1", info.Cash, f.unsaved.pending())
		}

		// Fetched: the kept record goes, and a later link finds the URL
		// finished.
		for {
			l := mustNext(t, f)
			done(t, f, l, 1)
			if l.Task.Key == key {
				break
			}
		}
		if _, ok := f.unsaved.record(uk); ok {
			t.Error("the fetched URL's record is still kept")
		}
		f.Add(ctx, []crawl.Link{withCash(link("a", 1), 0.01)})
		if rec, err := f.urlRecord("a", key); err != nil || rec.state != urlDone {
			t.Errorf("after a link to the fetched URL: state %v (%v), want done", rec.state, err)
		}
		if s := storedTotal(t, f); !near(f.opic.total-f.unsaved.sum, s) {
			t.Errorf("stored total %v, records' sum %v", f.opic.total-f.unsaved.sum, s)
		}
	})
}
