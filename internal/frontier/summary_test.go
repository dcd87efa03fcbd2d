package frontier

import (
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// TestReadSummary: what a closed store says equals what the frontier
// said, read as often as one likes.
func TestReadSummary(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(Options{Dir: dir, Policy: politeness.Policy{Delay: time.Nanosecond}})
	if err != nil {
		t.Fatal(err)
	}
	f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2), link("b", 1), link("c", 1)})
	for range 2 {
		l := mustNext(t, f)
		now := time.Now()
		if err := f.Complete(t.Context(), l, crawl.Outcome{Requested: true, Status: 200, Start: now, End: now}); err != nil {
			t.Fatal(err)
		}
	}
	st := f.Stats()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := Summary{Seen: int64(st.Seen), Queued: int64(st.Queued), Hosts: int64(st.Hosts), Fetched: 2}
		if got != want {
			t.Errorf("ReadSummary = %+v, want %+v", got, want)
		}
	}
}
