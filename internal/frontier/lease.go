package frontier

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/robots"
)

var errClosed = errors.New("frontier: closed")

// Next blocks until some host is ready and leases the head of its queue.
func (f *Frontier) Next(ctx context.Context) (crawl.Lease, error) {
	for {
		l, err := poll(ctx, f, f.tryLease)
		if nr := (*needResolve)(nil); errors.As(err, &nr) {
			if err := f.resolveHost(ctx, nr.host); err != nil {
				return crawl.Lease{}, err
			}
			continue
		}
		return l, err
	}
}

// poll calls try with f.mu held until it returns an error or a result
// with no wait, waiting between calls for the wait it returned (< 0:
// until the frontier changes) or for a change, whichever comes first. An
// ended ctx wins over a ready result.
func poll[T any](ctx context.Context, f *Frontier, try func() (T, time.Duration, error)) (T, error) {
	var zero T
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		f.mu.Lock()
		v, wait, err := try()
		changed := f.changed
		f.mu.Unlock()
		if err != nil || wait == 0 {
			return v, err
		}
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
			return zero, ctx.Err()
		case <-changed:
		case <-tick:
		}
	}
}

// tryLease leases the first ready host, or says how long to wait for one
// (wait < 0: until something changes). f.mu must be held.
func (f *Frontier) tryLease() (crawl.Lease, time.Duration, error) {
	if f.closed {
		return crawl.Lease{}, 0, errClosed
	}
	if err := f.promote(f.now()); err != nil {
		return crawl.Lease{}, 0, err
	}
	if len(f.ready) > 0 && f.re != nil && f.counts.due > 0 {
		// Wake for the next due revisit if it comes before the next host.
		wait, untilDue := f.ready[0].readyAt().Sub(f.now()), f.earliestDue.Sub(f.now())
		if wait > 0 && untilDue < wait {
			return crawl.Lease{}, max(untilDue, time.Millisecond), nil
		}
	}
	for len(f.ready) > 0 {
		h := f.ready[0]
		now := f.now()
		if wait := h.readyAt().Sub(now); wait > 0 {
			return crawl.Lease{}, wait, nil
		}
		if h.head == nil {
			if err := f.loadHead(h); err != nil {
				return crawl.Lease{}, 0, err
			}
			if h.head == nil { // the count said queued, the store says empty: repair
				f.log.Error("host queue empty despite its count; repaired", "host", h.name, "queued", h.rec.queued)
				f.counts.queued -= uint64(h.rec.queued)
				f.counts.revisits -= uint64(h.rec.revisits)
				h.rec.queued, h.rec.revisits = 0, 0
				heap.Remove(&f.ready, h.heapIndex)
				f.forgetIP(h)
				delete(f.hosts, h.name)
				continue
			}
		}
		if !h.robotsOK {
			if err := f.loadRobots(h); err != nil {
				return crawl.Lease{}, 0, err
			}
		}
		if !f.reopened.IsZero() {
			// The process before this one may have contacted the host up
			// to the moment it ended, and its reservation (see lease) may
			// not have reached the disk: no host is contacted before one
			// gap after the restart.
			if floor := f.reopened.Add(f.gap(h).Gap); floor.After(now) {
				h.rec.readyAt = floor
				if err := f.commit(f.db.NewBatch(), map[*host]struct{}{h: {}}); err != nil {
					return crawl.Lease{}, 0, err
				}
				heap.Fix(&f.ready, h.heapIndex)
				continue
			}
		}
		if ok, err := f.gateIP(h, now); !ok {
			if err != nil {
				return crawl.Lease{}, 0, err
			}
			continue // parked: its address is busy
		}
		return f.lease(h, now)
	}
	if f.re != nil && f.counts.due > 0 {
		return crawl.Lease{}, max(f.earliestDue.Sub(f.now()), time.Millisecond), nil
	}
	if len(f.leases) == 0 && f.resolving == 0 && f.visits == 0 && !f.shards.partial {
		return crawl.Lease{}, 0, crawl.ErrExhausted
	}
	return crawl.Lease{}, -1, nil
}

// lease hands out h's head (or its first discovery entry: see pick). It
// also reserves the host until the latest moment the lease's request could
// end plus the host's delay, in memory and in the store (not fsynced: a
// restart holds every host back one gap anyway, see Frontier.reopened);
// Complete replaces the reservation with the real end. f.mu must be held.
func (f *Frontier) lease(h *host, now time.Time) (crawl.Lease, time.Duration, error) {
	it, err := f.pick(h)
	if err != nil {
		return crawl.Lease{}, 0, err
	}
	rec, err := f.leasedURL(h, it, now)
	if err != nil {
		return crawl.Lease{}, 0, err
	}
	heap.Remove(&f.ready, h.heapIndex)
	h.leased = true
	ls := &lease{host: h, item: it, prevReady: h.rec.readyAt, revisit: bandOf(it.key) == revisitBand}
	f.leasedIP(ls, now)
	h.rec.pol = f.policy.Probe(h.rec.pol, now) // an open breaker's cool-down is over: this is its probe
	h.rec.readyAt = laterOf(h.rec.readyAt, now.Add(f.leaseTimeout+f.gap(h).Gap))
	b := f.db.NewBatch()
	b.Set(hostKey(h.name), h.rec.encode())
	if err := b.Commit(false); err != nil {
		return crawl.Lease{}, 0, err
	}
	f.nextID++
	ls.id = f.nextID
	f.leases[f.nextID] = ls
	f.leased[ls.item.task.Key] = ls
	over := h.rec.policy.MaxPages != nil && int64(h.rec.fetched) >= *h.rec.policy.MaxPages
	t := ls.item.task
	t.Cash, t.Revisit = rec.cash, ls.revisit
	lease := crawl.Lease{ID: f.nextID, Task: t, Robots: h.robots, OverBudget: over, Traps: h.rec.traps}
	if h.rec.aliases != nil {
		lease.Aliases.Rules = slices.Clone(h.rec.aliases.Rules)
	}
	return lease, 0, nil
}

// loadHead reads the first entry of h's queue. f.mu must be held.
func (f *Frontier) loadHead(h *host) error {
	p := queuePrefix(h.name)
	from := h.scanFrom
	if from == nil {
		from = p
	}
	it, err := f.db.Scan(from, prefixEnd(p))
	if err != nil {
		return err
	}
	if it.Valid() {
		t, err := decodeTask(it.Value())
		if err != nil {
			it.Close()
			return err
		}
		h.head = &item{key: append([]byte(nil), it.Key()...), task: t}
		h.scanFrom = h.head.key // nothing live is before the head
	}
	return it.Close()
}

// loadRobots restores h's robots.txt state and compiles its rules.
// f.mu must be held.
func (f *Frontier) loadRobots(h *host) error {
	v, ok, err := f.db.Get(robotsKey(h.name))
	if err != nil {
		return err
	}
	if ok {
		if h.robots, err = decodeRobots(v); err != nil {
			return err
		}
		if h.robots.Status == crawl.RobotsOK {
			h.robots.Rules = robots.Parse(h.robots.Body).Group(f.agent)
		}
	}
	h.robotsOK = true
	return nil
}

// gap is the host's effective gap between exchanges and its reason.
// f.mu must be held.
func (f *Frontier) gap(h *host) politeness.Delay {
	var crawlDelay time.Duration
	if h.robots.Status == crawl.RobotsOK && h.robots.Rules != nil {
		crawlDelay, _ = h.robots.Rules.CrawlDelay()
	}
	p := f.policy
	if h.rec.policy.Delay != nil {
		p.Delay = *h.rec.policy.Delay
	}
	d, capped := p.HostGap(h.rec.pol, crawlDelay)
	if h.rec.policy.Delay != nil && d.Reason == politeness.ReasonConfigured {
		d.Reason = politeness.ReasonOverride
	}
	if capped && !h.capLogged {
		h.capLogged = true
		f.log.Warn("crawl-delay above cap; using the cap", "host", h.name,
			"crawl_delay", crawlDelay, "cap", f.policy.CrawlDelayCap)
	}
	if h.robots.Status == crawl.RobotsUnavailable {
		if r := f.policy.RobotsRetryDelay(h.robots.Failures); r > d.Gap {
			d = politeness.Delay{Gap: r, Reason: politeness.ReasonRobots}
		}
	}
	return d
}

// readyAt is when h may next be leased: its own ready time, or its IP
// group's next start when the group released it (ipgroups.go).
func (h *host) readyAt() time.Time { return laterOf(h.rec.readyAt, h.ipReady) }

// deleted notes that the queue entry at key is gone: if it was a lower
// bound itself (the head, or the first discovery entry, with nothing
// inserted before it since), every live entry is now after it.
func (h *host) deleted(key []byte) {
	if bytes.Equal(h.scanFrom, key) {
		h.scanFrom = append(append(h.scanFrom[:0:0], key...), 0) // the next possible key
	}
	if bytes.Equal(h.discFrom, key) {
		h.discFrom = append(append(h.discFrom[:0:0], key...), 0)
	}
}

// schedule puts h in the ready heap if it has work and no lease out, or
// fixes its position. f.mu must be held.
func (f *Frontier) schedule(h *host) {
	switch {
	case h.leased || h.rec.queued == 0 || h.rec.blocked || !f.shards.owns(h.shard) || h.ipState == ipResolving:
		if h.heapIndex >= 0 {
			heap.Remove(&f.ready, h.heapIndex)
		}
		f.unpark(h)
	case h.parkIndex >= 0:
		heap.Fix(&h.ip.parked, h.parkIndex) // waits for its address
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
