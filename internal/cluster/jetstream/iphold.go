package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"
)

// The start hold: the per-IP delay across the nodes of a crawl
// (docs/cluster.md, "Per-IP budget"; docs/decisions.md, 2026-11-27).
//
// Each address has one holder at a time, named in its record
// t.<address> of the slot bucket ({"h": holder, "w": wire, "t": sent,
// "q": queue}, JSON). Only the holder starts requests to the address;
// it keeps the hold while no other node asks for it, spacing its own
// starts as the frontier does (from each request's wire time), so an
// address one node uses costs no round trip per start: one write to
// take the hold, then one renewal per tick. A node that wants to start
// and does not hold the address appends itself to the record's queue
// (compare-and-set on the revision). The holder, once it has made a
// start since it got the hold (or has nothing to start), stops starting,
// waits until every request it started is on the wire (Wrote; the
// frontier's lock taken once, so a start the frontier was making is
// counted), and hands the hold to the first node queued, writing the
// latest wire time of its requests ("w") and, when its frontier still
// waits, itself at the end of the queue. The next holder starts no
// earlier than "w" + delay. So every request to an address goes on the
// wire at least delay after the one before it, whichever nodes sent
// them, less the clock skew between the two machines ("w" is one
// machine's wall clock, compared with the other's). Nodes that
// alternate pay one round trip per start (the hand-over; the next holder
// learns it from the bucket's watch), none is lost to a window lapsing.
//
// Node loss: the record has a per-key TTL (the lease TTL), renewed by
// the holder at every tick; a node's queue entry is written with the
// holder's remaining TTL, so the record expires at most about a second
// after TTL from the holder's last write. A holder counts its hold only
// until TTL×2/3 after its last write was sent (monotonic clock; a hold
// handed to it counts from the "t" the giver wrote, on the wall clock),
// so a holder cut off from NATS stops starting at least TTL/3 before
// the record can expire; the queued nodes then create it again. A holder
// that comes back after that has lost its hold: its next write is
// refused (the revision moved) and it queues like any node. What is not
// covered: a request that a holder started before it was cut off and
// that goes on the wire more than TTL/3 later (5 s by default).

// holdRecord is the value of t.<address>.
type holdRecord struct {
	// Holder is the node that may start requests to the address; ""
	// when the last holder gave it up.
	Holder string `json:"h,omitempty"`
	// Wire is the latest wire time (Unix ns, the writer's wall clock) of
	// the previous holders' requests: the next holder starts no earlier
	// than Wire + delay.
	Wire int64 `json:"w,omitempty"`
	// Sent is when the holder's last write was sent (Unix ns): the
	// record expires TTL after it, and a hold handed over counts until
	// TTL×2/3 after it.
	Sent int64 `json:"t"`
	// Queue are the nodes waiting for the hold, first first.
	Queue []string `json:"q,omitempty"`
}

// SpaceStarts makes s space the starts to every address delay apart
// across nodes (the start hold); call it before Run. Without it (or
// with delay 0) each node spaces only its own starts.
func (s *IPSlots) SpaceStarts(delay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = max(delay, 0)
	// A hold handed to a node that makes no start within grace of its
	// first start is handed on (the node asks again when it can start).
	s.grace = max(delay, 50*time.Millisecond)
}

// othersWait reports whether a node other than this one is queued for
// a's hold. s.mu held.
func (s *IPSlots) othersWait(a *ipAddr) bool {
	for _, n := range a.rec.Queue {
		if n != s.node {
			return true
		}
	}
	return false
}

// mayStart reports whether this node may start a request to a now.
// s.mu held.
func (s *IPSlots) mayStart(a *ipAddr, now time.Time) bool {
	if !a.holding || a.handing || !now.Before(a.holdUntil) {
		return false
	}
	// Others wait: one start per hold, and only within its grace.
	return !s.othersWait(a) || (a.turn == 0 && now.Before(a.useBy))
}

// StartAt is frontier.IPStarts': whether a lease to key may start, and
// not before when (the previous holder's last wire time + delay). True
// when starts are not spaced across nodes or this node holds the
// address; false when it must ask for the hold (WantStart).
func (s *IPSlots) StartAt(key string, now time.Time) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.delay <= 0 {
		return time.Time{}, true
	}
	a := s.addrs[addrPart(key)]
	if a == nil || !s.mayStart(a, time.Now()) {
		return time.Time{}, false
	}
	return a.from, true
}

// WantStart is frontier.IPStarts': a host of key waits for the hold;
// the frontier is told (IPRoom) once this node has it.
func (s *IPSlots) WantStart(key string, notBefore time.Time) {
	s.mu.Lock()
	a := s.addr(addrPart(key))
	a.key = key
	a.startWant = true
	s.mu.Unlock()
	s.poke()
}

// Started is frontier.IPStarts': a lease to key starts. Its request is
// pending until Wrote.
func (s *IPSlots) Started(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.delay <= 0 {
		return
	}
	a := s.addr(addrPart(key))
	a.key = key
	if !s.mayStart(a, time.Now()) {
		s.stats.StartsUnheld++ // the frontier's lock orders StartAt before: should not happen
	}
	a.pending++
	a.turn++
	a.startWant = false
	s.stats.Starts++
}

// Wrote is frontier.IPStarts': the request of a lease Started went on
// the wire at at (zero: it sent none). The hold is handed on only once
// every request started under it is on the wire.
func (s *IPSlots) Wrote(key string, at time.Time) {
	s.mu.Lock()
	a := s.addrs[addrPart(key)]
	if a == nil || a.pending == 0 {
		s.mu.Unlock()
		return
	}
	a.pending--
	if at.After(a.wire) {
		a.wire = at
	}
	if !at.IsZero() && s.log.Enabled(context.Background(), slog.LevelDebug) {
		s.log.Debug("cluster: IP request on the wire", "address", key, "wire_ns", at.UnixNano(), "holding", a.holding)
	}
	poke := a.pending == 0 && (a.handing || s.othersWait(a))
	s.mu.Unlock()
	if poke {
		s.poke()
	}
}

// Hold actions, decided by holdStep under s.mu, run by hold.
const (
	holdNone = iota
	holdCreate
	holdTake  // the record is free: make it ours
	holdQueue // append this node to the queue
	holdHand  // hand the hold to the first queued node
	holdFree  // give it up: the frontier has no host on the address
	holdWake  // tell the frontier it may start again
)

// holdStep decides what this node should do about a's hold now (at a
// tick, also whether to give it up). s.mu held.
func (s *IPSlots) holdStep(a *ipAddr, now time.Time, tick bool) int {
	if s.delay <= 0 || a.holdBusy || now.Before(a.holdRetry) {
		return holdNone
	}
	if a.holding {
		if !now.Before(a.holdUntil) {
			return holdNone // unconfirmed: the next renewal tells
		}
		if s.othersWait(a) && (a.handing || a.turn > 0 || !a.startWant || !now.Before(a.useBy)) {
			if a.pending > 0 {
				a.handing = true // no more starts; Wrote pokes
				return holdNone
			}
			return holdHand
		}
		if a.handing && !a.holdBusy && !s.othersWait(a) {
			// The queue emptied while a start was pending (the record
			// expired and was made again): starts may go on.
			a.handing = false
			return holdWake
		}
		if tick && a.pending == 0 && !a.handing && !s.othersWait(a) && a.key != "" {
			return holdFree // if the frontier has no host on it (stopStarts)
		}
		return holdNone
	}
	if !a.startWant || a.key == "" || slices.Contains(a.rec.Queue, s.node) {
		return holdNone
	}
	switch {
	case a.recRev == 0 || a.recGone:
		return holdCreate
	case a.rec.Holder == "" || a.rec.Holder == s.node:
		return holdTake
	}
	return holdQueue
}

// hold runs action act on part's hold (holdStep's), on the IPSlots
// goroutine.
func (s *IPSlots) hold(ctx context.Context, part string, act int) {
	defer func() {
		s.mu.Lock()
		s.addr(part).holdBusy = false
		s.mu.Unlock()
	}()
	if act == holdWake {
		s.room(part)
		return
	}
	if act == holdHand || act == holdFree {
		if !s.stopStarts(part, act) {
			return
		}
	}
	for range 8 {
		s.mu.Lock()
		a := s.addr(part)
		rec, rev, gone := a.rec, a.recRev, a.recGone
		if act == holdHand || act == holdFree {
			if !a.holding {
				a.handing = false
				s.mu.Unlock()
				return // lost meanwhile
			}
			if act == holdHand && !s.othersWait(a) {
				// The queue emptied (a conflict re-read): keep it.
				a.handing = false
				s.mu.Unlock()
				s.room(part)
				return
			}
		}
		wire := max(rec.Wire, unixNano(a.wire))
		// Queued again after a hand-over only when the frontier waits
		// for another start: a hold unused is not asked for again
		// before the frontier tries to start (and cannot).
		requeue := a.startWant && a.turn > 0
		s.mu.Unlock()

		sent := time.Now()
		next := holdRecord{Wire: wire, Sent: sent.UnixNano()}
		ttl := s.ttl
		switch act {
		case holdCreate, holdTake:
			next.Holder = s.node
			next.Queue = without(rec.Queue, s.node)
		case holdQueue:
			next = rec
			next.Queue = append(slices.Clone(rec.Queue), s.node)
			// The holder's TTL, not a new one: a dead holder's record
			// must not live on by the queue's writes.
			ttl = time.Unix(0, rec.Sent).Add(s.ttl).Sub(sent)
		case holdHand:
			q := without(rec.Queue, s.node)
			next.Holder, next.Queue = q[0], q[1:]
			if requeue {
				next.Queue = append(next.Queue, s.node)
			}
		case holdFree:
			ttl += s.delay // outlives wire + delay
		}
		val, err := json.Marshal(next)
		if err != nil {
			return
		}
		ttl = max(ttl.Truncate(time.Second)+time.Second, time.Second)
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		var nrev uint64
		if act == holdCreate || gone {
			nrev, err = s.kv.Create(cctx, "t."+part, val, js.KeyTTL(ttl))
		} else {
			nrev, err = s.publish(cctx, part, val, rev, ttl)
		}
		s.mu.Lock()
		s.countHold(act)
		if err == nil {
			s.wroteHold(part, next, nrev, sent)
			s.mu.Unlock()
			cancel()
			if next.Holder == s.node {
				s.room(part)
			}
			return
		}
		s.mu.Unlock()
		if !errors.Is(err, js.ErrKeyExists) && !wrongSeq(err) {
			cancel()
			break
		}
		// Another node wrote meanwhile: read the record and decide
		// again.
		e, gerr := s.kv.Get(cctx, "t."+part)
		cancel()
		s.mu.Lock()
		s.stats.HoldConflicts++
		a = s.addr(part)
		switch {
		case gerr == nil:
			s.seenHold(a, e)
		case errors.Is(gerr, js.ErrKeyNotFound):
			s.goneHold(a, 0)
		default:
			s.mu.Unlock()
			goto failed
		}
		again := s.holdStep(a, time.Now(), false)
		if act == holdHand || act == holdFree {
			again = act // still ours to hand on or give up, if held (above)
		}
		s.mu.Unlock()
		if again == holdNone {
			return
		}
		act = again
	}
failed:
	if ctx.Err() == nil {
		s.log.Debug("cluster: IP start hold not written", "address", part)
	}
	s.mu.Lock()
	a := s.addr(part)
	a.holdRetry = time.Now().Add(s.tick)
	s.mu.Unlock()
}

// stopStarts makes sure no start of this node to part is in progress
// before the hold is handed on or given up: it stops StartAt, then takes
// the frontier's lock once (IPUse or IPWaits), under which the frontier asks
// StartAt and counts a start (Started) together, so that every start
// allowed before is counted in pending. False: a start is pending
// (Wrote pokes), or, giving up, the frontier uses the address (then
// the frontier is told it may start again).
func (s *IPSlots) stopStarts(part string, act int) bool {
	s.mu.Lock()
	a := s.addr(part)
	key := a.key
	a.handing = true
	s.mu.Unlock()
	var used bool
	if act == holdFree {
		_, used = s.fr.IPUse(key)
	} else if s.fr.IPWaits(key) && a.turn > 0 {
		// The frontier waits to start again (a host held back by the
		// hold): queued again in the hand-over itself, not by a write
		// of its own once it asks.
		s.mu.Lock()
		a.startWant = true
		s.mu.Unlock()
	}
	s.mu.Lock()
	if act == holdFree && (used || a.pending > 0) {
		a.handing = false // keep it
		s.mu.Unlock()
		s.room(part)
		return false
	}
	ok := a.pending == 0
	if ok && act == holdFree {
		a.startWant = false
	}
	s.mu.Unlock()
	return ok
}

// room tells the frontier that part's hold may let a start through.
func (s *IPSlots) room(part string) {
	s.mu.Lock()
	key := s.addr(part).key
	s.mu.Unlock()
	if key != "" {
		s.fr.IPRoom(key)
	}
}

// publish writes part's record by compare-and-set on revision rev.
func (s *IPSlots) publish(ctx context.Context, part string, val []byte, rev uint64, ttl time.Duration) (uint64, error) {
	m := nats.NewMsg("$KV." + s.bucket + ".t." + part)
	m.Data = val
	ack, err := s.js.PublishMsg(ctx, m, js.WithMsgTTL(ttl), js.WithExpectLastSequencePerSubject(rev))
	if err != nil {
		return 0, err
	}
	return ack.Sequence, nil
}

func (s *IPSlots) countHold(act int) {
	switch act {
	case holdCreate, holdTake:
		s.stats.HoldTakes++
	case holdQueue:
		s.stats.HoldQueues++
	case holdHand:
		s.stats.HoldHands++
	case holdFree:
		s.stats.HoldFrees++
	}
}

// wroteHold records this node's write of part's record, sent at sent.
// s.mu held.
func (s *IPSlots) wroteHold(part string, r holdRecord, rev uint64, sent time.Time) {
	a := s.addr(part)
	if rev <= a.recRev && !a.recGone {
		return // the watch showed a later write already
	}
	was := a.holding
	a.rec, a.recRev, a.recGone = r, rev, false
	if r.Holder != s.node {
		s.dropHold(a)
		return
	}
	a.holdUntil = sent.Add(s.margin)
	if !was {
		s.gotHold(a, r)
	}
}

// gotHold makes this node a's holder, as r names it. s.mu held.
func (s *IPSlots) gotHold(a *ipAddr, r holdRecord) {
	now := time.Now()
	a.holding, a.handing, a.turn = true, false, 0
	a.from = time.Time{}
	if r.Wire != 0 {
		a.from = time.Unix(0, r.Wire).Add(s.delay)
	}
	a.useBy = laterOf(now, a.from).Add(s.grace)
	s.stats.HoldsGot++
}

// dropHold records that this node no longer holds a. s.mu held.
func (s *IPSlots) dropHold(a *ipAddr) {
	if a.holding && a.turn == 0 {
		s.stats.HoldsUnused++
		// Not queued again: the frontier is told (IPRoom, by step) and
		// asks again if it can start.
		a.startWant, a.wake = false, true
		s.poke()
	}
	a.holding, a.handing, a.turn = false, false, 0
}

// seenHold records a put of a's record (from the watch or a read), unless
// this node knows a later one. It reports whether this node got the hold
// by it. s.mu held.
func (s *IPSlots) seenHold(a *ipAddr, e js.KeyValueEntry) bool {
	if e.Revision() <= a.recRev && !(a.recGone && e.Revision() > a.goneRev) {
		return false
	}
	var r holdRecord
	if json.Unmarshal(e.Value(), &r) != nil {
		return false
	}
	a.rec, a.recRev, a.recGone = r, e.Revision(), false
	if r.Holder != s.node {
		s.dropHold(a)
		return false
	}
	// Counted until margin after the sending of the write that gave it
	// (the record expires TTL after its arrival): from the writer's wall
	// clock, as the monotonic one cannot cross machines.
	a.holdUntil = time.Now().Add(time.Until(time.Unix(0, r.Sent).Add(s.margin)))
	if a.holding {
		return false
	}
	s.gotHold(a, r)
	return true
}

// goneHold records that a's record was deleted or expired at revision
// rev (0: not found by a read). s.mu held.
func (s *IPSlots) goneHold(a *ipAddr, rev uint64) {
	if rev != 0 && rev <= a.recRev {
		return
	}
	if rev > a.recRev {
		a.recRev = rev
	}
	a.rec, a.recGone, a.goneRev = holdRecord{}, true, rev
	s.dropHold(a)
}

// seenHoldKey records a watched put or removal of a hold record
// (t.<address>; other keys: nothing). It reports whether this node got
// the hold by it, the address part, and whether this node may have to
// act on it (it holds the address, or waits for it and is not queued):
// other nodes' hand-overs do not cost it a pass over its addresses.
func (s *IPSlots) seenHoldKey(e js.KeyValueEntry) (got bool, part string, act bool) {
	k := e.Key()
	if len(k) < 3 || k[:2] != "t." || strings.Contains(k[2:], ".") {
		return false, "", false
	}
	part = k[2:]
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.addr(part)
	if e.Operation() != js.KeyValuePut {
		s.goneHold(a, e.Revision())
	} else {
		got = s.seenHold(a, e)
	}
	act = a.holding || a.wake || (a.startWant && !slices.Contains(a.rec.Queue, s.node))
	return got, part, act
}

// renewHolds renews every hold this node has (one asynchronous publish
// each, compare-and-set), at a tick. A renewal refused because a node
// queued meanwhile is not retried: the hold is handed on soon, and
// otherwise renewed at the next tick, well within the margin.
func (s *IPSlots) renewHolds(ctx context.Context) {
	type pending struct {
		part string
		rec  holdRecord
		rev  uint64
		sent time.Time
		f    js.PubAckFuture
	}
	var ps []pending
	s.mu.Lock()
	type one struct {
		part string
		rec  holdRecord
		rev  uint64
	}
	var all []one
	for part, a := range s.addrs {
		// Renewed while handing on too: a request slow to go on the
		// wire keeps the hold until it is.
		if a.holding && !a.holdBusy && !a.recGone {
			r := a.rec
			r.Wire = max(r.Wire, unixNano(a.wire))
			all = append(all, one{part, r, a.recRev})
		}
	}
	s.mu.Unlock()
	for _, h := range all {
		sent := time.Now()
		h.rec.Sent = sent.UnixNano()
		val, err := json.Marshal(h.rec)
		if err != nil {
			continue
		}
		m := nats.NewMsg("$KV." + s.bucket + ".t." + h.part)
		m.Data = val
		f, err := s.js.PublishMsgAsync(m, js.WithMsgTTL(s.ttl), js.WithExpectLastSequencePerSubject(h.rev))
		if err != nil {
			continue
		}
		ps = append(ps, pending{h.part, h.rec, h.rev, sent, f})
	}
	var stale []string
	defer func() {
		for _, part := range stale {
			s.readHold(ctx, part)
		}
	}()
	timeout := time.NewTimer(s.timeout)
	defer timeout.Stop()
	for _, r := range ps {
		select {
		case ack := <-r.f.Ok():
			s.mu.Lock()
			s.stats.HoldRenewals++
			s.wroteHold(r.part, r.rec, ack.Sequence, r.sent)
			s.mu.Unlock()
		case err := <-r.f.Err():
			s.mu.Lock()
			s.stats.HoldRenewals++
			s.mu.Unlock()
			if wrongSeq(err) {
				// Written by another node since (a queue entry, or the
				// record expired and was made again while this node was
				// cut off): read it, not to wait for the watch.
				stale = append(stale, r.part)
			}
		case <-timeout.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// readHold reads part's record and records what it says.
func (s *IPSlots) readHold(ctx context.Context, part string) {
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	e, err := s.kv.Get(cctx, "t."+part)
	cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.HoldConflicts++
	a := s.addr(part)
	switch {
	case err == nil:
		s.seenHold(a, e)
	case errors.Is(err, js.ErrKeyNotFound):
		s.goneHold(a, 0)
	}
}

// freeHolds gives up every hold this node has, as it stops (best
// effort: what is not written expires), handing each to the first node
// queued, if any; no start is allowed after it.
func (s *IPSlots) freeHolds(ctx context.Context) {
	s.mu.Lock()
	var parts []string
	for part, a := range s.addrs {
		a.handing = true
		// A hold with a request not yet on the wire is left to expire:
		// the next holder must not start before it is sent.
		if a.holding && !a.recGone && a.pending == 0 {
			parts = append(parts, part)
		}
	}
	s.mu.Unlock()
	for _, part := range parts {
		s.mu.Lock()
		a := s.addr(part)
		next := holdRecord{Wire: max(a.rec.Wire, unixNano(a.wire)), Sent: time.Now().UnixNano()}
		if q := without(a.rec.Queue, s.node); len(q) > 0 {
			next.Holder, next.Queue = q[0], q[1:]
		}
		rev := a.recRev
		s.mu.Unlock()
		val, err := json.Marshal(next)
		if err != nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		ttl := (s.ttl + s.delay).Truncate(time.Second) + time.Second
		_, _ = s.publish(cctx, part, val, rev, ttl)
		cancel()
	}
}

func without(q []string, node string) []string {
	out := make([]string, 0, len(q))
	for _, n := range q {
		if n != node {
			out = append(out, n)
		}
	}
	return out
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
