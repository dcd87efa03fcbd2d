package frontier

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// wireBudget is a shared IP budget that lets every start go
// (IPStarts) and records the wire times it is told.
type wireBudget struct {
	fakeBudget
	tmu   sync.Mutex
	wrote []time.Time
}

func (b *wireBudget) StartAt(string, time.Time) (time.Time, bool) { return time.Time{}, true }
func (b *wireBudget) WantStart(string, time.Time)                 {}
func (b *wireBudget) Started(string)                              {}

func (b *wireBudget) Wrote(key string, at time.Time) {
	b.tmu.Lock()
	defer b.tmu.Unlock()
	b.wrote = append(b.wrote, at)
}

// TestIPWire: with Options.IPWire, the IP delay runs from the moment a
// lease's request went on the wire (Wrote), and no lease of the address
// starts while a started lease's request is not yet on it, whatever the
// concurrency: a request that leaves late (a TLS handshake) cannot come
// closer than IPDelay to the next. A lease that ends without reporting
// (no request) lets the next start. The shared budget is told each wire
// time (IPStarts.Wrote).
func TestIPWire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, err := Open(Options{Dir: t.TempDir(), Policy: politeness.Policy{Delay: time.Millisecond},
			Resolve:       fakeResolve(map[string]string{"a": "10.0.0.1", "b": "10.0.0.1", "c": "10.0.0.1"}),
			IPConcurrency: 4, IPDelay: 10 * time.Millisecond, IPWire: true})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := &wireBudget{fakeBudget: fakeBudget{limit: map[string]int{"10.0.0.1": 4}, wanted: map[string]int{}, freed: map[string]int{}}}
		f.SetIPBudget(b)
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("b", 1), link("c", 1)})
		la := mustNext(t, f)
		// a's request is on the wire only 30ms later (its connection's
		// handshake, say): no other lease to the address meanwhile.
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
		if l, err := f.Next(ctx); err == nil {
			t.Fatalf("leased %s while %s's request was not yet on the wire", l.Task.Host, la.Task.Host)
		}
		cancel()
		wire := time.Now()
		f.Wrote(la.ID, la.Task.Host, wire)
		lb := mustNext(t, f)
		if got := time.Since(wire); got != 10*time.Millisecond {
			t.Errorf("the next lease started %v after the first request went on the wire, want the IP delay, 10ms", got)
		}
		b.tmu.Lock()
		if len(b.wrote) != 1 || !b.wrote[0].Equal(wire) {
			t.Errorf("the shared budget was told wire times %v, want [%v]", b.wrote, wire)
		}
		b.tmu.Unlock()
		// b's lease sends nothing (robots.txt disallowed the URL, say):
		// its end lets c start.
		ctx, cancel = context.WithTimeout(t.Context(), time.Second)
		if l, err := f.Next(ctx); err == nil {
			t.Fatalf("leased %s while %s's request was not yet on the wire", l.Task.Host, lb.Task.Host)
		}
		cancel()
		f.Complete(t.Context(), lb, crawl.Outcome{Disposition: crawl.Done})
		lc := mustNext(t, f)
		if lc.Task.Host != "c" {
			t.Errorf("leased %s, want c", lc.Task.Host)
		}
		b.tmu.Lock()
		if len(b.wrote) != 2 || !b.wrote[1].IsZero() {
			t.Errorf("the shared budget was told wire times %v, want a zero time for the lease that sent nothing", b.wrote)
		}
		b.tmu.Unlock()
	})
}
