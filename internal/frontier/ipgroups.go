package frontier

import (
	"container/heap"
	"context"
	"net/netip"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

// IP groups: per-IP politeness (docs/frontier.md, "IP budget").
//
// Hosts whose names resolve to the same address (IPv4; IPv6 by its /64)
// share one budget on top of each host's own rules: at most
// Options.IPConcurrency leases out to the address at once, and at least
// Options.IPDelay between the starts of two leases to it, and after the
// first byte of each answer from it (see endedIP). The frontier
// learns a host's address when the host first reaches the front of the
// ready heap while active: Next drops the lock and asks Options.Resolve
// (the fetcher's DNS cache, so the fetch that follows finds the answer
// cached) on the worker's goroutine; no worker waits for politeness.
// A name that does not resolve joins no group (its fetch fails on its
// own). The address is kept while the host stays active; a host that
// goes idle and comes back is resolved again.
//
// Readiness: a host at the front of the ready heap whose group is at
// its concurrency or inside its delay is parked in the group's own heap
// (by ready time) instead of blocking the hosts behind it. A group
// releases one parked host at a time back to the ready heap, gated at
// the group's next start (host.ipReady), whenever it has room (a lease
// of it ends or starts); so each lease or completion costs O(log n), not
// a pass over the group's hosts.
//
// Cluster mode: an IPBudget (SetIPBudget) bounds each group further to
// the slots of the address this node holds; a group it holds back asks
// it for more (Want) and is released by IPRoom. An IPBudget that is also
// an IPStarts gates each start on the address's start hold as well: a
// group whose node does not hold it asks for it (WantStart) and is
// released by IPRoom, gated at the hold's first start (the previous
// holder's last wire time + IPDelay).

// IPKey is the IP group of an address: the address itself for IPv4
// (and IPv4-mapped IPv6), the /64 prefix for IPv6.
func IPKey(a netip.Addr) string {
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, err := a.WithZone("").Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}

// ipGroup is the shared budget of the hosts on one address.
type ipGroup struct {
	key       string
	inflight  int       // leases out to the address
	nextStart time.Time // the earliest start of the next lease (last start + IPDelay)
	// pending counts the leases started whose requests are not yet on
	// the wire (Frontier.Wrote): none starts while one is (0 or 1).
	pending  int
	members  int      // active hosts resolved into the group
	parked   parkHeap // members ready but held back by the group
	released *host    // the parked member handed back to the ready heap, if any
	waits    int64    // hosts parked by the group since it was made (ipview.go)
}

// IP resolution states of a host.
const (
	ipUnknown   = iota // not resolved while active
	ipResolving        // a Next is resolving it; out of the ready heap
	ipKnown            // resolved (h.ip nil: no address, ungated)
)

// ipConfig is the frontier's IP budget.
type ipConfig struct {
	concurrency int // 0: no bound
	delay       time.Duration
	wire        bool // Options.IPWire: leases pend until their requests are on the wire
	resolve     func(ctx context.Context, host string) ([]netip.Addr, error)
	budget      IPBudget // cluster mode: the budget shared with other nodes (SetIPBudget)
}

func (c ipConfig) on() bool { return c.resolve != nil }

// available reports whether a lease of g may start at now: room, no
// start pending, and not before the next start.
func (g *ipGroup) available(c ipConfig, now time.Time) bool {
	return g.room(c) && g.pending == 0 && !now.Before(g.nextStart)
}

// room reports whether g may have one more lease out: under the
// concurrency, and under the shared budget's limit when there is one.
func (g *ipGroup) room(c ipConfig) bool {
	if c.concurrency > 0 && g.inflight >= c.concurrency {
		return false
	}
	return c.budget == nil || g.inflight < c.budget.Limit(g.key)
}

// needResolve is tryLease's answer when the host at the front needs its
// address first: Next resolves it without the lock.
type needResolve struct{ host string }

func (e *needResolve) Error() string { return "frontier: " + e.host + " needs its address" }

// gateIP decides whether h, ready at the front of the ready heap, may be
// leased now as far as its IP group goes. It returns false after taking
// h out of the ready heap: parked in its group, or handed to a resolver
// (err is then a *needResolve). f.mu must be held.
func (f *Frontier) gateIP(h *host, now time.Time) (ok bool, err error) {
	if !f.ipc.on() {
		return true, nil
	}
	switch h.ipState {
	case ipUnknown:
		heap.Remove(&f.ready, h.heapIndex)
		h.ipState = ipResolving
		f.resolving++ // the crawl is not exhausted while a host is out being resolved
		return false, &needResolve{host: h.name}
	case ipResolving:
		return true, nil // not in the heap; cannot happen
	}
	g := h.ip
	if g == nil || (g.available(f.ipc, now) && f.startOK(g, now)) {
		return true, nil
	}
	heap.Remove(&f.ready, h.heapIndex)
	f.unrelease(h)
	heap.Push(&g.parked, h)
	g.waits++
	f.ipWaits++
	f.releaseIP(g)
	return false, nil
}

// resolveHost looks up the address of a host tryLease handed over, and
// puts the host back in the ready heap with its group.
func (f *Frontier) resolveHost(ctx context.Context, name string) error {
	addrs, rerr := f.ipc.resolve(ctx, name)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resolving--
	defer f.broadcast() // a Next waiting on this host may now lease it, or find the crawl exhausted
	h := f.hosts[name]
	if h == nil || h.ipState != ipResolving {
		return nil // dropped, or forgotten and back, meanwhile
	}
	if ctx.Err() != nil && rerr != nil {
		h.ipState = ipUnknown // this worker stops; another resolves it
		f.schedule(h)
		return ctx.Err()
	}
	f.joinIP(h, addrs, rerr)
	f.schedule(h)
	return nil
}

// joinIP makes h, active, a member of the group of the address its name
// resolved to (addrs, rerr: the resolver's answer). f.mu must be held.
func (f *Frontier) joinIP(h *host, addrs []netip.Addr, rerr error) {
	h.ipState = ipKnown
	if rerr == nil && len(addrs) > 0 {
		key := IPKey(addrs[0]) // the address the dialer tries first
		g := f.groups[key]
		if g == nil {
			g = &ipGroup{key: key}
			f.groups[key] = g
		}
		g.members++
		h.ip = g
	} else if rerr != nil {
		f.log.Debug("host address unknown; no IP budget for it", "host", h.name, "err", rerr)
	}
}

// leasedIP counts a lease of h, starting at now, against its group.
// f.mu must be held.
func (f *Frontier) leasedIP(ls *lease, now time.Time) {
	h := ls.host
	f.unrelease(h)
	g := h.ip
	if g == nil {
		return
	}
	ls.ipPrev = g.nextStart
	g.inflight++
	if f.ipc.wire {
		g.pending++
		ls.ipPending = true
	}
	if st, ok := f.ipc.budget.(IPStarts); ok {
		st.Started(g.key)
	}
	g.nextStart = now.Add(f.ipc.delay)
	ls.ipStart = g.nextStart
	f.releaseIP(g)
}

// endedIP ends a lease's hold on its group. A lease that sent no
// request gives its start back, if no lease started after it. One that
// did moves the group's next start to IPDelay after the first byte of
// its answer (its end, without one), when that is later: the server
// took the request before it answered, so a lease granted from then on
// starts at least IPDelay after this request reached the server, however
// long its connection took. (A lease granted while this one was out,
// with IPConcurrency above 1, is only IPDelay after this lease's start.)
// f.mu must be held.
func (f *Frontier) endedIP(ls *lease, out crawl.Outcome) {
	g := ls.host.ip
	if g == nil || ls.ipStart.IsZero() {
		return
	}
	g.inflight--
	if ls.ipPending || !f.ipc.wire {
		// Its request never reported being on the wire (or the
		// crawler does not report it): not sent, or sent and failed
		// (then End, below, is after it).
		if ls.ipPending {
			ls.ipPending = false
			g.pending--
		}
		if st, ok := f.ipc.budget.(IPStarts); ok {
			st.Wrote(g.key, f.wireAt(out))
		}
	}
	if b := f.ipc.budget; b != nil {
		b.Freed(g.key)
	}
	switch {
	case out.Requested:
		seen := out.FirstByte
		if seen.IsZero() {
			seen = out.End
		}
		if !seen.IsZero() {
			g.nextStart = laterOf(g.nextStart, seen.Add(f.ipc.delay))
		}
	case g.nextStart.Equal(ls.ipStart):
		g.nextStart = ls.ipPrev
	}
	f.releaseIP(g)
	f.gcIP(g)
}

// wireAt is the latest a request with outcome out can have gone on the
// wire (zero: it sent none).
func (f *Frontier) wireAt(out crawl.Outcome) time.Time {
	if !out.Requested {
		return time.Time{}
	}
	if at := laterOf(out.End, out.FirstByte); !at.IsZero() {
		return at
	}
	return f.now()
}

// Wrote is crawl.WireReporter's: the request of lease id (to host) went
// on the wire at at. The lease's group's next start moves to IPDelay
// after it, and the group's next lease may start (none does while a
// started lease's request is not yet on the wire: a request that leaves
// late, after a new connection's TLS handshake, say, cannot come closer
// than IPDelay to the next one).
func (f *Frontier) Wrote(id uint64, host string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ls := f.leases[id]
	if ls == nil || !ls.ipPending || ls.host.name != host {
		return
	}
	ls.ipPending = false
	g := ls.host.ip
	g.pending--
	g.nextStart = laterOf(g.nextStart, at.Add(f.ipc.delay))
	if st, ok := f.ipc.budget.(IPStarts); ok {
		st.Wrote(g.key, at)
	}
	f.releaseIP(g)
	f.broadcast()
}

// releaseIP hands g's first parked host back to the ready heap, gated at
// the group's next start, when the group has room and no host out
// already. f.mu must be held.
func (f *Frontier) releaseIP(g *ipGroup) {
	if g.released != nil || len(g.parked) == 0 || g.pending > 0 {
		return
	}
	if !g.room(f.ipc) {
		if b := f.ipc.budget; b != nil && (f.ipc.concurrency <= 0 || g.inflight < f.ipc.concurrency) {
			b.Want(g.key) // the shared budget, not this node's, holds the group back
		}
		return
	}
	ready := g.nextStart
	if st, ok := f.ipc.budget.(IPStarts); ok {
		at, ok := st.StartAt(g.key, f.now())
		if !ok {
			// Not before the first parked host is ready itself: a
			// token it cannot use in time lapses.
			st.WantStart(g.key, laterOf(g.nextStart, g.parked[0].readyAt())) // IPRoom at the token's time
			return
		}
		ready = laterOf(ready, at)
	}
	h := heap.Pop(&g.parked).(*host)
	h.ipReady = ready
	g.released = h
	f.schedule(h)
}

// unrelease clears h's gate if it was its group's released host.
func (f *Frontier) unrelease(h *host) {
	h.ipReady = time.Time{}
	if g := h.ip; g != nil && g.released == h {
		g.released = nil
	}
}

// unpark takes h out of its group's parked heap, or clears its release,
// and lets the group hand out another. f.mu must be held.
func (f *Frontier) unpark(h *host) {
	g := h.ip
	if g == nil {
		return
	}
	if h.parkIndex >= 0 {
		heap.Remove(&g.parked, h.parkIndex)
	}
	if g.released == h {
		f.unrelease(h)
		f.releaseIP(g)
	}
}

// forgetIP drops h from its group as it leaves memory. f.mu must be held.
func (f *Frontier) forgetIP(h *host) {
	g := h.ip
	if g == nil {
		return
	}
	f.unpark(h)
	h.ip = nil
	h.ipState = ipUnknown
	g.members--
	f.gcIP(g)
}

// gcIP forgets an empty group once its delay is over; a group that
// empties within its delay is kept (its next start still binds) until
// the next sweep, every gcSweep forgotten hosts.
func (f *Frontier) gcIP(g *ipGroup) {
	now := f.now()
	if g.members == 0 && g.inflight == 0 && !now.Before(g.nextStart) {
		delete(f.groups, g.key)
	}
	f.ipSweep++
	if f.ipSweep%gcSweep == 0 {
		for k, o := range f.groups {
			if o.members == 0 && o.inflight == 0 && !now.Before(o.nextStart) {
				delete(f.groups, k)
			}
		}
	}
}

const gcSweep = 4096

// waitingIP counts the hosts held back by their groups: parked, or
// released but gated later than their own ready time. f.mu must be held.
func (f *Frontier) waitingIP(now time.Time) int {
	n := 0
	for _, g := range f.groups {
		n += len(g.parked)
		if h := g.released; h != nil && h.ipReady.After(now) && h.ipReady.After(h.rec.readyAt) {
			n++
		}
	}
	return n
}

// IPGroup is what the frontier knows of one address's budget.
type IPGroup struct {
	Key      string // the address (IPv4) or /64 prefix (IPv6)
	Hosts    int    // active hosts resolved to it
	InFlight int    // leases out to it
	Parked   int    // hosts ready but waiting for the address
	// NextStart is the earliest start of its next request (zero: no
	// delay pending).
	NextStart time.Time
	// Limit is how many leases may be out to it now (IPConcurrency, or
	// fewer: the slots this node holds of the address in cluster mode;
	// 0: no bound); Full, whether InFlight has reached it.
	Limit int
	Full  bool
	// Waits counts the times a host ready by its own rules was held
	// back by the group, since the group was made.
	Waits int64
}

// IPGroups lists the IP groups of the active hosts (and of hosts gone
// idle whose group's delay still runs), in no order.
func (f *Frontier) IPGroups() []IPGroup {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]IPGroup, 0, len(f.groups))
	for _, g := range f.groups {
		ig := IPGroup{Key: g.key, Hosts: g.members, InFlight: g.inflight, Parked: len(g.parked),
			Limit: g.limit(f.ipc), Full: !g.room(f.ipc), Waits: g.waits}
		if g.released != nil {
			ig.Parked++
		}
		if g.nextStart.After(f.now()) {
			ig.NextStart = g.nextStart
		}
		out = append(out, ig)
	}
	return out
}

// parkHeap orders a group's parked hosts by ready time.
type parkHeap []*host

func (h parkHeap) Len() int { return len(h) }

func (h parkHeap) Less(i, j int) bool { return hostHeap(h).Less(i, j) }

func (h parkHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].parkIndex = i
	h[j].parkIndex = j
}

func (h *parkHeap) Push(x any) {
	hh := x.(*host)
	hh.parkIndex = len(*h)
	*h = append(*h, hh)
}

func (h *parkHeap) Pop() any {
	old := *h
	n := len(old)
	hh := old[n-1]
	old[n-1] = nil
	hh.parkIndex = -1
	*h = old[:n-1]
	return hh
}

// IPBudget is an IP budget shared with other crawler nodes (cluster
// mode: package jetstream's IPSlots), on top of Options.IPConcurrency
// and Options.IPDelay. The frontier calls it with its lock held: its
// methods must return at once and must not call the frontier.
type IPBudget interface {
	// Limit is how many leases this node may have out to the address
	// key now.
	Limit(key string) int
	// Want tells that a host of key's group is ready but held back by
	// Limit: the budget should try to grant more (and then call
	// Frontier.IPRoom).
	Want(key string)
	// Freed tells that a lease to key ended.
	Freed(key string)
}

// IPStarts is an IPBudget that also spaces the starts to an address
// across nodes (package jetstream's IPSlots, with the start hold: one
// node at a time may start requests to an address): a lease to the
// address starts only when StartAt allows it, on top of
// Options.IPDelay between this node's own starts. Called with the
// frontier's lock held, as IPBudget; the frontier asks StartAt and
// tells Started under one hold of its lock, and IPStarts relies on that
// (taking the lock once, by IPUse, tells it every start allowed before
// is counted).
type IPStarts interface {
	// StartAt reports whether a lease to key may start, and not
	// before when (zero: no bound but this node's own); false when
	// this node must ask for the hold.
	StartAt(key string, now time.Time) (at time.Time, ok bool)
	// WantStart asks for the hold of key for a start not before
	// notBefore; the budget calls Frontier.IPRoom once it has it.
	WantStart(key string, notBefore time.Time)
	// Started tells that a lease to key starts. Every Started is
	// followed by one Wrote.
	Started(key string)
	// Wrote tells that the request of a lease Started to key went on
	// the wire at at, or the latest it can have (its end, when the
	// crawler does not report wire times); zero: it sent none.
	Wrote(key string, at time.Time)
}

// startOK reports whether the shared budget, if it spaces starts, lets a
// lease of g start at now. f.mu must be held.
func (f *Frontier) startOK(g *ipGroup, now time.Time) bool {
	st, ok := f.ipc.budget.(IPStarts)
	if !ok {
		return true
	}
	at, ok := st.StartAt(g.key, now)
	return ok && !now.Before(at)
}

// IPDelay is Options.IPDelay.
func (f *Frontier) IPDelay() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ipc.delay
}

// IPConcurrency is Options.IPConcurrency, and whether the frontier
// keeps IP groups at all (Options.Resolve set: fetching directly).
func (f *Frontier) IPConcurrency() (n int, on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ipc.concurrency, f.ipc.on()
}

// SetIPBudget makes b bound every IP group further (set it before the
// first lease).
func (f *Frontier) SetIPBudget(b IPBudget) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ipc.budget = b
}

// IPRoom tells the frontier that the budget of address key grew: a
// host its group holds back may be leased now.
func (f *Frontier) IPRoom(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if g := f.groups[key]; g != nil {
		f.releaseIP(g)
	}
	f.broadcast() // a Visit may wait for the address's start hold with no group yet
}

// IPUse reports the leases out to address key and whether its group
// has hosts (active hosts resolved to it, or hosts parked in it).
func (f *Frontier) IPUse(key string) (inflight int, used bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.groups[key]
	if g == nil {
		return 0, false
	}
	return g.inflight, g.members > 0 || len(g.parked) > 0 || g.released != nil
}

// IPWaits reports whether a host of address key's group is ready by its
// own rules and held back by the group (parked, or released and gated
// at the group's next start).
func (f *Frontier) IPWaits(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.groups[key]
	return g != nil && (len(g.parked) > 0 || g.released != nil)
}
