package frontier

import (
	"context"
	"errors"
	"net/netip"
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
// crawl.ErrNotOwned: its politeness is another node's.
//
// A visit to another host takes part in the host's IP group (ipgroups.go)
// as a lease does: it waits for the group's room and next start, counts
// in flight until Release, and moves the group's next start to IPDelay
// after the first byte of its answer. A host whose address is not known
// yet is resolved first, without the lock. Except when the host is in
// held's own group: held's request is over but its lease still counts
// in flight, so the visit takes held's IP slot instead of another one
// (without which a page and its sub-requests on one address, at an IP
// concurrency of 1, would wait for each other): such visits of held, and
// its visits to its own host, run one at a time, each at the group's
// next start and at least IPDelay after heldEnd, and move the group's
// next start as a lease's end does.
func (f *Frontier) Visit(ctx context.Context, name string, held uint64, heldEnd time.Time) (crawl.Visit, error) {
	var addr *visitAddr
	for {
		v, err := poll(ctx, f, func() (crawl.Visit, time.Duration, error) { return f.tryVisit(name, held, heldEnd, addr) })
		if nr := (*needResolve)(nil); errors.As(err, &nr) {
			addrs, rerr := f.ipc.resolve(ctx, name)
			if err := ctx.Err(); err != nil {
				return crawl.Visit{}, err
			}
			addr = &visitAddr{addrs: addrs, err: rerr}
			continue
		}
		return v, err
	}
}

// visitAddr is the resolver's answer for a visited host whose address
// the frontier did not know.
type visitAddr struct {
	addrs []netip.Addr
	err   error
}

// tryVisit takes the visit, or says how long to wait (wait < 0: until
// something changes). f.mu must be held.
func (f *Frontier) tryVisit(name string, held uint64, heldEnd time.Time, addr *visitAddr) (crawl.Visit, time.Duration, error) {
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
		if wait := f.heldIPWait(ls, heldEnd, now); wait != 0 {
			return crawl.Visit{}, wait, nil
		}
		ls.visiting = true
		f.startHeldIP(ls, now)
		done := false
		return crawl.Visit{Robots: h.robots, Release: func(out crawl.Outcome) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			if done {
				return nil
			}
			done = true
			ls.visiting = false
			f.endHeldIP(ls, out)
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
	g, shared, wait, err := f.visitIP(h, held, heldEnd, addr, now)
	if err != nil || wait != 0 {
		return crawl.Visit{}, wait, err
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
	ipl := f.startVisitIP(h, g, shared, addr, now)
	done := false
	return crawl.Visit{Robots: h.robots, Release: func(out crawl.Outcome) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if done || f.closed {
			return nil
		}
		done = true
		return f.endVisit(h, prev, out, ipl, shared)
	}}, 0, nil
}

// visitIP decides whether a visit to h (not held's host) may start now
// as far as h's IP group goes: it returns the group (nil: none), the
// lease held when the visit takes its IP slot (see Visit), or how long to
// wait (< 0: until something changes), or a *needResolve when h's
// address is unknown and Visit has not resolved it (addr nil). f.mu must
// be held.
func (f *Frontier) visitIP(h *host, held uint64, heldEnd time.Time, addr *visitAddr, now time.Time) (*ipGroup, *lease, time.Duration, error) {
	if !f.ipc.on() {
		return nil, nil, 0, nil
	}
	var g *ipGroup
	switch h.ipState {
	case ipResolving:
		return nil, nil, -1, nil // a Next resolves it: resolveHost broadcasts
	case ipKnown:
		g = h.ip
	default:
		if addr == nil {
			return nil, nil, 0, &needResolve{host: h.name}
		}
		if addr.err == nil && len(addr.addrs) > 0 {
			key := IPKey(addr.addrs[0])
			if g = f.groups[key]; g == nil {
				// A group no one holds yet: only the shared budget's
				// start hold may bind.
				return nil, nil, f.startWait(key, time.Time{}, now), nil
			}
		}
	}
	if g == nil {
		return nil, nil, 0, nil
	}
	if ls := f.leases[held]; held != 0 && ls != nil && ls.host.ip == g && !ls.ipStart.IsZero() {
		if wait := f.heldIPWait(ls, heldEnd, now); wait != 0 {
			return nil, nil, wait, nil
		}
		return g, ls, 0, nil
	}
	if !g.room(f.ipc) {
		if b := f.ipc.budget; b != nil && (f.ipc.concurrency <= 0 || g.inflight < f.ipc.concurrency) {
			b.Want(g.key) // the shared budget holds the group back: IPRoom broadcasts
		}
		return nil, nil, -1, nil
	}
	if g.pending > 0 {
		return nil, nil, -1, nil // a lease's request not yet on the wire: Wrote broadcasts
	}
	if wait := g.nextStart.Sub(now); wait > 0 {
		return nil, nil, wait, nil
	}
	if wait := f.startWait(g.key, g.nextStart, now); wait != 0 {
		return nil, nil, wait, nil
	}
	return g, nil, 0, nil
}

// startWait says how long a visit to address key, whose group's next
// start is nextStart, must wait for the shared budget's start hold, if
// it spaces starts across nodes (0: it may start now; < 0: until IPRoom
// broadcasts, asked for). f.mu must be held.
func (f *Frontier) startWait(key string, nextStart, now time.Time) time.Duration {
	st, ok := f.ipc.budget.(IPStarts)
	if !ok {
		return 0
	}
	at, ok := st.StartAt(key, now)
	if !ok {
		st.WantStart(key, laterOf(now, nextStart))
		return -1
	}
	return max(at.Sub(now), 0)
}

// heldIPWait says how long a visit on the IP slot of lease ls, whose own
// request ended at heldEnd, must wait (0: it may start now; < 0: until
// another visit on the slot ends): such visits run one at a time, each at
// the group's next start and at least IPDelay after heldEnd. A lease not
// counted in a group has no slot to wait for. f.mu must be held.
func (f *Frontier) heldIPWait(ls *lease, heldEnd time.Time, now time.Time) time.Duration {
	g := ls.host.ip
	if !f.ipc.on() || g == nil || ls.ipStart.IsZero() {
		return 0
	}
	if ls.ipVisiting || g.pending > 0 {
		return -1
	}
	if wait := laterOf(g.nextStart, heldEnd.Add(f.ipc.delay)).Sub(now); wait > 0 {
		return wait
	}
	return f.startWait(g.key, g.nextStart, now)
}

// startHeldIP starts a visit, at now, on the IP slot of lease ls (when ls
// is counted in a group). f.mu must be held.
func (f *Frontier) startHeldIP(ls *lease, now time.Time) {
	g := ls.host.ip
	if !f.ipc.on() || g == nil || ls.ipStart.IsZero() {
		return
	}
	ls.ipVisiting = true
	g.nextStart = now.Add(f.ipc.delay)
	if st, ok := f.ipc.budget.(IPStarts); ok {
		st.Started(g.key) // its wire time is not reported: Wrote at its end
	}
}

// endHeldIP ends a visit on the IP slot of lease ls: the group's next
// start moves to IPDelay after the first byte of its answer, as endedIP
// moves it for a lease. f.mu must be held.
func (f *Frontier) endHeldIP(ls *lease, out crawl.Outcome) {
	if !ls.ipVisiting {
		return
	}
	ls.ipVisiting = false
	if st, ok := f.ipc.budget.(IPStarts); ok && ls.host.ip != nil {
		st.Wrote(ls.host.ip.key, f.wireAt(out))
	}
	if g := ls.host.ip; g != nil && out.Requested {
		seen := out.FirstByte
		if seen.IsZero() {
			seen = out.End
		}
		if !seen.IsZero() {
			g.nextStart = laterOf(g.nextStart, seen.Add(f.ipc.delay))
		}
	}
}

// startVisitIP counts a visit to h, taken at now, in h's IP group: on the
// slot of lease shared, or as a lease of its own, which it returns (nil:
// not counted). h, now reserved by the visit, joins the group of the
// address Visit resolved if the frontier did not know it. f.mu must be
// held.
func (f *Frontier) startVisitIP(h *host, g *ipGroup, shared *lease, addr *visitAddr, now time.Time) *lease {
	if !f.ipc.on() {
		return nil
	}
	if h.ipState == ipUnknown && addr != nil {
		f.joinIP(h, addr.addrs, addr.err)
	}
	if shared != nil {
		f.startHeldIP(shared, now)
		return nil
	}
	if h.ip == nil {
		return nil
	}
	ipl := &lease{host: h}
	f.leasedIP(ipl, now)
	f.ipVisits[ipl] = struct{}{}
	return ipl
}

// endVisit records a visit's exchange on h, as apply does a lease's, and
// ends its hold on h's IP group: ipl's, or the slot of lease shared.
// f.mu must be held.
func (f *Frontier) endVisit(h *host, prev time.Time, out crawl.Outcome, ipl, shared *lease) error {
	if _, ok := f.ipVisits[ipl]; ok {
		delete(f.ipVisits, ipl)
		f.endedIP(ipl, out)
	}
	if shared != nil {
		f.endHeldIP(shared, out)
	}
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
		f.forgetIP(h)
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
