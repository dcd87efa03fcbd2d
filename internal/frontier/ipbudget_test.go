package frontier

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

// fakeBudget is a shared IP budget whose limits the test sets.
type fakeBudget struct {
	mu     sync.Mutex
	limit  map[string]int
	wanted map[string]int
	freed  map[string]int
}

func (b *fakeBudget) Limit(key string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limit[key]
}

func (b *fakeBudget) Want(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.wanted[key]++
}

func (b *fakeBudget) Freed(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.freed[key]++
}

func (b *fakeBudget) set(key string, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.limit[key] = n
}

func (b *fakeBudget) counts(key string) (wanted, freed int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.wanted[key], b.freed[key]
}

// TestIPBudgetShared: a shared budget (cluster mode) below the IP
// concurrency binds: the hosts of its address wait (and the budget is
// asked for more) while another address's host is leased; room given
// (IPRoom) lets the next one out, and each lease's end is told.
func TestIPBudgetShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openIP(t, time.Millisecond, 4, 0, map[string]string{
			"a": "10.0.0.1", "b": "10.0.0.1", "c": "10.0.0.1", "d": "10.0.0.2"})
		if n, on := f.IPConcurrency(); n != 4 || !on {
			t.Fatalf("IPConcurrency() = %d, %v; want 4, true", n, on)
		}
		b := &fakeBudget{limit: map[string]int{"10.0.0.1": 1, "10.0.0.2": 4}, wanted: map[string]int{}, freed: map[string]int{}}
		f.SetIPBudget(b)
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("b", 1), link("c", 1), link("d", 1)})
		l1 := mustNext(t, f)
		l2 := mustNext(t, f)
		if l1.Task.Host == "d" || l2.Task.Host != "d" {
			t.Fatalf("leased %s then %s, want one of a, b, c then d", l1.Task.Host, l2.Task.Host)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		if l, err := f.Next(ctx); err == nil {
			t.Fatalf("leased %s beyond the shared budget of 1 while %s is out", l.Task.Host, l1.Task.Host)
		}
		cancel()
		if w, _ := b.counts("10.0.0.1"); w == 0 {
			t.Error("hosts held back by the shared budget, yet it was not asked for more")
		}
		if in, used := f.IPUse("10.0.0.1"); in != 1 || !used {
			t.Errorf("IPUse = %d, %v; want 1, true", in, used)
		}
		for _, g := range f.IPGroups() {
			// The view's limit is the shared budget's, below IPConcurrency.
			if g.Key == "10.0.0.1" && (g.Limit != 1 || !g.Full || g.InFlight != 1) {
				t.Errorf("IPGroups: %+v, want limit 1 (the shared budget's), full, 1 in flight", g)
			}
			if g.Key == "10.0.0.2" && (g.Limit != 4 || g.Full) {
				t.Errorf("IPGroups: %+v, want limit 4, not full", g)
			}
		}
		b.set("10.0.0.1", 2)
		f.IPRoom("10.0.0.1")
		l3 := mustNext(t, f)
		if l3.Task.Host == "d" || l3.Task.Host == l1.Task.Host {
			t.Fatalf("after room was given, leased %s; want another host of 10.0.0.1", l3.Task.Host)
		}
		f.Complete(t.Context(), l1, crawl.Outcome{Disposition: crawl.Done, Requested: true, End: time.Now()})
		if _, freed := b.counts("10.0.0.1"); freed != 1 {
			t.Errorf("the budget was told of %d ends, want 1", freed)
		}
	})
}
