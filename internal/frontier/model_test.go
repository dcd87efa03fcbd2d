package frontier

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// The reference model: the frontier's specification written as plainly as
// possible, with maps and sorted slices and no store.

type mEntry struct {
	prio uint8
	seq  uint64
	task crawl.Task
}

type mHost struct {
	name    string
	queue   []mEntry // sorted by (prio, seq)
	readyAt time.Time
	nextSeq uint64
	leased  bool
}

type mURL struct {
	depth   int
	done    bool
	capture *crawl.Capture
}

type mLease struct {
	host      *mHost
	entry     mEntry
	prevReady time.Time
	improve   bool
}

type model struct {
	delay, leaseTimeout time.Duration
	urls                map[string]*mURL
	hosts               map[string]*mHost
	leases              map[uint64]*mLease
	leasedKeys          map[string]*mLease
	nextID              uint64
	reopened            time.Time // the last restart of a store holding a crawl
}

func newModel(delay, leaseTimeout time.Duration) *model {
	return &model{delay: delay, leaseTimeout: leaseTimeout, urls: map[string]*mURL{},
		hosts: map[string]*mHost{}, leases: map[uint64]*mLease{}, leasedKeys: map[string]*mLease{}}
}

func (m *model) host(name string) *mHost {
	h := m.hosts[name]
	if h == nil {
		h = &mHost{name: name}
		m.hosts[name] = h
	}
	return h
}

func (m *model) enqueue(h *mHost, t crawl.Task) {
	e := mEntry{prio: priority(t.Depth), seq: h.nextSeq, task: t}
	h.nextSeq++
	i, _ := slices.BinarySearchFunc(h.queue, e, func(a, b mEntry) int {
		return cmp.Or(cmp.Compare(a.prio, b.prio), cmp.Compare(a.seq, b.seq))
	})
	h.queue = slices.Insert(h.queue, i, e)
}

func (m *model) remove(h *mHost, key string) (mEntry, bool) {
	for i, e := range h.queue {
		if e.task.Key == key {
			h.queue = slices.Delete(h.queue, i, i+1)
			return e, true
		}
	}
	return mEntry{}, false
}

func (m *model) add(links []crawl.Link) int {
	added := 0
	batch := map[string]bool{}
	for _, l := range links {
		if batch[l.Key] {
			continue
		}
		batch[l.Key] = true
		u := m.urls[l.Key]
		if u == nil {
			m.urls[l.Key] = &mURL{depth: l.Depth}
			m.enqueue(m.host(l.Host), crawl.Task{Link: l})
			added++
			continue
		}
		if l.Depth >= u.depth {
			continue
		}
		h := m.host(l.Host)
		switch {
		case m.leasedKeys[l.Key] != nil:
			ls := m.leasedKeys[l.Key]
			u.depth = l.Depth
			ls.improve = true
			t := &ls.entry.task
			t.Depth, t.Hops, t.Via = l.Depth, l.Hops, l.Via
			for i := range h.queue { // rewritten in place
				if h.queue[i].task.Key == l.Key {
					h.queue[i].task = *t
				}
			}
		case !u.done:
			e, _ := m.remove(h, l.Key)
			u.depth = l.Depth
			t := e.task
			t.Depth, t.Hops, t.Via = l.Depth, l.Hops, l.Via
			m.enqueue(h, t)
		case u.capture != nil:
			u.depth = l.Depth
			u.done = false
			m.enqueue(h, crawl.Task{Link: l, Replay: u.capture})
		}
	}
	return added
}

// next mirrors tryLease: (lease, wait, err).
func (m *model) next(now time.Time) (crawl.Lease, time.Duration, error) {
	var best *mHost
	for _, h := range m.hosts {
		if h.leased || len(h.queue) == 0 {
			continue
		}
		if best == nil || h.readyAt.Before(best.readyAt) || h.readyAt.Equal(best.readyAt) && h.name < best.name {
			best = h
		}
	}
	if best == nil {
		if len(m.leases) == 0 {
			return crawl.Lease{}, 0, crawl.ErrExhausted
		}
		return crawl.Lease{}, -1, nil
	}
	if wait := best.readyAt.Sub(now); wait > 0 {
		return crawl.Lease{}, wait, nil
	}
	if floor := m.reopened.Add(m.delay); !m.reopened.IsZero() && floor.After(now) {
		best.readyAt = floor // no host before one delay after a restart
		return m.next(now)
	}
	ls := &mLease{host: best, entry: best.queue[0], prevReady: best.readyAt}
	best.leased = true
	if r := now.Add(m.leaseTimeout + m.delay); r.After(best.readyAt) {
		best.readyAt = r
	}
	m.nextID++
	m.leases[m.nextID] = ls
	m.leasedKeys[ls.entry.task.Key] = ls
	return crawl.Lease{ID: m.nextID, Task: ls.entry.task}, 0, nil
}

func (m *model) complete(id uint64, out crawl.Outcome) {
	ls := m.leases[id]
	if ls == nil {
		return
	}
	delete(m.leases, id)
	delete(m.leasedKeys, ls.entry.task.Key)
	h := ls.host
	h.leased = false
	h.readyAt = ls.prevReady
	if out.Requested {
		if r := out.End.Add(m.delay); r.After(h.readyAt) {
			h.readyAt = r
		}
	}
	t := ls.entry.task
	u := m.urls[t.Key]
	switch out.Disposition {
	case crawl.Requeue:
	case crawl.Retry:
		m.remove(h, t.Key)
		t.Attempt++
		t.Replay = nil
		m.enqueue(h, t)
	default:
		m.remove(h, t.Key)
		u.done, u.capture = true, out.Capture
		if ls.improve && out.Capture != nil {
			u.done = false
			t.Replay = out.Capture
			m.enqueue(h, t)
		}
	}
}

// reopen forgets outstanding leases, as a restart at now does: their
// entries are still queued and their hosts keep the reservation.
func (m *model) reopen(now time.Time) {
	if len(m.urls) > 0 { // a store that holds a crawl
		m.reopened = now
	}
	for id, ls := range m.leases {
		ls.host.leased = false
		delete(m.leases, id)
		delete(m.leasedKeys, ls.entry.task.Key)
	}
}

func (m *model) queued() int {
	n := 0
	for _, h := range m.hosts {
		n += len(h.queue)
	}
	return n
}

// TestAgainstModel drives the frontier and the model with the same random
// operations, closing and reopening the frontier now and then, and
// requires the same answer at every step.
func TestAgainstModel(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runModel(t, seed, 600) })
	}
}

func runModel(t *testing.T, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 99))
	const delay, leaseTimeout = time.Second, 10 * time.Second
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	dir := t.TempDir()
	open := func() *Frontier {
		f, err := Open(Options{Dir: dir, Policy: politeness.Policy{Delay: delay}, LeaseTimeout: leaseTimeout, Now: clock, BreadthFirst: true})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := open()
	defer func() { f.Close() }()
	m := newModel(delay, leaseTimeout)
	var outstanding []uint64
	captures := 0

	for step := range steps {
		switch op := rng.IntN(100); {
		case op < 30: // Add
			var links []crawl.Link
			for range 1 + rng.IntN(6) {
				h := fmt.Sprintf("h%d.test", rng.IntN(4))
				key := fmt.Sprintf("http://%s/%d", h, rng.IntN(25))
				links = append(links, crawl.Link{URL: key, Key: key, Host: h, Depth: rng.IntN(5), Via: "v"})
			}
			got, err := f.Add(t.Context(), links)
			if want := m.add(links); err != nil || got != want {
				t.Fatalf("step %d: Add = %d, %v; model %d", step, got, err, want)
			}
		case op < 60: // Next
			f.mu.Lock()
			gl, gw, gerr := f.tryLease()
			f.mu.Unlock()
			wl, ww, werr := m.next(now)
			if !errors.Is(gerr, werr) || gw != ww || gl.ID != wl.ID || !sameTask(gl.Task, wl.Task) {
				t.Fatalf("step %d: lease = %+v wait %v err %v;\nmodel     %+v wait %v err %v", step, gl.Task, gw, gerr, wl.Task, ww, werr)
			}
			if gerr == nil && gw == 0 {
				outstanding = append(outstanding, gl.ID)
			}
		case op < 85 && len(outstanding) > 0: // Complete
			i := rng.IntN(len(outstanding))
			id := outstanding[i]
			outstanding = slices.Delete(outstanding, i, i+1)
			out := crawl.Outcome{Disposition: crawl.Disposition(rng.IntN(3)), Requested: rng.IntN(4) > 0, End: now}
			if out.Disposition == crawl.Done && out.Requested {
				captures++
				out.Capture = &crawl.Capture{File: "f", Offset: int64(captures)}
			}
			if err := f.Complete(t.Context(), crawl.Lease{ID: id}, out); err != nil {
				t.Fatalf("step %d: Complete: %v", step, err)
			}
			m.complete(id, out)
		case op < 97: // time passes
			now = now.Add(time.Duration(rng.IntN(3000)) * time.Millisecond)
		default: // restart
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			f = open()
			m.reopen(now)
			outstanding = nil
			// Lease IDs restart in the frontier; keep the model in step.
			m.nextID = 0
		}
		if got, want := f.Stats().Queued, m.queued(); got != want {
			t.Fatalf("step %d: Queued = %d, model %d", step, got, want)
		}
	}
}

func sameTask(a, b crawl.Task) bool {
	ra, rb, pa, pb := a.Replay, b.Replay, a.Prior, b.Prior
	a.Replay, b.Replay, a.Prior, b.Prior = nil, nil, nil, nil
	return a == b && sameCapture(ra, rb) && sameCapture(pa, pb)
}

func sameCapture(a, b *crawl.Capture) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.File == b.File && a.Offset == b.Offset && a.Length == b.Length &&
		a.RecordID == b.RecordID && a.Date.Equal(b.Date)
}
