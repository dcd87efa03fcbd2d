package frontier

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/kv"
)

// Add queues each link whose key was not seen before, and lowers the
// depth of seen ones found by a shorter path (see crawl.Frontier).
func (f *Frontier) Add(_ context.Context, links []crawl.Link) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.add(links, crawl.Position{})
}

// add is Add, recording m with the links when m is set. f.mu must be
// held.
//
// A frontier holding every shard keeps the URL records add writes in
// memory (putURL, cash.go); if add fails, its batch is discarded and
// the kept entries, with the unsaved cash and the OPIC total, are put
// back as they were before it (unsavedCash.rollback), as the store
// still has them. A partial frontier keeps none: its shards' records
// are replaced and dropped as shards move between nodes.
func (f *Frontier) add(links []crawl.Link, m crawl.Position) (int, error) {
	if f.closed {
		return 0, errClosed
	}
	f.keepPut = !f.shards.partial
	total := f.opic.total
	f.unsaved.begin()
	n, err := f.addLinks(links, m)
	f.keepPut = false
	if err != nil {
		f.unsaved.rollback()
		f.opic.total = total
	} else {
		f.unsaved.end()
	}
	return n, err
}

// addLinks is add's work.
func (f *Frontier) addLinks(links []crawl.Link, m crawl.Position) (int, error) {
	b := f.db.NewBatch()
	f.mark(b, m)
	dirty := make(map[*host]struct{})
	batchSeen := make(map[string]struct{}, len(links))
	added := 0
	var ukBuf []byte // every link's record key, in turn (see appendURLKey)
	for _, l := range links {
		if _, dup := batchSeen[l.Key]; dup {
			continue
		}
		batchSeen[l.Key] = struct{}{}
		uk := appendURLKey(ukBuf[:0], l.Host, l.Key)
		ukBuf = uk
		kh := keyHash(l.Key)
		if f.seen.MayContainHash(kh) {
			if d, ok := f.recent.depth(kh); ok && f.re == nil && l.Hints == (crawl.Hints{}) && (l.Embed > 0 || l.Depth >= d) {
				continue // finished, and this link changes nothing (recent.go)
			}
			rec, task, ok := f.unsaved.kept(uk) // kept with its unsaved cash (cash.go)
			if !ok {
				v, found, err := f.db.Get(uk)
				if err != nil {
					b.Discard()
					return added, err
				}
				if found {
					if rec, err = decodeURLRecord(v); err != nil {
						b.Discard()
						return added, err
					}
					if rec.state == urlQueued {
						rec.cash += f.unsaved.get(uk) // the view (cash.go)
					}
				}
				ok = found
			}
			if ok {
				var err error
				hinted, cashed := f.take(&rec, l)
				changed := hinted || cashed
				switch {
				case l.Depth < rec.depth && l.Embed == 0:
					// (A requisite has its page's depth, not a
					// shorter path to the URL.)
					f.recent.drop(kh)
					err = f.shorterPath(b, dirty, uk, rec, task, l)
				case rec.state == urlDone && f.re == nil:
					f.recent.put(kh, rec.depth)
					if changed {
						err = f.settle(b, dirty, uk, rec, task, l, !hinted)
					}
				case changed:
					err = f.settle(b, dirty, uk, rec, task, l, !hinted)
				}
				if err != nil {
					b.Discard()
					return added, err
				}
				continue
			}
			if !f.shards.partial || !f.fp.stale[shardOf(l.Host)] {
				f.fp.falsePositives++
			}
		} else if !f.shards.partial || !f.fp.stale[shardOf(l.Host)] {
			f.fp.trueNegatives++
		}
		f.seen.AddHash(kh)
		h, err := f.activeHost(l.Host)
		if err != nil {
			b.Discard()
			return added, err
		}
		f.counts.seen++
		rec := urlRecord{depth: l.Depth, sitemapPrio: encodeSitemapPriority(l.Hints)}
		if l.Cash > 0 {
			rec.cash = l.Cash
			f.opic.total += l.Cash
		}
		// A new URL's record is not kept: see maxCleanURLs (cash.go).
		keep := f.keepPut
		f.keepPut = false
		f.enqueueValue(b, h, uk, kh, encodeTask(crawl.Task{Link: l}), rec, f.band(rec))
		f.keepPut = keep
		dirty[h] = struct{}{}
		added++
	}
	if f.unsaved.due(f.now()) {
		if err := f.saveCash(b); err != nil {
			b.Discard()
			return added, err
		}
	}
	if b.Empty() {
		b.Discard() // every link was seen, none by a shorter path
		return 0, nil
	}
	if err := f.commit(b, dirty); err != nil {
		return added, err
	}
	f.broadcast()
	return added, nil
}

// appendURLKey appends urlKey(host, key) to dst. add builds each link's
// key in one buffer, reused for the next link: nothing keeps a URL key
// past the link's turn (a kv.Batch copies what it is given, and
// unsavedCash copies the keys it keeps).
func appendURLKey(dst []byte, host, key string) []byte {
	dst = append(dst, tagURL)
	dst = binary.BigEndian.AppendUint16(dst, shardOf(host))
	return append(dst, key...)
}

// enqueue writes a queue entry for t at the back of band prio and the
// URL record pointing at it. f.mu must be held.
func (f *Frontier) enqueue(b *kv.Batch, h *host, uk []byte, t crawl.Task, rec urlRecord, prio uint8) {
	f.enqueueValue(b, h, uk, keyHash(t.Key), encodeTask(t), rec, prio)
}

// enqueueValue is enqueue of a task already encoded (v, which putURL
// may keep: the caller must not change it), of the URL whose key hashes
// to kh. f.mu must be held.
func (f *Frontier) enqueueValue(b *kv.Batch, h *host, uk []byte, kh uint64, v []byte, rec urlRecord, prio uint8) {
	f.recent.drop(kh) // queued: no longer finished
	seq := h.rec.nextSeq
	h.rec.nextSeq++
	qk := queueKey(h.name, prio, seq)
	b.Set(qk, v)
	rec.state, rec.prio, rec.seq = urlQueued, prio, seq
	f.putURL(b, uk, rec, v)
	h.rec.queued++
	f.counts.queued++
	if prio == revisitBand {
		h.rec.revisits++
		f.counts.revisits++
	} else if h.discFrom != nil && bytes.Compare(qk, h.discFrom) < 0 {
		h.discFrom = qk
	}
	if h.head != nil && bytes.Compare(qk, h.head.key) < 0 && !h.leased {
		h.head = nil // a new first entry: reload lazily
	}
	if h.scanFrom != nil && bytes.Compare(qk, h.scanFrom) < 0 {
		h.scanFrom = qk
	}
	f.schedule(h)
}

// dequeued counts the queue entry at key, of host h, gone. f.mu must be
// held.
func (f *Frontier) dequeued(h *host, key []byte) {
	h.deleted(key)
	h.rec.queued--
	f.counts.queued--
	if bandOf(key) == revisitBand {
		h.rec.revisits--
		f.counts.revisits--
	}
}

// shorterPath handles a link to a URL already known at a greater depth:
// the smaller depth is taken up (see crawl.Frontier.Add), and rec, with
// what take changed, written to b; task is the value of its queue entry
// when kept (nil: read it). f.mu must be held.
func (f *Frontier) shorterPath(b *kv.Batch, dirty map[*host]struct{}, uk []byte, rec urlRecord, task []byte, l crawl.Link) error {
	switch rec.state {
	case urlQueued:
		rec.depth = l.Depth
		improve := func(t *crawl.Task) { t.Depth, t.Hops, t.Via = l.Depth, l.Hops, l.Via }
		if ls := f.leased[l.Key]; ls != nil || rec.prio == revisitBand {
			// Leased, or a revisit (it keeps its band): rewrite the entry
			// in place (a restart fetches it at the new depth); a leased one
			// is replayed once its lease is done.
			oldKey, t, ok, err := f.queuedTask(l.Host, rec, task)
			if err != nil || !ok {
				return err // an entry already completed in this batch's past: nothing to improve
			}
			improve(&t)
			if ls != nil {
				ls.improve = true
				ls.item.task = t
			}
			v := encodeTask(t)
			b.Set(oldKey, v)
			f.putURL(b, uk, rec, v)
			return nil
		}
		// Queued: move it to its new band.
		return f.move(b, dirty, uk, &rec, task, l, improve, f.band(rec))
	case urlDone:
		if rec.capture == nil {
			f.putURL(b, uk, rec, nil) // nothing archived: nothing to follow again
			return nil
		}
		h, err := f.activeHost(l.Host)
		if err != nil {
			return err
		}
		t := crawl.Task{Link: l, Replay: rec.capture}
		rec.depth = l.Depth
		f.enqueue(b, h, uk, t, rec, f.band(rec))
		dirty[h] = struct{}{}
		return nil
	}
	return nil
}

// activeHost returns the in-memory state of host, loading or creating it.
// f.mu must be held.
func (f *Frontier) activeHost(name string) (*host, error) {
	if h := f.hosts[name]; h != nil {
		return h, nil
	}
	h, found, err := f.storedHost(name)
	if err != nil {
		return nil, err
	}
	if !found {
		f.counts.hosts++
	}
	f.hosts[name] = h
	return h, nil
}

// storedHost returns an idle host as the store has it (found false: a
// new host, with a zero record), not yet in f.hosts. f.mu must be held.
func (f *Frontier) storedHost(name string) (h *host, found bool, err error) {
	h = &host{name: name, shard: shardOf(name), heapIndex: -1, parkIndex: -1}
	v, found, err := f.db.Get(hostKey(name))
	if err != nil || !found {
		return h, false, err
	}
	if h.rec, err = decodeHostRecord(v); err != nil {
		return nil, false, err
	}
	return h, true, nil
}

// commit writes the dirty hosts' records and the counts with b, then
// commits it without fsync (see package kv). f.mu must be held.
func (f *Frontier) commit(b *kv.Batch, dirty map[*host]struct{}) error {
	for h := range dirty {
		b.Set(hostKey(h.name), h.rec.encode())
	}
	c := []byte{encodingVersion}
	c = binary.AppendUvarint(c, f.counts.seen)
	c = binary.AppendUvarint(c, f.counts.queued)
	c = binary.AppendUvarint(c, f.counts.hosts)
	c = binary.AppendUvarint(c, f.counts.due)
	c = binary.AppendUvarint(c, f.counts.revisits)
	// Without the unsaved cash: the stored total is the sum of the stored
	// records (cash.go).
	c = binary.LittleEndian.AppendUint64(c, math.Float64bits(f.opic.total-f.unsaved.sum))
	c = binary.LittleEndian.AppendUint64(c, math.Float64bits(f.hostCapacity))
	b.Set(metaKey("counts"), c)
	if f.failCommit != nil {
		b.Discard()
		return f.failCommit
	}
	return b.Commit(false)
}
