package frontier

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

// TestFailedAddKeepsStoreState: an Add whose commit fails leaves the
// kept records and the unsaved cash as they were before it (the store
// has none of its batch), whether the batch raised a URL with unsaved
// cash by a band (its record kept, clean, with the delta folded in),
// added to another's unsaved cash, queued a new URL, or saved every
// delta (a save due). After the store writes again, Close saves the
// deltas from before the failure, not the failed links' cash: each
// URL's stored cash and the stored total are what they would be had
// the failed Add never run.
func TestFailedAddKeepsStoreState(t *testing.T) {
	for _, save := range []bool{false, true} {
		name := "no save"
		if save {
			name = "save due"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { testFailedAdd(t, save) })
		})
	}
}

func testFailedAdd(t *testing.T, save bool) {
	dir := t.TempDir()
	f := openRecrawl(t, dir, false, time.Minute)
	defer func() { f.Close() }() // (the one open when the test ends)
	ctx := t.Context()
	withCash := func(n int, cash float64) crawl.Link {
		l := link("a", n)
		l.Depth, l.Cash = 1, cash
		return l
	}
	var links []crawl.Link
	for i := range 20 {
		links = append(links, withCash(i, 0.01))
	}
	if _, err := f.Add(ctx, links); err != nil {
		t.Fatal(err)
	}
	// URLs 0 and 1 take unsaved cash: their records are kept, dirty.
	if _, err := f.Add(ctx, []crawl.Link{withCash(0, 0.001), withCash(1, 0.0005)}); err != nil {
		t.Fatal(err)
	}
	if f.unsaved.pending() != 2 {
		t.Fatalf("%d URLs with unsaved cash, want 2", f.unsaved.pending())
	}
	stored0, _ := f.urlRecord("a", link("a", 0).Key)
	stored1, _ := f.urlRecord("a", link("a", 1).Key)
	before := snapshotUnsaved(f)
	total := f.opic.total
	if save {
		time.Sleep(maxUnsavedAge) // the next Add saves every delta
	}

	// URL 0 rises a band (a move, its record kept clean with its delta
	// folded in), URL 1 takes more unsaved cash, URL 30 is new: and the
	// commit fails.
	f.mu.Lock()
	f.failCommit = errors.New("injected")
	f.mu.Unlock()
	if _, err := f.Add(ctx, []crawl.Link{withCash(0, 5), withCash(1, 0.0002), withCash(30, 0.5)}); err == nil {
		t.Fatal("Add succeeded with a failing commit")
	}
	f.mu.Lock()
	f.failCommit = nil
	f.mu.Unlock()

	if d := unsavedDiff(before, snapshotUnsaved(f)); d != "" {
		t.Errorf("unsaved state after the failed Add, against before it:\n%s", d)
	}
	if f.opic.total != total {
		t.Errorf("OPIC total %v after the failed Add, want %v as before", f.opic.total, total)
	}
	checkKept(t, f)

	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = openRecrawl(t, dir, false, time.Minute)
	for _, c := range []struct {
		n    int
		want float64
	}{{0, stored0.cash + 0.001}, {1, stored1.cash + 0.0005}} {
		rec, err := f.urlRecord("a", link("a", c.n).Key)
		if err != nil {
			t.Fatal(err)
		}
		if !near(rec.cash, c.want) {
			t.Errorf("URL %d: stored cash %v after Close, want %v (its unsaved cash before the failed Add)", c.n, rec.cash, c.want)
		}
	}
	if rec, err := f.urlRecord("a", link("a", 30).Key); err != nil || rec.state != 0 {
		t.Errorf("URL 30 of the failed Add: stored in state %v (%v)", rec.state, err)
	}
	if s := storedTotal(t, f); !near(f.opic.total, s) || !near(s, total) {
		t.Errorf("after reopening: stored total %v, records' sum %v, want both %v", f.opic.total, s, total)
	}
}

// unsavedState is the unsaved cash's entries, each printed, and its
// totals.
type unsavedState struct {
	entries map[string]string
	dirty   map[string]bool
	totals  string
}

func snapshotUnsaved(f *Frontier) unsavedState {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := &f.unsaved
	s := unsavedState{entries: map[string]string{}, dirty: map[string]bool{}}
	for k, e := range u.delta {
		s.entries[k] = fmt.Sprintf("delta %v dirty %v kept %v %x task %q", e.delta, e.dirty, e.hasRec, e.rec.encode(), e.task)
		s.dirty[k] = e.dirty
	}
	s.totals = fmt.Sprintf("sum %v, %d dirty, since %v", u.sum, u.dirty, u.since)
	return s
}

// unsavedDiff says how after differs from before, the state before a
// failed Add, beyond clean entries removed (a cache: dropping one is
// always safe); "" when it does not.
func unsavedDiff(before, after unsavedState) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(after.entries)) {
		if before.entries[k] != after.entries[k] {
			fmt.Fprintf(&b, "%q: %s, before: %s\n", k, after.entries[k], before.entries[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(before.entries)) {
		if _, ok := after.entries[k]; !ok && before.dirty[k] {
			fmt.Fprintf(&b, "%q: gone, before: %s\n", k, before.entries[k])
		}
	}
	if before.totals != after.totals {
		fmt.Fprintf(&b, "%s, before: %s\n", after.totals, before.totals)
	}
	return b.String()
}
