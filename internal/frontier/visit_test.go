package frontier

import (
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
