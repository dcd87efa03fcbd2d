package jetstream

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"
)

// Start tokens: the per-IP delay across the nodes of a crawl
// (docs/cluster.md, "Per-IP budget"; docs/decisions.md, 2026-11-27).
//
// An address whose slots only this node holds keeps the frontier's
// local spacing (IPDelay between starts, no round trip). Once another
// node holds or wants one of its slots (the address is shared), every
// start of this node to it needs a start token: a window [T, T+valid)
// reserved in the address's record t.<address> of the same bucket, whose
// value is the end of the last window reserved (Unix ns, wall clock). A
// node reserves T = max(now, notBefore, end + delay) by compare-and-set
// on the record's revision (the watch keeps it current, so one round
// trip unless another node reserved meanwhile), only when its frontier
// has a host waiting for the address (WantStart), on this goroutine,
// and tells the frontier at T (IPRoom); the frontier starts the lease
// within the window or the token lapses. Two starts to a shared address
// are thus at least delay apart across nodes, less the clock skew
// between the two machines. A node that has just found the address
// shared (it may have started to it alone moments before) reserves its
// first window no earlier than delay from now.

// SpaceStarts makes s space the starts to shared addresses delay apart
// across nodes (start tokens); call it before Run. Without it (or with
// delay 0) each node spaces only its own starts.
func (s *IPSlots) SpaceStarts(delay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = max(delay, 0)
	// A token must be used within valid of its time: short, as a window
	// reserved and not used is lost to the address.
	s.valid = min(max(delay/4, 5*time.Millisecond), 250*time.Millisecond)
}

// shared reports whether another node holds or wants a slot of a.
// s.mu held.
func (s *IPSlots) shared(a *ipAddr, now time.Time) bool {
	for _, node := range a.taken {
		if node != s.node {
			return true // "?": taken by someone this node does not know
		}
	}
	return s.contended(a, now)
}

// StartAt is frontier.IPStarts': whether a lease to key may start, and
// not before when. True: the address is not shared (or starts are not
// spaced across nodes), not before delay after the last window
// reserved on it, or this node's token, from its time; false: a token is
// needed (WantStart) and none is held, or it lapsed.
func (s *IPSlots) StartAt(key string, now time.Time) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.delay <= 0 {
		return time.Time{}, true
	}
	// The frontier's now may be a little old; the token's window is
	// judged by the clock.
	now = laterOf(now, time.Now())
	a := s.addrs[addrPart(key)]
	if a == nil {
		return time.Time{}, true
	}
	if !s.shared(a, now) {
		a.sharedSeen = false
		// Alone on it again: not before delay after the last window
		// any node reserved (the other's last start may be recent).
		if next := a.rec.Add(s.delay); !a.rec.IsZero() && next.After(now) {
			return next, true
		}
		return time.Time{}, true
	}
	if !a.sharedSeen {
		a.sharedSeen = true
		a.fresh = true // this node may have started to it alone until now
	}
	if a.tokAt.IsZero() {
		return time.Time{}, false
	}
	if !now.Before(a.tokUntil) {
		a.tokAt, a.tokUntil = time.Time{}, time.Time{}
		s.stats.TokensLapsed++
		return time.Time{}, false
	}
	return a.tokAt, true
}

// WantStart is frontier.IPStarts': a host of key waits for a start
// token, which should not start before notBefore.
func (s *IPSlots) WantStart(key string, notBefore time.Time) {
	s.mu.Lock()
	a := s.addr(addrPart(key))
	a.key = key
	a.tokWant = true
	if notBefore.After(a.tokNotBefore) {
		a.tokNotBefore = notBefore
	}
	s.mu.Unlock()
	s.poke()
}

// Started is frontier.IPStarts': a lease to key starts, using the token
// StartAt reported, if any.
func (s *IPSlots) Started(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.addrs[addrPart(key)]; a != nil && !a.tokAt.IsZero() {
		a.usedUntil = a.tokUntil
		a.tokAt, a.tokUntil = time.Time{}, time.Time{}
		s.stats.TokensUsed++
	}
}

// reservable reports whether step should reserve a token of a now.
// s.mu held.
func (s *IPSlots) reservable(a *ipAddr, now time.Time) bool {
	return s.delay > 0 && a.tokWant && a.key != "" && !a.reserving && a.tokAt.IsZero() && !now.Before(a.tokRetry)
}

// seenRecord records a watched put or removal of part's start record.
func (s *IPSlots) seenRecord(part string, e js.KeyValueEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.addrs[part]
	if a == nil || e.Revision() <= a.recRev {
		return
	}
	a.recRev = e.Revision()
	a.rec = time.Time{}
	if e.Operation() == js.KeyValuePut {
		a.rec = parseRecord(e.Value())
	}
}

func parseRecord(v []byte) time.Time {
	ns, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// reserve reserves this node's next start window on part by
// compare-and-set of its record, and tells the frontier at its start.
func (s *IPSlots) reserve(ctx context.Context, part string) {
	subject := "t." + part
	for range 8 {
		s.mu.Lock()
		a := s.addr(part)
		last, rev, nb, fresh, key := a.rec, a.recRev, a.tokNotBefore, a.fresh, a.key
		delay, valid := s.delay, s.valid
		s.mu.Unlock()
		now := time.Now()
		at := laterOf(now, nb)
		if fresh {
			at = laterOf(at, now.Add(delay))
		}
		if !last.IsZero() {
			at = laterOf(at, last.Add(delay))
		}
		until := at.Add(valid)
		// The record outlives its window by the slot TTL: a node that
		// comes back within it still finds the last window.
		ttl := (until.Sub(now) + delay + s.ttl).Truncate(time.Second) + time.Second
		val := strconv.AppendInt(nil, until.UnixNano(), 10)
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		var nrev uint64
		var err error
		if rev == 0 {
			nrev, err = s.kv.Create(cctx, subject, val, js.KeyTTL(ttl))
		} else {
			m := nats.NewMsg("$KV." + s.bucket + "." + subject)
			m.Data = val
			var ack *js.PubAck
			if ack, err = s.js.PublishMsg(cctx, m, js.WithMsgTTL(ttl), js.WithExpectLastSequencePerSubject(rev)); err == nil {
				nrev = ack.Sequence
			}
		}
		s.mu.Lock()
		s.stats.Reserves++
		s.mu.Unlock()
		if err == nil {
			cancel()
			s.mu.Lock()
			if nrev > a.recRev {
				a.rec, a.recRev = until, nrev
			}
			a.tokAt, a.tokUntil = at, until
			a.tokWant, a.reserving, a.fresh = false, false, false
			a.tokNotBefore = time.Time{}
			s.mu.Unlock()
			if wait := time.Until(at); wait > 0 {
				time.AfterFunc(wait, func() { s.fr.IPRoom(key) })
			} else {
				s.fr.IPRoom(key)
			}
			return
		}
		if !errors.Is(err, js.ErrKeyExists) && !wrongSeq(err) {
			cancel()
			break
		}
		// Another node reserved meanwhile: read the record and try again.
		e, gerr := s.kv.Get(cctx, subject)
		cancel()
		s.mu.Lock()
		s.stats.Reserves++
		s.stats.ReserveConflicts++
		switch {
		case gerr == nil:
			a.rec, a.recRev = parseRecord(e.Value()), e.Revision()
		case errors.Is(gerr, js.ErrKeyNotFound):
			a.rec, a.recRev = time.Time{}, 0
		default:
			s.mu.Unlock()
			goto failed
		}
		s.mu.Unlock()
	}
failed:
	if ctx.Err() == nil {
		s.log.Debug("cluster: no IP start token reserved", "address", part)
	}
	s.mu.Lock()
	a := s.addr(part)
	a.reserving = false
	a.tokRetry = time.Now().Add(s.tick) // tried again at a tick, if still wanted
	s.mu.Unlock()
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Wrote is frontier.IPStarts': the request of the lease that last
// started to key went on the wire at at (zero: it sent none). A token's
// window binds the lease's start, not its request: a request that went
// on the wire after its window ended (a new connection's TLS handshake,
// a stalled process) may come closer than the delay to another node's
// next start. Such requests are counted (IPSlotStats.WireLate), not
// prevented (docs/cluster.md, "Known limits").
func (s *IPSlots) Wrote(key string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.addrs[addrPart(key)]
	if a == nil || a.usedUntil.IsZero() {
		return
	}
	if !at.IsZero() && at.After(a.usedUntil) {
		s.stats.WireLate++
	}
	a.usedUntil = time.Time{}
}
