package frontier

import (
	"container/heap"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

var _ crawl.Frontier = (*Frontier)(nil)

// Frontier is an in-memory crawl.Frontier.
type Frontier struct {
	policy politeness.Policy
	log    *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	seen    map[string]*entry // every URL key ever added: the seen-set
	hosts   map[string]*host
	ready   hostHeap // hosts with queued tasks and no lease out
	leases  map[uint64]*entry
	nextID  uint64
	queued  int
	changed chan struct{} // closed and replaced whenever a waiter may proceed
}

// entry is the frontier's record of one URL key.
type entry struct {
	task    crawl.Task // as it will next be handed out
	state   entryState
	improve bool           // found at a smaller depth while leased
	capture *crawl.Capture // where its last response was archived
}

type entryState uint8

const (
	queued entryState = iota
	leased
	done
)

// host is one politeness unit.
type host struct {
	name      string
	queue     queue
	readyAt   time.Time
	robots    crawl.RobotsState
	leased    bool
	heapIndex int // position in Frontier.ready; -1 when absent
	capLogged bool
}

// Options configure a Frontier. Logger and Now are optional.
type Options struct {
	Policy politeness.Policy
	Logger *slog.Logger
	Now    func() time.Time
}

// New returns an empty in-memory frontier.
func New(o Options) *Frontier {
	o.Policy.Default()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Frontier{
		policy:  o.Policy,
		log:     o.Logger,
		now:     o.Now,
		seen:    make(map[string]*entry),
		hosts:   make(map[string]*host),
		leases:  make(map[uint64]*entry),
		changed: make(chan struct{}),
	}
}

// Add queues each link whose key was not seen before, and lowers the
// depth of seen ones found by a shorter path (see crawl.Frontier).
func (f *Frontier) Add(_ context.Context, links []crawl.Link) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	added, changed := 0, false
	for _, l := range links {
		if e, ok := f.seen[l.Key]; ok {
			changed = f.shorterPath(e, l) || changed
			continue
		}
		e := &entry{task: crawl.Task{Link: l}}
		f.seen[l.Key] = e
		f.push(e, false)
		added++
	}
	if added > 0 || changed {
		f.broadcast()
	}
	return added, nil
}

// shorterPath records that e was reached again by l, and reports whether
// work was queued. f.mu must be held.
func (f *Frontier) shorterPath(e *entry, l crawl.Link) bool {
	if l.Depth >= e.task.Depth {
		return false
	}
	e.task.Depth, e.task.Hops, e.task.Via = l.Depth, l.Hops, l.Via
	switch e.state {
	case leased:
		e.improve = true // replayed when the lease completes
	case done:
		return f.replay(e)
	}
	return false
}

// replay queues a fetched entry to have its archived response processed
// again at its new depth. f.mu must be held.
func (f *Frontier) replay(e *entry) bool {
	if e.capture == nil {
		return false // nothing archived (failed fetch): nothing to follow
	}
	e.task.Replay = e.capture
	f.push(e, false)
	return true
}

// push queues e on its host, at the back or the front. f.mu must be held.
func (f *Frontier) push(e *entry, front bool) {
	h := f.hosts[e.task.Host]
	if h == nil {
		h = &host{name: e.task.Host, heapIndex: -1}
		f.hosts[e.task.Host] = h
	}
	e.state = queued
	if front {
		h.queue.pushFront(e)
	} else {
		h.queue.pushBack(e)
	}
	f.queued++
	f.schedule(h)
}

// Next blocks until some host is ready and leases the head of its queue.
func (f *Frontier) Next(ctx context.Context) (crawl.Lease, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return crawl.Lease{}, err // an ended ctx wins over a ready host
		}
		f.mu.Lock()
		var wait time.Duration
		if len(f.ready) > 0 {
			h := f.ready[0]
			if wait = h.readyAt.Sub(f.now()); wait <= 0 {
				l := f.lease(h)
				f.mu.Unlock()
				return l, nil
			}
		} else if len(f.leases) == 0 {
			f.mu.Unlock()
			return crawl.Lease{}, crawl.ErrExhausted
		}
		changed := f.changed
		f.mu.Unlock()

		var tick <-chan time.Time
		if wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			tick = timer.C
		}
		select {
		case <-ctx.Done():
			return crawl.Lease{}, ctx.Err()
		case <-changed:
		case <-tick:
		}
	}
}

// lease pops h from the ready heap and hands out the head of its queue.
// f.mu must be held.
func (f *Frontier) lease(h *host) crawl.Lease {
	heap.Remove(&f.ready, h.heapIndex)
	e := h.queue.popFront()
	e.state = leased
	f.queued--
	h.leased = true
	f.nextID++
	f.leases[f.nextID] = e
	return crawl.Lease{ID: f.nextID, Task: e.task, Robots: h.robots}
}

// Complete applies a lease's outcome: the host's robots.txt state, its next
// ready time, and the fate of the task.
func (f *Frontier) Complete(_ context.Context, l crawl.Lease, out crawl.Outcome) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.leases[l.ID]
	if !ok {
		return nil // already completed
	}
	delete(f.leases, l.ID)
	h := f.hosts[e.task.Host]
	h.leased = false

	if out.Robots != nil {
		h.robots = *out.Robots
	}
	if out.Requested {
		h.readyAt = laterOf(h.readyAt, out.End.Add(f.delay(h)))
	}

	switch out.Disposition {
	case crawl.Requeue:
		e.improve = false // it goes back with its new depth anyway
		f.push(e, true)
	case crawl.Retry:
		e.improve = false
		e.task.Attempt++
		f.push(e, false)
	default:
		e.state = done
		e.task.Replay = nil
		if out.Capture != nil {
			e.capture = out.Capture
		}
		if e.improve {
			e.improve = false
			f.replay(e)
		}
	}
	f.schedule(h)
	f.broadcast()
	return nil
}

// delay is the gap to keep after the last exchange with h. f.mu must be held.
func (f *Frontier) delay(h *host) time.Duration {
	if h.robots.Status == crawl.RobotsUnavailable {
		return f.policy.RobotsRetryDelay(h.robots.Failures)
	}
	var crawlDelay time.Duration
	if h.robots.Status == crawl.RobotsOK && h.robots.Rules != nil {
		crawlDelay, _ = h.robots.Rules.CrawlDelay()
	}
	d, capped := f.policy.HostDelay(crawlDelay)
	if capped && !h.capLogged {
		h.capLogged = true
		f.log.Warn("crawl-delay above cap; using the cap", "host", h.name,
			"crawl_delay", crawlDelay, "cap", f.policy.CrawlDelayCap)
	}
	return d
}

// schedule puts h in the ready heap if it has work and no lease out, or
// fixes its position. f.mu must be held.
func (f *Frontier) schedule(h *host) {
	switch {
	case h.leased || h.queue.len() == 0:
		if h.heapIndex >= 0 {
			heap.Remove(&f.ready, h.heapIndex)
		}
	case h.heapIndex < 0:
		heap.Push(&f.ready, h)
	default:
		heap.Fix(&f.ready, h.heapIndex)
	}
}

// broadcast wakes every waiting Next. f.mu must be held.
func (f *Frontier) broadcast() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// Stats returns the frontier's size.
func (f *Frontier) Stats() crawl.FrontierStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := crawl.FrontierStats{
		Queued:   f.queued,
		InFlight: len(f.leases),
		Hosts:    len(f.hosts),
		Seen:     len(f.seen),
	}
	s.Active = len(f.ready) + len(f.leases)
	return s
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
