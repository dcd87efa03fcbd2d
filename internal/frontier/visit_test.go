package frontier

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

// visitAsync starts a Visit and returns a channel that gets it, with the
// time it was granted.
func visitAsync(t *testing.T, f *Frontier, host string, held uint64, heldEnd time.Time) <-chan crawl.Visit {
	ch := make(chan crawl.Visit, 1)
	go func() {
		v, err := f.Visit(t.Context(), host, held, heldEnd)
		if err != nil {
			t.Errorf("Visit(%s) error = %v", host, err)
			close(ch)
			return
		}
		ch <- v
	}()
	return ch
}

func requested(start, end time.Time) crawl.Outcome {
	return crawl.Outcome{Requested: true, Start: start, FirstByte: start, End: end, Status: 200}
}

// TestVisitsSerializedWithGap: two concurrent visits to one host are one
// at a time, the second a gap after the first's request ended.
func TestVisitsSerializedWithGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const gap = 2 * time.Second
		f := newTestFrontier(t, gap)
		a := visitAsync(t, f, "x.example", 0, time.Time{})
		b := visitAsync(t, f, "x.example", 0, time.Time{})
		synctest.Wait()
		var first crawl.Visit
		select {
		case first = <-a:
		case first = <-b:
			a, b = b, a
		}
		synctest.Wait()
		select {
		case <-b:
			t.Fatal("second visit granted while the first is in flight")
		default:
		}
		time.Sleep(time.Second) // the request takes a second
		end := time.Now()
		if err := first.Release(requested(end.Add(-time.Second), end)); err != nil {
			t.Fatal(err)
		}
		<-b
		if got := time.Since(end); got < gap {
			t.Errorf("second visit %v after the first ended, want at least the gap %v", got, gap)
		}
		if s := f.Stats(); s.Hosts != 1 {
			t.Errorf("Stats().Hosts = %d, want 1 (the visited host is known)", s.Hosts)
		}
	})
}

// TestVisitWaitsForLease: a visit to a host with a lease out waits for
// Complete and the gap; Next does not lease a host while a visit is out.
func TestVisitWaitsForLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const gap = 2 * time.Second
		f := newTestFrontier(t, gap)
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2)})
		l := mustNext(t, f)
		v := visitAsync(t, f, "a", 0, time.Time{})
		synctest.Wait()
		select {
		case <-v:
			t.Fatal("visit granted while the host has a lease")
		default:
		}
		end := time.Now()
		if err := f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: end, End: end, Status: 200}); err != nil {
			t.Fatal(err)
		}
		got := <-v
		if d := time.Since(end); d < gap {
			t.Errorf("visit %v after the lease's request, want at least %v", d, gap)
		}
		// While the visit is out, Next waits.
		next := make(chan crawl.Lease, 1)
		go func() {
			l, err := f.Next(t.Context())
			if err == nil {
				next <- l
			}
		}()
		time.Sleep(10 * gap)
		synctest.Wait()
		select {
		case <-next:
			t.Fatal("Next leased the host while a visit is out")
		default:
		}
		vEnd := time.Now()
		got.Release(requested(vEnd, vEnd))
		<-next
		if d := time.Since(vEnd); d < gap {
			t.Errorf("lease %v after the visit's request, want at least %v", d, gap)
		}
	})
}

// TestVisitSharesHeldLease: visits to the host of a lease the caller
// holds run one at a time a gap apart, starting a gap after the lease's
// own request, and the host's next lease waits a gap after the last.
func TestVisitSharesHeldLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const gap = 2 * time.Second
		f := newTestFrontier(t, gap)
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2)})
		l := mustNext(t, f)
		pageEnd := time.Now()
		v1, err := f.Visit(t.Context(), "a", l.ID, pageEnd)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(pageEnd); d < gap {
			t.Errorf("first shared visit %v after the page, want at least %v", d, gap)
		}
		v2 := visitAsync(t, f, "a", l.ID, pageEnd)
		synctest.Wait()
		select {
		case <-v2:
			t.Fatal("two shared visits in flight at once")
		default:
		}
		e1 := time.Now()
		v1.Release(requested(e1, e1))
		second := <-v2
		if d := time.Since(e1); d < gap {
			t.Errorf("second shared visit %v after the first, want at least %v", d, gap)
		}
		e2 := time.Now()
		second.Release(requested(e2, e2))
		if err := f.Complete(t.Context(), l, crawl.Outcome{Disposition: crawl.Done, Requested: true, Start: pageEnd, End: pageEnd, Status: 200}); err != nil {
			t.Fatal(err)
		}
		mustNext(t, f)
		if d := time.Since(e2); d < gap {
			t.Errorf("next lease %v after the last shared visit, want at least %v", d, gap)
		}
	})
}

// granted reports whether visit ch has been granted (synctest: after
// synctest.Wait).
func granted(ch <-chan crawl.Visit) (crawl.Visit, bool) {
	select {
	case v := <-ch:
		return v, true
	default:
		return crawl.Visit{}, false
	}
}

// TestVisitIPBudget: with an IP concurrency of 1 and two hosts on one
// address, a lease out on host a blocks a visit to host b until it
// completes, and the visit starts the IP delay after the lease's first
// byte; a visit out on b blocks a lease of a and another visit the same
// way. A host on another address is not held back.
func TestVisitIPBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ipDelay = 2 * time.Second
		f := openIP(t, time.Millisecond, 1, ipDelay, map[string]string{
			"a": "10.0.0.1", "b": "10.0.0.1", "c": "10.0.0.1", "d": "10.0.0.2"})
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2)})
		l := mustNext(t, f)
		vb := visitAsync(t, f, "b", 0, time.Time{})
		vd := visitAsync(t, f, "d", 0, time.Time{})
		synctest.Wait()
		if _, ok := granted(vb); ok {
			t.Fatal("visit to b granted while a, on the same address, has a lease out")
		}
		vdv, ok := granted(vd)
		if !ok {
			t.Fatal("visit to d, on another address, not granted")
		}
		time.Sleep(5 * time.Second) // the lease's request: its first byte after 1s, its end after 5s
		end := time.Now()
		firstByte := end.Add(-4 * time.Second)
		synctest.Wait()
		if _, ok := granted(vb); ok {
			t.Fatal("visit to b granted before the lease of a completed")
		}
		if err := f.Complete(t.Context(), l, crawl.Outcome{Requested: true, Start: end.Add(-5 * time.Second),
			FirstByte: firstByte, End: end, Status: 200}); err != nil {
			t.Fatal(err)
		}
		// The IP delay after the first byte is already over: granted now.
		v := <-vb
		if got := time.Since(end); got != 0 {
			t.Errorf("visit to b granted %v after the lease of a completed, want at once", got)
		}
		bStart := time.Now()
		if got := bStart.Sub(firstByte); got < ipDelay {
			t.Errorf("visit to b started %v after the lease's first byte, want at least %v", got, ipDelay)
		}

		// While the visit to b is out, neither a lease of a nor a visit
		// to c starts.
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		vc := visitAsync(t, f, "c", 0, time.Time{})
		if l, err := f.Next(ctx); err == nil {
			t.Fatalf("leased %s while a visit to b, on the same address, is out", l.Task.Host)
		}
		synctest.Wait()
		if _, ok := granted(vc); ok {
			t.Fatal("visit to c granted while a visit to b, on the same address, is out")
		}
		vEnd := time.Now()
		if err := v.Release(requested(vEnd, vEnd)); err != nil {
			t.Fatal(err)
		}
		<-vc
		if got := time.Since(vEnd); got < ipDelay {
			t.Errorf("visit to c granted %v after the visit to b's first byte, want at least %v", got, ipDelay)
		}
		if err := vdv.Release(crawl.Outcome{}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestVisitIPBudgetHeld: a visit under a lease to another host on the
// lease's address takes the lease's IP slot (at an IP concurrency of 1 it
// would otherwise wait for the lease, which waits for it), one at a
// time, the IP delay after the lease's request ended and after each
// other's first byte; so do visits to the lease's own host.
func TestVisitIPBudgetHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ipDelay = 2 * time.Second
		f := openIP(t, time.Millisecond, 1, ipDelay, map[string]string{"a": "10.0.0.1", "b": "10.0.0.1", "c": "10.0.0.1"})
		f.Add(t.Context(), []crawl.Link{link("a", 1), link("c", 1)})
		l := mustNext(t, f)
		time.Sleep(time.Second)
		heldEnd := time.Now()
		v1 := visitAsync(t, f, "b", l.ID, heldEnd)
		v2 := visitAsync(t, f, "c", l.ID, heldEnd)
		synctest.Wait()
		if _, ok := granted(v1); ok {
			t.Fatal("visit granted within the IP delay of the lease's request")
		}
		if _, ok := granted(v2); ok {
			t.Fatal("visit granted within the IP delay of the lease's request")
		}
		var first crawl.Visit
		var second <-chan crawl.Visit
		select {
		case first = <-v1:
			second = v2
		case first = <-v2:
			second = v1
		}
		if got := time.Since(heldEnd); got != ipDelay {
			t.Errorf("first visit %v after the lease's request ended, want the IP delay %v", got, ipDelay)
		}
		synctest.Wait()
		if _, ok := granted(second); ok {
			t.Fatal("two visits of one lease out on its address at once")
		}
		time.Sleep(time.Second)
		end := time.Now()
		if err := first.Release(requested(end, end)); err != nil {
			t.Fatal(err)
		}
		s := <-second
		if got := time.Since(end); got != ipDelay {
			t.Errorf("second visit %v after the first's first byte, want the IP delay %v", got, ipDelay)
		}
		// A visit to the lease's own host is on the same slot: it waits
		// for the visit out and the IP delay after its first byte.
		own := visitAsync(t, f, "a", l.ID, heldEnd)
		synctest.Wait()
		if _, ok := granted(own); ok {
			t.Fatal("visit to the lease's host granted while another visit of the lease is out on its address")
		}
		end = time.Now()
		if err := s.Release(requested(end, end)); err != nil {
			t.Fatal(err)
		}
		o := <-own
		if got := time.Since(end); got != ipDelay {
			t.Errorf("visit to the lease's host %v after the previous visit's first byte, want the IP delay %v", got, ipDelay)
		}
		if err := o.Release(crawl.Outcome{}); err != nil {
			t.Fatal(err)
		}
		if err := f.Complete(t.Context(), l, requested(heldEnd.Add(-time.Second), heldEnd)); err != nil {
			t.Fatal(err)
		}
	})
}
