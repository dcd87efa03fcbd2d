package frontier

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// Complete applies a lease's outcome: the host's robots.txt state, its next
// ready time, and the fate of the task. It returns once the outcome, and
// every Add before it, is on disk.
func (f *Frontier) Complete(_ context.Context, l crawl.Lease, out crawl.Outcome) error {
	if err := f.complete(l, out); err != nil {
		return err
	}
	f.calibrate()
	return f.db.Sync()
}

func (f *Frontier) complete(l crawl.Lease, out crawl.Outcome) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	ls, ok := f.leases[l.ID]
	if !ok || f.closed {
		return nil // already completed (or closed: the entry stays queued)
	}
	return f.apply(l.ID, ls, out, crawl.Position{})
}

// apply ends lease ls (id: its number; 0 for a lease rebuilt from the
// store, see ApplyOutcome) with out, recording m in the same batch when
// m is set. f.mu must be held.
func (f *Frontier) apply(id uint64, ls *lease, out crawl.Outcome, m crawl.Position) error {
	h := ls.host
	if id != 0 {
		delete(f.leases, id)
		delete(f.leased, ls.item.task.Key)
		h.leased = false
		f.endedIP(ls, out)
	}
	b := f.db.NewBatch()
	f.mark(b, m)

	if out.Robots != nil {
		h.robots = *out.Robots
		h.robotsOK = true
		b.Set(robotsKey(h.name), encodeRobots(h.robots))
	}
	if out.Aliases != nil {
		h.rec.aliases = &crawl.HostAliases{Rules: slices.Clone(out.Aliases.Rules)} // written with the host record below
	}
	if out.Traps != nil {
		h.rec.traps = out.Traps // likewise; never changed once handed over, so kept as it is
	}
	// The lease reserved the host pessimistically; now the exchange's end
	// is known.
	h.rec.readyAt = laterOf(ls.prevReady, ls.visitReady) // visitReady: visit.go
	if out.Requested {
		h.rec.pol = f.policy.Observe(h.rec.pol, politeness.Observation{
			Start:         out.Start,
			FirstByte:     out.FirstByte,
			End:           out.End,
			Failure:       out.Health,
			RetryAfter:    out.RetryAfter,
			HasRetryAfter: out.HasRetryAfter,
			Jitter:        f.jitter(),
		})
		ready, why := politeness.Ready(h.rec.pol, out.End, f.gap(h))
		if why.Reason == politeness.ReasonBreaker && h.rec.pol.Trips > 0 && h.rec.pol.Streak > 0 {
			f.log.Warn("host parked by its circuit breaker", "host", h.name,
				"failures", h.rec.pol.Streak, "until", ready)
		}
		h.rec.readyAt = laterOf(h.rec.readyAt, ready)
	}

	if out.Requested {
		f.observeCapacity(h, out.End.Sub(out.Start))
	}
	if out.Class == crawl.ClassTransient || out.Class == crawl.ClassPermanent ||
		(out.Robots != nil && out.Requested && (out.Robots.Status == crawl.RobotsUnavailable || out.Robots.Status == crawl.RobotsGaveUp)) {
		h.rec.errors++
	}

	t := ls.item.task
	uk := urlKey(h.name, t.Key)
	if out.Disposition == crawl.Requeue {
		// The entry stays where it is; an Add during the lease may have put
		// another before it, so the head is read again.
		h.head = nil
	} else if err := f.finish(b, ls, t, uk, out); err != nil {
		b.Discard()
		return err
	}
	if err := f.commit(b, map[*host]struct{}{h: {}}); err != nil {
		return err
	}
	if h.rec.queued == 0 && !h.leased {
		f.forgetIP(h)
		delete(f.hosts, h.name) // idle: its record is in the store
	} else {
		f.schedule(h)
	}
	f.broadcast()
	return nil
}

// finish applies a Done or Retry outcome to the lease's entry and URL
// record: the OPIC cash the page handed on, its change estimate and next
// visit when recrawling, or its next attempt. f.mu must be held.
func (f *Frontier) finish(b *kv.Batch, ls *lease, t crawl.Task, uk []byte, out crawl.Outcome) error {
	h := ls.host
	rec, err := f.urlView(h.name, t.Key) // written below, in every case
	if err != nil {
		return err
	}
	b.Delete(ls.item.key)
	f.dequeued(h, ls.item.key)
	h.head = nil
	if out.Disposition == crawl.Retry {
		if t.Replay == nil {
			t.Attempt++
		} // else the archived response could not be read: fetch it, a first attempt
		t.Replay = nil
		rec.depth = t.Depth
		prio := f.band(rec)
		if ls.revisit {
			prio = revisitBand
		}
		f.enqueue(b, h, uk, t, rec, prio)
		return nil
	}
	if out.Requested || out.Status != 0 {
		h.rec.fetched++
	}
	fetched := out.Requested && out.Status != 0
	rec.state, rec.depth, rec.prio, rec.seq = urlDone, t.Depth, 0, 0
	if f.re == nil {
		f.recent.put(keyHash(t.Key), t.Depth)
	}
	if t.Replay == nil {
		rec.status, rec.valid = out.Status, out.Validators
		if out.Status != http.StatusNotModified || rec.capture == nil {
			// A 304 confirms the capture the URL has: the next revisit
			// refers to that one, not to the revisit record of the 304.
			rec.capture = out.Capture
		}
		if out.Requested {
			rec.fetchedAt = out.End
		}
	}
	if fetched {
		// OPIC: the cash handed on, and the virtual page's grant, go into
		// the history.
		spent := min(max(out.Spent, 0), rec.cash)
		rec.cash -= spent
		rec.history += spent + freshness.Grant
		f.opic.total += freshness.Grant
	}
	if f.re != nil {
		switch next := f.visit(&rec, t, out, ls.revisit); {
		case !next.IsZero():
			f.scheduleRevisit(b, &rec, t, next)
		case t.Replay == nil:
			rec.nextVisit = time.Time{}
		}
	}
	if ls.improve && rec.capture != nil {
		t.Replay = rec.capture
		f.enqueue(b, h, uk, t, rec, f.band(rec))
		return nil
	}
	f.putURL(b, uk, rec, nil)
	return nil
}
