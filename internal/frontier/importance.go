package frontier

import (
	"bytes"
	"math"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/kv"
)

// Importance (docs/freshness.md, "Importance"). Every URL record holds
// OPIC cash and history. A link brings the cash the worker handed it
// (crawl.Link.Cash): a new URL starts with it, a known one adds it. A
// fetch moves the URL's cash, plus freshness.Grant, into its history.
// The frontier keeps the sum of all cash and history in opic.total, so
// that a URL's importance relative to the average one is a division.
// Each host's queue is ordered by band (freshness.Band of importance,
// depth and sitemap priority): as cash flows to a queued URL, it moves
// up a band each time its importance doubles.

// opic is the crawl-wide part of OPIC.
type opic struct {
	// total is the sum of the cash and history of every URL record.
	total float64
}

// importance is the URL's importance relative to the average URL known.
// f.mu must be held.
func (f *Frontier) importance(rec urlRecord) float64 {
	return freshness.Importance(rec.history, rec.cash, f.opic.total, int(f.counts.seen))
}

// band is the discovery band a URL with record rec is queued in. f.mu
// must be held.
func (f *Frontier) band(rec urlRecord) uint8 {
	if f.breadthFirst {
		return priority(rec.depth)
	}
	p, has := sitemapPriority(rec.sitemapPrio)
	return firstBand + freshness.Band(f.importance(rec), rec.depth, p, has)
}

// encodeSitemapPriority is a sitemap priority as records keep it: 0 for
// none, else one plus thousandths.
func encodeSitemapPriority(h crawl.Hints) uint16 {
	if !h.HasPriority {
		return 0
	}
	return 1 + uint16(math.Round(min(max(h.Priority, 0), 1)*1000))
}

func sitemapPriority(v uint16) (p float64, has bool) {
	if v == 0 {
		return 0, false
	}
	return float64(v-1) / 1000, true
}

// take applies what a link to a known URL brings to its record: its
// cash, and a sitemap's hints. It reports whether the hints changed rec
// and whether the cash did; the caller writes it (settle, or
// shorterPath). A fetched URL takes cash only when it will be fetched
// again (recrawl); otherwise the cash is dropped, and left out of the
// total. f.mu must be held.
func (f *Frontier) take(rec *urlRecord, l crawl.Link) (hinted, cashed bool) {
	hinted = f.hint(rec, l.Hints)
	if l.Cash > 0 && (rec.state == urlQueued || f.re != nil) {
		rec.cash += l.Cash
		f.opic.total += l.Cash
		cashed = true
	}
	return hinted, cashed
}

// settle writes a known URL's changed record (rec, under key uk, with
// its unsaved cash; task, the value of its queue entry when kept) to b.
// A queued URL whose band rose moves to the back of its new band; one
// that only took cash (cashOnly) and stays in its band keeps the link's
// cash unsaved instead (cash.go). f.mu must be held.
func (f *Frontier) settle(b *kv.Batch, dirty map[*host]struct{}, uk []byte, rec urlRecord, task []byte, l crawl.Link, cashOnly bool) error {
	if rec.state != urlQueued || rec.prio == revisitBand || f.leased[l.Key] != nil {
		f.putURL(b, uk, rec, nil)
		return nil
	}
	prio := f.band(rec)
	if prio >= rec.prio {
		// Bands only rise with cash; a lower one (the average grew
		// meanwhile) is not worth a move.
		if cashOnly && !f.shards.partial {
			f.unsaved.add(uk, l.Cash, rec, f.now())
			return nil
		}
		f.putURL(b, uk, rec, nil)
		return nil
	}
	return f.move(b, dirty, uk, &rec, task, l, nil, prio)
}

// hint takes up a sitemap's statements about a known URL: its priority,
// and, until the URL's first visit, the change frequency its change
// estimate starts from. It reports whether rec changed.
func (f *Frontier) hint(rec *urlRecord, h crawl.Hints) bool {
	changed := false
	if p := encodeSitemapPriority(h); p != 0 && p != rec.sitemapPrio {
		rec.sitemapPrio, changed = p, true
	}
	if f.re != nil && h.ChangeFreq != "" && (rec.fresh == nil || rec.fresh.Visits == 0) {
		s := f.re.policy.NewState(h.ChangeFreq)
		if rec.fresh == nil || *rec.fresh != s {
			rec.fresh, changed = &s, true
		}
	}
	return changed
}

// move puts the entry of a queued URL, linked by l, at the back of band
// prio, changing its task with edit (nil: unchanged), and writes rec. task is the entry's
// stored value when kept (cash.go), nil to read it. f.mu must be held.
func (f *Frontier) move(b *kv.Batch, dirty map[*host]struct{}, uk []byte, rec *urlRecord, task []byte, l crawl.Link, edit func(*crawl.Task), prio uint8) error {
	h, err := f.activeHost(l.Host)
	if err != nil {
		return err
	}
	var oldKey []byte
	if task == nil || edit != nil {
		var t crawl.Task
		var ok bool
		oldKey, t, ok, err = f.queuedTask(l.Host, *rec, task)
		if err != nil || !ok {
			if err == nil {
				f.putURL(b, uk, *rec, nil) // its entry was completed in this batch's past
			}
			return err
		}
		if edit != nil {
			edit(&t)
		}
		task = encodeTask(t)
	} else {
		oldKey = queueKey(l.Host, rec.prio, rec.seq) // the value moves as it is
	}
	b.Delete(oldKey)
	f.dequeued(h, oldKey)
	if h.head != nil && bytes.Equal(h.head.key, oldKey) {
		h.head = nil
	}
	f.enqueueValue(b, h, uk, keyHash(l.Key), task, *rec, prio)
	dirty[h] = struct{}{}
	return nil
}

// queuedTask is the queue entry of a queued URL (rec, its record): its
// key and task, decoded from kept, its value when kept (cash.go), or
// read from the store; ok is false when the store has none (an entry
// completed in the current batch's past). f.mu must be held.
func (f *Frontier) queuedTask(hostName string, rec urlRecord, kept []byte) (key []byte, t crawl.Task, ok bool, err error) {
	key = queueKey(hostName, rec.prio, rec.seq)
	v := kept
	if v == nil {
		if v, ok, err = f.db.Get(key); err != nil || !ok {
			return key, t, false, err
		}
	}
	t, err = decodeTask(v)
	return key, t, err == nil, err
}
