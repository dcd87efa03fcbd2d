package frontier

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

// tokenBudget is a shared IP budget that spaces starts across nodes
// (IPStarts) by permissions the test grants, one start each (as a start
// hold allows one start while other nodes wait).
type tokenBudget struct {
	fakeBudget
	tmu       sync.Mutex
	at, until time.Time // the token held (zero: none)
	wants     []time.Time
	started   int
	wrote     []time.Time
}

func (b *tokenBudget) StartAt(key string, now time.Time) (time.Time, bool) {
	b.tmu.Lock()
	defer b.tmu.Unlock()
	if b.at.IsZero() || !now.Before(b.until) {
		return time.Time{}, false
	}
	return b.at, true
}

func (b *tokenBudget) WantStart(key string, notBefore time.Time) {
	b.tmu.Lock()
	defer b.tmu.Unlock()
	b.wants = append(b.wants, notBefore)
}

func (b *tokenBudget) Started(key string) {
	b.tmu.Lock()
	defer b.tmu.Unlock()
	b.started++
	b.at, b.until = time.Time{}, time.Time{}
}

func (b *tokenBudget) Wrote(key string, at time.Time) {
	b.tmu.Lock()
	defer b.tmu.Unlock()
	b.wrote = append(b.wrote, at)
}

func (b *tokenBudget) grant(at time.Time) {
	b.tmu.Lock()
	defer b.tmu.Unlock()
	b.at, b.until = at, at.Add(5*time.Millisecond)
}

// TestIPStartsGate: with a budget that spaces starts (IPStarts), a host
// of an address this node may not start to waits and the budget is
// asked (WantStart); a permission granted from a later time lets one
// lease out at that time, not before, and is used up by it.
func TestIPStartsGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openIP(t, time.Millisecond, 4, 0, map[string]string{"a": "10.0.0.1", "b": "10.0.0.1"})
		b := &tokenBudget{fakeBudget: fakeBudget{limit: map[string]int{"10.0.0.1": 4}, wanted: map[string]int{}, freed: map[string]int{}}}
		f.SetIPBudget(b)
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("b", 1)})
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		if l, err := f.Next(ctx); err == nil {
			t.Fatalf("leased %s without the budget's permission to start", l.Task.Host)
		}
		cancel()
		b.tmu.Lock()
		asked := len(b.wants)
		b.tmu.Unlock()
		if asked == 0 {
			t.Fatal("a host waits for the budget's permission to start, yet the budget was not asked")
		}
		at := time.Now().Add(50 * time.Millisecond)
		b.grant(at)
		f.IPRoom("10.0.0.1")
		l := mustNext(t, f)
		if now := time.Now(); now.Before(at) {
			t.Errorf("leased %s at %v, before its token's time %v", l.Task.Host, now, at)
		}
		if b.started != 1 {
			t.Errorf("Started told %d times, want 1", b.started)
		}
		ctx, cancel = context.WithTimeout(t.Context(), time.Hour)
		if l, err := f.Next(ctx); err == nil {
			t.Fatalf("leased %s with the token used up", l.Task.Host)
		}
		cancel()
	})
}

// TestIPStartsVisits: a browser sub-request (Visit) waits for the start
// hold as a lease does, on a slot of its own and on a lease's slot, and
// each visit that starts is told to the budget (Started) and later
// ended (Wrote, at its end: the browser does not report wire times);
// so is a lease of a frontier whose crawler does not report them.
func TestIPStartsVisits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := openIP(t, time.Millisecond, 4, 0, map[string]string{"a": "10.0.0.1", "b": "10.0.0.1", "c": "10.0.0.1"})
		b := &tokenBudget{fakeBudget: fakeBudget{limit: map[string]int{"10.0.0.1": 4}, wanted: map[string]int{}, freed: map[string]int{}}}
		f.SetIPBudget(b)
		f.Add(t.Context(), []crawl.Link{link("a", 1)})
		vb := visitAsync(t, f, "b", 0, time.Time{})
		synctest.Wait()
		if _, ok := granted(vb); ok {
			t.Fatal("visit to b granted without the start hold")
		}
		b.tmu.Lock()
		asked := len(b.wants)
		b.tmu.Unlock()
		if asked == 0 {
			t.Fatal("a visit waits for the start hold, yet the budget was not asked for it")
		}
		b.grant(time.Now())
		f.IPRoom("10.0.0.1")
		v := <-vb
		end := time.Now().Add(time.Second)
		time.Sleep(time.Second)
		if err := v.Release(requested(end, end)); err != nil {
			t.Fatal(err)
		}
		b.grant(time.Now())
		l := mustNext(t, f)
		// A visit on the lease's slot waits for the hold too.
		heldEnd := time.Now()
		vc := visitAsync(t, f, "c", l.ID, heldEnd)
		synctest.Wait()
		if _, ok := granted(vc); ok {
			t.Fatal("visit on the lease's slot granted without the start hold")
		}
		b.grant(time.Now())
		f.IPRoom("10.0.0.1")
		vcv := <-vc
		if err := vcv.Release(requested(time.Now(), time.Now())); err != nil {
			t.Fatal(err)
		}
		if err := f.Complete(t.Context(), l, requested(time.Now(), time.Now())); err != nil {
			t.Fatal(err)
		}
		b.tmu.Lock()
		defer b.tmu.Unlock()
		if b.started != 3 || len(b.wrote) != 3 {
			t.Fatalf("Started %d times and Wrote %d times (%v), want 3 and 3", b.started, len(b.wrote), b.wrote)
		}
		if !b.wrote[0].Equal(end) {
			t.Errorf("the visit's Wrote said %v, want its end %v", b.wrote[0], end)
		}
	})
}
