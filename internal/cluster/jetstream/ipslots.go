package jetstream

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"
)

// IP slots: the per-IP budget across the nodes of a crawl
// (docs/cluster.md, "Per-IP budget"; docs/decisions.md).
//
// An address's budget of IPConcurrency requests in flight is
// IPConcurrency slot keys in the crawl's "ipslots" bucket,
// s.<address>.<i>, i < IPConcurrency. A node may have as many leases out
// to an address as it holds slots of it: it takes a slot with Create
// (only one node can), renews the slots it holds at every tick, as
// shard leases are renewed (compare-and-set, per-key TTL), and counts a
// slot only until TTL×2/3 after its last confirmed renewal was sent. So
// the nodes together never have more than IPConcurrency requests
// starting to an address, a dead node's slots expire after the TTL, and
// with NATS unreachable a node stops starting requests to the address
// within TTL×2/3, as it stops fetching its shards.
//
// A node keeps the slots it took while it uses the address and no other
// node asks for one: an address only one node uses costs no round trip
// per request, only the takes as its concurrency first grows and one
// renewal per slot per tick. A node that finds every slot taken writes
// a want key, w.<address>.<node> (TTL-bound, rewritten every tick while
// it wants); the nodes that want an address split its slots (the
// share: IPConcurrency / wanters, the remainder to the first names), and
// a node holding more than its share gives a slot back (Delete) as
// soon as a request of its ends, and one whose frontier has no host on
// the address any more gives back all. Every node watches the bucket,
// so a slot given back is taken at once.
//
// No worker waits for a slot: the frontier parks the hosts of an
// address held back by Limit (frontier.IPBudget) and leases other hosts
// meanwhile; IPSlots takes slots on its own goroutine and calls
// IPFrontier.IPRoom when one is taken.

// IPFrontier is the frontier IPSlots gives room to
// (frontier.Frontier).
type IPFrontier interface {
	// IPRoom tells that the budget of address key grew.
	IPRoom(key string)
	// IPUse reports the leases out to key and whether its group has
	// hosts.
	IPUse(key string) (inflight int, used bool)
	// IPWaits reports whether a host of key's group is ready by its own
	// rules and held back by the group.
	IPWaits(key string) bool
}

// IPSlots is a node's share of the per-IP budget of a crawl: the
// frontier's IPBudget in cluster mode. Run must be running.
type IPSlots struct {
	node        string
	kv          js.KeyValue
	js          js.JetStream
	bucket      string
	fr          IPFrontier
	concurrency int
	ttl, margin time.Duration
	tick        time.Duration
	timeout     time.Duration
	log         *slog.Logger
	// delay spaces the starts to every address across nodes, by the
	// start hold (SpaceStarts, iphold.go; 0: not); a hold received
	// while others wait is handed on if not used within grace.
	delay, grace time.Duration

	kick chan struct{}
	mu   sync.Mutex
	// addrs are the addresses this node wants or holds slots of, and
	// those others want or hold slots of (from the bucket's watch), by
	// their key's address part.
	addrs map[string]*ipAddr
	stats IPSlotStats
}

// ipAddr is one address as this node sees it.
type ipAddr struct {
	key   string               // the frontier's group key; empty: not used here
	held  map[int]*ipSlot      // the slots this node holds
	taken map[int]string       // every slot's holder, as watched
	wants map[string]time.Time // other nodes' want keys, when seen
	want  bool                 // the frontier asked for a slot
	// wantPut is when this node last wrote its want key (zero: none
	// written, or deleted since); forced, when it last tried slots
	// the watch says are taken.
	wantPut, forced time.Time
	// told is the Limit last seen by step: when it grows otherwise
	// than by a take (a share grows, contention ends), step tells the
	// frontier (IPRoom).
	told int

	// The start hold (iphold.go). rec, recRev: the address's record as
	// watched or written (recGone: deleted or expired, at goneRev).
	// holding: the record names this node, which may start until
	// holdUntil (handing: it is handing the hold on, or giving it up,
	// and starts no more); from: its first start is not before then
	// (the last holder's wire time + delay); useBy: a hold others wait
	// for is handed on then if unused; turn: starts since it got the
	// hold. pending: starts whose requests are not on the wire yet;
	// wire: the latest wire time of this node's requests. startWant:
	// the frontier waits for the hold (wake: it should be told to ask
	// again, IPRoom). holdBusy: a write is under way;
	// holdRetry: a failed one is tried again from then.
	rec                          holdRecord
	recRev, goneRev              uint64
	recGone, holding, handing    bool
	startWant, holdBusy, wake    bool
	holdUntil, from, useBy, wire time.Time
	holdRetry                    time.Time
	turn, pending                int
}

// ipSlot is a slot this node holds.
type ipSlot struct {
	rev       uint64
	deadline  time.Time // (monotonic) counts as held before it
	releasing bool      // being given back: not counted
}

// IPSlotStats count an IPSlots' round trips to NATS, and its starts.
type IPSlotStats struct {
	Takes, TakesRefused, Gives, Renewals, WantPuts int64
	// The start hold (iphold.go): its writes (round trips) to take the
	// hold (create it, or take it free), to queue for it, to hand it
	// on and to give it up, the reads after a write met another
	// node's (HoldConflicts), and its renewals (one per hold per tick).
	HoldTakes, HoldQueues, HoldHands, HoldFrees, HoldConflicts, HoldRenewals int64
	// Starts counts the starts to addresses under the hold; HoldsGot,
	// the holds this node got; HoldsUnused, those it handed on (or
	// lost) without a start. StartsUnheld counts starts made without
	// the hold (the frontier asks StartAt first: 0 unless a hold was
	// lost between the two calls).
	Starts, HoldsGot, HoldsUnused, StartsUnheld int64
}

// HoldTrips is the start hold's round trips on the IPSlots goroutine
// (renewals not counted: one per hold per tick, not per start).
func (st IPSlotStats) HoldTrips() int64 {
	return st.HoldTakes + st.HoldQueues + st.HoldHands + st.HoldFrees + st.HoldConflicts
}

// IPSlots opens the crawl's slot bucket and returns the node's IP
// budget of concurrency requests in flight per address, over fr.
func (n *Node) IPSlots(ctx context.Context, fr IPFrontier, concurrency int) (*IPSlots, error) {
	if concurrency <= 0 {
		return nil, errors.New("jetstream: ip slots: no concurrency bound")
	}
	kv, err := n.bucket(ctx, "ipslots", n.cfg.LeaseTTL)
	if err != nil {
		return nil, err
	}
	return &IPSlots{
		node: n.cfg.Node, kv: kv, js: n.js, bucket: bucketName(n.cfg.Crawl, "ipslots"), fr: fr,
		concurrency: concurrency, ttl: n.cfg.LeaseTTL, margin: n.cfg.margin(), tick: n.cfg.tick(),
		timeout: n.cfg.RequestTimeout, log: n.log,
		kick: make(chan struct{}, 1), addrs: map[string]*ipAddr{},
	}, nil
}

// addrPart is key as a token of the bucket's keys.
func addrPart(key string) string {
	return strings.NewReplacer(".", "-", ":", "_").Replace(key)
}

func (s *IPSlots) addr(part string) *ipAddr {
	a := s.addrs[part]
	if a == nil {
		a = &ipAddr{held: map[int]*ipSlot{}, taken: map[int]string{}, wants: map[string]time.Time{}}
		s.addrs[part] = a
	}
	return a
}

// contended reports whether another node wants a slot of a (its want
// key is recent): it holds fewer than its share and found every slot
// taken. s.mu held.
func (s *IPSlots) contended(a *ipAddr, now time.Time) bool {
	for _, at := range a.wants {
		if now.Sub(at) < s.ttl {
			return true
		}
	}
	return false
}

// share is this node's fair share of a's slots: an even split among
// the nodes that use the address (hold one of its slots, or want one),
// the remainder to the first by name. s.mu held.
func (s *IPSlots) share(a *ipAddr, now time.Time) int {
	names := []string{s.node}
	for _, node := range a.taken {
		if node != "?" && !slices.Contains(names, node) {
			names = append(names, node)
		}
	}
	for node, at := range a.wants {
		if now.Sub(at) < s.ttl && !slices.Contains(names, node) {
			names = append(names, node)
		}
	}
	slices.Sort(names)
	k := len(names)
	sh := s.concurrency / k
	if slices.Index(names, s.node) < s.concurrency%k {
		sh++
	}
	return sh
}

// usable counts the slots of a this node may count now. s.mu held.
func (a *ipAddr) usable(now time.Time) int {
	c := 0
	for _, sl := range a.held {
		if !sl.releasing && now.Before(sl.deadline) {
			c++
		}
	}
	return c
}

// Limit is frontier.IPBudget's: how many leases to key may be out now.
func (s *IPSlots) Limit(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.addrs[addrPart(key)]
	if a == nil {
		return 0
	}
	return s.limit(a, time.Now())
}

// limit is Limit of a. s.mu held.
func (s *IPSlots) limit(a *ipAddr, now time.Time) int {
	if s.contended(a, now) {
		return min(a.usable(now), s.share(a, now))
	}
	return a.usable(now)
}

// Want is frontier.IPBudget's: a host of key waits for a slot.
func (s *IPSlots) Want(key string) {
	s.mu.Lock()
	a := s.addr(addrPart(key))
	a.key = key
	a.want = true
	s.mu.Unlock()
	s.poke()
}

// Freed is frontier.IPBudget's: a lease to key ended. A slot of an
// address others want is given back at once when it is not used.
func (s *IPSlots) Freed(key string) {
	s.mu.Lock()
	a := s.addrs[addrPart(key)]
	contended := a != nil && len(a.wants) > 0
	s.mu.Unlock()
	if contended {
		s.poke()
	}
}

func (s *IPSlots) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Stats are the round trips so far.
func (s *IPSlots) Stats() IPSlotStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Held counts the slots of key this node holds and may count now.
func (s *IPSlots) Held(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.addrs[addrPart(key)]; a != nil {
		return a.usable(time.Now())
	}
	return 0
}

// Run takes, renews and gives back slots until ctx ends, then gives
// back every slot held (best effort: what is not deleted expires).
func (s *IPSlots) Run(ctx context.Context) error {
	defer func() {
		s.giveAll()
		st := s.Stats()
		s.log.Info("cluster: IP slots' round trips", "takes", st.Takes, "refused", st.TakesRefused,
			"gives", st.Gives, "want_puts", st.WantPuts, "renewals", st.Renewals,
			"hold_takes", st.HoldTakes, "hold_queues", st.HoldQueues, "hold_hands", st.HoldHands,
			"hold_frees", st.HoldFrees, "hold_conflicts", st.HoldConflicts, "hold_renewals", st.HoldRenewals,
			"starts", st.Starts, "holds_got", st.HoldsGot, "holds_unused", st.HoldsUnused, "starts_unheld", st.StartsUnheld)
	}()
	var updates <-chan js.KeyValueEntry
	if w, err := s.kv.WatchAll(ctx); err != nil {
		s.log.Warn("cluster: cannot watch the IP slots; taking them at each tick", "err", err)
	} else {
		defer func() { _ = w.Stop() }()
		updates = w.Updates()
	}
	t := time.NewTicker(s.tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			s.renew(ctx)
			s.renewHolds(ctx)
			s.step(ctx, true)
		case <-s.kick:
			s.step(ctx, false)
		case e, ok := <-updates:
			if !ok {
				updates = nil
				continue
			}
			if e == nil {
				continue
			}
			got, part, act := s.seenHoldKey(e)
			if got {
				s.room(part) // handed to this node
			}
			if act || s.seen(e) {
				s.step(ctx, false)
			}
		}
	}
}

// seen records a watched entry; it reports whether it may give this
// node a slot or oblige it to give one back.
func (s *IPSlots) seen(e js.KeyValueEntry) bool {
	parts := strings.Split(e.Key(), ".")
	if len(parts) == 2 && parts[0] == "t" {
		return false // seenHoldKey's
	}
	if len(parts) != 3 {
		return false
	}
	put := e.Operation() == js.KeyValuePut
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.addrs[parts[1]]
	if a == nil {
		if !put {
			return false
		}
		a = s.addr(parts[1])
	}
	switch parts[0] {
	case "s":
		i, err := strconv.Atoi(parts[2])
		if err != nil {
			return false
		}
		if put {
			a.taken[i] = string(e.Value())
			return false
		}
		delete(a.taken, i)
		return a.want
	case "w":
		if parts[2] == s.node {
			return false
		}
		if !put {
			delete(a.wants, parts[2])
			return a.want // this node's share may be larger now
		}
		a.wants[parts[2]] = time.Now()
		return len(a.held) > 0
	}
	return false
}

// step gives back the slots this node should not keep and takes slots
// for the addresses whose hosts wait; at a tick it also forgets what is
// stale.
func (s *IPSlots) step(ctx context.Context, tick bool) {
	type todo struct {
		part, key string
		try       []int
		dropWant  bool
	}
	type holdTodo struct {
		part string
		act  int
	}
	now := time.Now()
	var give, room []string
	var take []todo
	var holds []holdTodo
	s.mu.Lock()
	for part, a := range s.addrs {
		if a.wake {
			a.wake = false
			if a.key != "" {
				room = append(room, a.key)
			}
		}
		if act := s.holdStep(a, now, tick); act != holdNone {
			a.holdBusy = true
			holds = append(holds, holdTodo{part, act})
		}
		for node, at := range a.wants {
			if now.Sub(at) >= s.ttl {
				delete(a.wants, node)
			}
		}
		for i, sl := range a.held {
			if !now.Before(sl.deadline) && !sl.releasing {
				delete(a.held, i) // not confirmed in time: it expires in the bucket
			}
		}
		if len(a.held) > 0 && (tick || len(a.wants) > 0) {
			give = append(give, part)
		}
		if !a.want || a.key == "" {
			if tick && len(a.held) == 0 && len(a.wants) == 0 && len(a.taken) == 0 && !a.want && !a.startWant && !a.holdBusy &&
				!a.holding && a.pending == 0 && (a.recGone || a.recRev == 0) {
				delete(s.addrs, part)
			}
			continue
		}
		if lim := s.limit(a, now); lim != a.told {
			if lim > a.told {
				room = append(room, a.key)
			}
			a.told = lim
		}
		sh, u := s.share(a, now), a.usable(now)
		if !a.wantPut.IsZero() && u >= sh {
			// Satisfied: the others need not hold back for us.
			take = append(take, todo{part: part, key: a.key, dropWant: true})
		}
		if u >= s.concurrency {
			a.want = false // the frontier asks again when it has room
			continue
		}
		if u >= sh && s.contended(a, now) {
			continue // the share binds: still wanted, once it grows
		}
		// The watch may have missed a slot's expiry: once a TTL, the
		// slots it says are taken are tried too.
		force := tick && now.Sub(a.forced) >= s.ttl
		if force {
			a.forced = now
		}
		var try []int
		for i := range s.concurrency {
			if a.held[i] != nil {
				continue
			}
			if _, t := a.taken[i]; !t || force {
				try = append(try, i)
			}
		}
		take = append(take, todo{part: part, key: a.key, try: try})
	}
	s.mu.Unlock()
	for _, key := range room {
		s.fr.IPRoom(key)
	}
	// Addresses in parallel (as shard claims are), each by one
	// goroutine: a step with many addresses must not hold up the
	// renewals behind it.
	var g errgroup.Group
	g.SetLimit(16)
	for _, part := range give {
		g.Go(func() error { s.giveBack(ctx, part, false); return nil })
	}
	_ = g.Wait()
	for _, t := range take {
		g.Go(func() error { s.serve(ctx, t.part, t.key, t.try, t.dropWant, now); return nil })
	}
	for _, h := range holds {
		g.Go(func() error { s.hold(ctx, h.part, h.act); return nil })
	}
	_ = g.Wait()
}

// serve takes one of the slots try of part for the frontier, or asks
// the others for one; with dropWant, it deletes this node's want key
// instead.
func (s *IPSlots) serve(ctx context.Context, part, key string, try []int, dropWant bool, now time.Time) {
	if dropWant {
		s.dropWant(ctx, part)
		return
	}
	for _, i := range try {
		if s.take(ctx, part, i) {
			s.mu.Lock()
			a := s.addrs[part]
			a.want = false // asked again if still held back
			a.told = s.limit(a, time.Now())
			s.mu.Unlock()
			s.fr.IPRoom(key)
			return
		}
	}
	// Every slot taken: below its share, the node asks the others to
	// give some back.
	s.mu.Lock()
	a := s.addrs[part]
	due := now.Sub(a.wantPut) >= s.tick && a.usable(now) < s.share(a, now)
	s.mu.Unlock()
	if due {
		s.putWant(ctx, part)
	}
}

// take tries to create slot i of part.
func (s *IPSlots) take(ctx context.Context, part string, i int) bool {
	sent := time.Now()
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	rev, err := s.kv.Create(cctx, "s."+part+"."+strconv.Itoa(i), []byte(s.node), js.KeyTTL(s.ttl))
	cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Takes++
	a := s.addr(part)
	if err != nil {
		s.stats.TakesRefused++
		if errors.Is(err, js.ErrKeyExists) {
			if _, ok := a.taken[i]; !ok {
				a.taken[i] = "?"
			}
		} else if ctx.Err() == nil {
			s.log.Debug("cluster: IP slot not taken", "slot", part+"."+strconv.Itoa(i), "err", err)
		}
		return false
	}
	a.held[i] = &ipSlot{rev: rev, deadline: sent.Add(s.margin)}
	a.taken[i] = s.node
	return true
}

// putWant writes this node's want key of part.
func (s *IPSlots) putWant(ctx context.Context, part string) {
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	m := nats.NewMsg("$KV." + s.bucket + ".w." + part + "." + s.node)
	m.Data = []byte{'1'}
	_, err := s.js.PublishMsg(cctx, m, js.WithMsgTTL(s.ttl))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.WantPuts++
	if err == nil {
		s.addr(part).wantPut = time.Now()
	}
}

// dropWant deletes this node's want key of part.
func (s *IPSlots) dropWant(ctx context.Context, part string) {
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err := s.kv.Delete(cctx, "w."+part+"."+s.node)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.WantPuts++
	if err == nil {
		s.addr(part).wantPut = time.Time{}
	}
}

// giveBack deletes the slots of part this node holds beyond what it
// uses, when another node wants one, its share is smaller, or the
// frontier has no host on the address any more (all, with all).
func (s *IPSlots) giveBack(ctx context.Context, part string, all bool) {
	now := time.Now()
	s.mu.Lock()
	a := s.addrs[part]
	if a == nil || len(a.held) == 0 {
		s.mu.Unlock()
		return
	}
	key := a.key
	s.mu.Unlock()
	inflight, used := 0, false
	if key != "" && !all {
		inflight, used = s.fr.IPUse(key)
	}
	s.mu.Lock()
	keep := a.usable(now)
	switch {
	case all || !used:
		keep = 0
	case s.contended(a, now):
		// Another node is below its share: keep this node's share
		// (Limit counts no more) and what is in use.
		keep = max(inflight, min(keep, s.share(a, now)))
	}
	var rel []int
	for i, sl := range a.held {
		if sl.releasing {
			rel = append(rel, i) // a give-back that failed: again
		}
	}
	for i, sl := range a.held {
		if keep >= a.usable(now) {
			break
		}
		if !sl.releasing {
			sl.releasing = true // Limit no longer counts it
			rel = append(rel, i)
		}
	}
	s.mu.Unlock()
	if len(rel) == 0 {
		return
	}
	// A lease may have started between IPUse and the marking: give back
	// only what the frontier's count, read again now that Limit is
	// lower, leaves unused.
	if key != "" && !all {
		inflight, _ = s.fr.IPUse(key)
	}
	s.mu.Lock()
	spare := a.usable(now) - inflight
	for len(rel) > 0 && spare < 0 {
		a.held[rel[0]].releasing = false
		rel = rel[1:]
		spare++
	}
	revs := make([]uint64, len(rel))
	for k, i := range rel {
		revs[k] = a.held[i].rev
	}
	s.mu.Unlock()
	for k, i := range rel {
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		err := s.kv.Delete(cctx, "s."+part+"."+strconv.Itoa(i), js.LastRevision(revs[k]))
		cancel()
		s.mu.Lock()
		s.stats.Gives++
		if err == nil || wrongSeq(err) || errors.Is(err, js.ErrKeyExists) {
			// Given back, or no longer ours (it expired): either way
			// not held.
			delete(a.held, i)
			if err == nil {
				delete(a.taken, i)
			}
		}
		// Otherwise it stays marked: not counted, renewed, and given
		// back at the next step, or it expires.
		s.mu.Unlock()
	}
}

// giveAll gives back every slot and hold held, as the node stops.
func (s *IPSlots) giveAll() {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	s.freeHolds(ctx)
	s.mu.Lock()
	parts := make([]string, 0, len(s.addrs))
	for part := range s.addrs {
		parts = append(parts, part)
	}
	s.mu.Unlock()
	for _, part := range parts {
		s.giveBack(ctx, part, true)
	}
}

// renew renews every slot held, with one asynchronous publish each,
// and stops counting those whose renewal was refused.
func (s *IPSlots) renew(ctx context.Context) {
	type pending struct {
		part string
		i    int
		rev  uint64
		sent time.Time
		f    js.PubAckFuture
	}
	type slot struct {
		part string
		i    int
		rev  uint64
	}
	var all []slot
	s.mu.Lock()
	for part, a := range s.addrs {
		for i, sl := range a.held {
			all = append(all, slot{part, i, sl.rev})
		}
	}
	s.mu.Unlock()
	var ps []pending
	for _, sl := range all {
		m := nats.NewMsg("$KV." + s.bucket + ".s." + sl.part + "." + strconv.Itoa(sl.i))
		m.Data = []byte(s.node)
		sent := time.Now()
		f, err := s.js.PublishMsgAsync(m, js.WithMsgTTL(s.ttl), js.WithExpectLastSequencePerSubject(sl.rev))
		if err != nil {
			continue
		}
		ps = append(ps, pending{sl.part, sl.i, sl.rev, sent, f})
	}
	timeout := time.NewTimer(s.timeout)
	defer timeout.Stop()
	for _, r := range ps {
		select {
		case ack := <-r.f.Ok():
			s.mu.Lock()
			s.stats.Renewals++
			if a := s.addrs[r.part]; a != nil {
				if sl := a.held[r.i]; sl != nil && sl.rev == r.rev {
					sl.rev = ack.Sequence
					sl.deadline = r.sent.Add(s.margin)
				}
			}
			s.mu.Unlock()
		case err := <-r.f.Err():
			s.mu.Lock()
			s.stats.Renewals++
			if a := s.addrs[r.part]; a != nil && wrongSeq(err) {
				if sl := a.held[r.i]; sl != nil && sl.rev == r.rev {
					delete(a.held, r.i)
				}
			}
			s.mu.Unlock()
		case <-timeout.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
