package frontier

import (
	"fmt"
	"time"
)

// maxPromote bounds the revisits one promotion queues, so a lease is
// never held up for long; the rest follow on the next calls.
const maxPromote = 10_000

// promote moves the revisits due by now from the due-time index to their
// hosts' queues, in revisitBand. It scans only when the earliest entry
// may be due, one shard at a time, each shard's due entries being a
// prefix of it. f.mu must be held.
func (f *Frontier) promote(now time.Time) error {
	if f.re == nil || f.earliestDue.IsZero() || now.Before(f.earliestDue) {
		return nil
	}
	b := f.db.NewBatch()
	dirty := map[*host]struct{}{}
	var earliest time.Time
	moved := 0
	for shard := uint16(0); shard < Shards; shard++ {
		p := dueShard(shard)
		it, err := f.db.Scan(p, prefixEnd(p))
		if err != nil {
			b.Discard()
			return err
		}
		for ; it.Valid(); it.Next() {
			due, hostName, key, ok := parseDueKey(it.Key())
			if !ok {
				it.Close()
				b.Discard()
				return fmt.Errorf("%w: due key %x", errCorrupt, it.Key())
			}
			if due.After(now) || moved >= maxPromote {
				if earliest.IsZero() || due.Before(earliest) {
					earliest = due
				}
				break
			}
			t, err := decodeTask(it.Value())
			if err != nil {
				it.Close()
				b.Discard()
				return err
			}
			h, err := f.activeHost(hostName)
			if err != nil {
				it.Close()
				b.Discard()
				return err
			}
			uk := urlKey(hostName, key)
			rec, err := f.urlRecord(hostName, key)
			if err != nil {
				it.Close()
				b.Discard()
				return err
			}
			b.Delete(append([]byte(nil), it.Key()...))
			f.counts.due--
			if rec.state == urlQueued {
				// Queued meanwhile (a replay, found again by a shorter
				// path): its completion schedules it again.
				rec.nextVisit = time.Time{}
				f.storeURL(b, uk, rec)
				continue
			}
			if rec.state == 0 {
				rec = urlRecord{depth: t.Depth} // a lost record: start again
			}
			f.enqueue(b, h, uk, t, rec, revisitBand) // rec.nextVisit: when it fell due
			dirty[h] = struct{}{}
			moved++
		}
		if err := it.Close(); err != nil {
			b.Discard()
			return err
		}
	}
	f.earliestDue = earliest
	if b.Empty() {
		b.Discard()
		return nil
	}
	return f.commit(b, dirty)
}

// pick chooses what host h is leased for: its head, or, when the head is
// a revisit and the host also has discovery waiting, whichever the
// revisit share asks for. credit, a deficit counter, keeps the two in
// that proportion: a discovery lease while revisits wait earns the
// share, a revisit lease while discovery waits costs the rest. f.mu must
// be held.
func (f *Frontier) pick(h *host) (*item, error) {
	it := h.head
	if f.re == nil || bandOf(it.key) != revisitBand || h.rec.queued <= h.rec.revisits {
		if f.re != nil && h.rec.revisits > 0 {
			h.credit = min(h.credit+f.re.share, 1)
		}
		return it, nil
	}
	if h.credit >= 0 {
		h.credit = max(h.credit-(1-f.re.share), -1)
		return it, nil
	}
	d, err := f.discoveryHead(h)
	if err != nil || d == nil {
		return it, err
	}
	h.credit = min(h.credit+f.re.share, 1)
	return d, nil
}

// discoveryHead reads the first entry of h's discovery bands. f.mu must
// be held.
func (f *Frontier) discoveryHead(h *host) (*item, error) {
	p := queuePrefix(h.name)
	from := h.discFrom
	if from == nil {
		from = append(p, firstBand)
	}
	it, err := f.db.Scan(from, prefixEnd(p))
	if err != nil {
		return nil, err
	}
	var d *item
	if it.Valid() {
		t, err := decodeTask(it.Value())
		if err != nil {
			it.Close()
			return nil, err
		}
		d = &item{key: append([]byte(nil), it.Key()...), task: t}
		h.discFrom = d.key
	}
	return d, it.Close()
}

// leasedURL returns the record of the URL item leases, and counts the
// lease in the revisit share and lag. f.mu must be held.
func (f *Frontier) leasedURL(h *host, it *item, now time.Time) (urlRecord, error) {
	rec, err := f.urlView(h.name, it.task.Key) // the lease hands on its unsaved cash too
	if err != nil || f.re == nil {
		return rec, err
	}
	revisit := bandOf(it.key) == revisitBand
	x := 0.0
	if revisit {
		x = 1
		if !rec.nextVisit.IsZero() {
			f.re.lag = max(now.Sub(rec.nextVisit), 0)
		}
	}
	const alpha = 1.0 / 200
	f.re.leaseShare += alpha * (x - f.re.leaseShare)
	return rec, nil
}
