package frontier

import (
	"context"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

var _ crawl.Visitor = (*Frontier)(nil)

// Visit holds host's politeness slot for one request that no lease of its
// queue makes (a browser's sub-request while a page renders): it waits
// until the host has no lease or visit in flight and its ready time has
// passed, then reserves the host exactly as a lease does (so that Next
// does not lease it meanwhile) until Release, which records the exchange
// as Complete does: the host's adaptive politeness, its next ready time,
// and its robots.txt state when the visit fetched it.
//
// A visit to the host of lease held (an ID Next returned, not completed)
// shares that lease's slot: the lease's own request ended at heldEnd, and
// its visits run one at a time, each after the host's gap since the
// previous one; Complete then keeps the host until the gap after the last
// of them. A host this node does not own (cluster) is refused with
// crawl.ErrNotOwned: its politeness is another node's. Per-IP gating of
// host readiness, if any, is not consulted here.
func (f *Frontier) Visit(ctx context.Context, name string, held uint64, heldEnd time.Time) (crawl.Visit, error) {
	return poll(ctx, f, func() (crawl.Visit, time.Duration, error) { return f.tryVisit(name, held, heldEnd) })
}

// tryVisit takes the visit, or says how long to wait (wait < 0: until
// something changes). f.mu must be held.
func (f *Frontier) tryVisit(name string, held uint64, heldEnd time.Time) (crawl.Visit, time.Duration, error) {
	if f.closed {
		return crawl.Visit{}, 0, errClosed
	}
	now := f.now()
	if ls := f.leases[held]; held != 0 && ls != nil && ls.host.name == name {
		h := ls.host
		if ls.visiting {
			return crawl.Visit{}, -1, nil
		}
		ready, _ := politeness.Ready(h.rec.pol, heldEnd, f.gap(h))
		if wait := laterOf(ready, ls.visitReady).Sub(now); wait > 0 {
			return crawl.Visit{}, wait, nil
		}
		ls.visiting = true
		done := false
		return crawl.Visit{Robots: h.robots, Release: func(out crawl.Outcome) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			if done {
				return nil
			}
			done = true
			ls.visiting = false
			if out.Requested {
				h.rec.pol = f.policy.Observe(h.rec.pol, observation(out, f.jitter()))
				ready, _ := politeness.Ready(h.rec.pol, out.End, f.gap(h))
				ls.visitReady = laterOf(ls.visitReady, ready)
			}
			f.broadcast()
			return nil
		}}, 0, nil
	}
	h := f.hosts[name]
	active := h != nil
	if !active {
		var err error
		if h, _, err = f.storedHost(name); err != nil {
			return crawl.Visit{}, 0, err
		}
	}
	switch {
	case !f.shards.owns(h.shard):
		return crawl.Visit{}, 0, crawl.ErrNotOwned
	case h.rec.blocked:
		return crawl.Visit{}, 0, crawl.ErrHostBlocked
	case h.leased:
		return crawl.Visit{}, -1, nil
	}
	if !h.robotsOK {
		if err := f.loadRobots(h); err != nil {
			return crawl.Visit{}, 0, err
		}
	}
	ready := h.readyAt()
	if !f.reopened.IsZero() {
		ready = laterOf(ready, f.reopened.Add(f.gap(h).Gap)) // as in tryLease
	}
	if wait := ready.Sub(now); wait > 0 {
		return crawl.Visit{}, wait, nil
	}
	if !active {
		if _, found, err := f.storedHost(name); err != nil {
			return crawl.Visit{}, 0, err
		} else if !found {
			f.counts.hosts++
		}
		f.hosts[name] = h
	}
	prev := h.rec.readyAt
	h.leased = true
	f.visits++
	f.schedule(h) // out of the ready heap while the visit is out
	h.rec.pol = f.policy.Probe(h.rec.pol, now)
	h.rec.readyAt = laterOf(prev, now.Add(f.leaseTimeout+f.gap(h).Gap))
	if err := f.commit(f.db.NewBatch(), map[*host]struct{}{h: {}}); err != nil {
		h.leased = false
		f.visits--
		h.rec.readyAt = prev
		f.schedule(h)
		return crawl.Visit{}, 0, err
	}
	done := false
	return crawl.Visit{Robots: h.robots, Release: func(out crawl.Outcome) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if done || f.closed {
			return nil
		}
		done = true
		return f.endVisit(h, prev, out)
	}}, 0, nil
}

// endVisit records a visit's exchange on h, as apply does a lease's.
// f.mu must be held.
func (f *Frontier) endVisit(h *host, prev time.Time, out crawl.Outcome) error {
	h.leased = false
	f.visits--
	h.rec.readyAt = prev
	b := f.db.NewBatch()
	if out.Robots != nil {
		h.robots = *out.Robots
		h.robotsOK = true
		b.Set(robotsKey(h.name), encodeRobots(h.robots))
	}
	if out.Requested {
		h.rec.pol = f.policy.Observe(h.rec.pol, observation(out, f.jitter()))
		ready, _ := politeness.Ready(h.rec.pol, out.End, f.gap(h))
		h.rec.readyAt = laterOf(h.rec.readyAt, ready)
	}
	if out.Class == crawl.ClassTransient || out.Class == crawl.ClassPermanent {
		h.rec.errors++
	}
	err := f.commit(b, map[*host]struct{}{h: {}})
	if h.rec.queued == 0 && !h.leased {
		delete(f.hosts, h.name) // idle: its record is in the store
	} else {
		f.schedule(h)
	}
	f.broadcast()
	return err
}

// observation is the politeness observation of an exchange's outcome.
func observation(out crawl.Outcome, jitter float64) politeness.Observation {
	return politeness.Observation{
		Start:         out.Start,
		FirstByte:     out.FirstByte,
		End:           out.End,
		Failure:       out.Health,
		RetryAfter:    out.RetryAfter,
		HasRetryAfter: out.HasRetryAfter,
		Jitter:        jitter,
	}
}
