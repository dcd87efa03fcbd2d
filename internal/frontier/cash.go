package frontier

import (
	"time"

	"github.com/godwit-crawler/godwit/internal/kv"
)

// unsavedCash holds OPIC cash that links brought to queued URLs and that
// is not yet written to their records (docs/frontier.md, "Importance").
// Before it, every link to a queued URL read the URL's record, added the
// link's cash and wrote the record back: one Pebble write (a memtable
// insert, ~1–2 µs) per link, most of them to the same few URLs of a
// site's navigation. Now a link whose cash does not raise the URL's band
// only adds to a delta in memory; the record is written when something
// else changes it (a band rise, a shorter path, a sitemap hint, its
// lease's completion), and all deltas are written when there are
// maxUnsavedURLs of them, when the oldest is maxUnsavedAge old, and at
// Close.
//
// The URL's record, as it stands with the delta, is kept with it, so
// that the next link to the URL costs no store read either (a Pebble
// point read, ~3 µs, was the largest part of Add's time for such links).
//
// A delta is additive on top of whatever the store holds. Every write of
// a URL record goes through one of two functions: putURL for a record
// that includes the delta (read through urlView, or the view add builds),
// which forgets the delta; storeURL for a record read from the store
// without it, which keeps the delta (it still applies) but forgets the
// kept record (no longer what the store holds).
//
// Crash safety: the counts record stores the total minus the unsaved
// cash, so after a kill -9 the stored records and the stored total agree
// as if the lost links had carried less cash. A kill -9 loses at most the
// cash of maxUnsavedAge's links to at most maxUnsavedURLs queued URLs: it
// changes which band a queued URL waits in (the order of fetches), never
// whether a URL is queued, fetched or finished.
//
// A frontier holding part of a cluster's shards (Options.Partial) applies
// each shard's events exactly once with their applied positions, and
// moves shards between nodes by their stored records: it writes cash
// through, as before.
type unsavedCash struct {
	delta map[string]*unsaved // by URL record key (urlKey)
	sum   float64             // the sum of the deltas
	since time.Time           // when the oldest delta was made
	dirty int                 // entries with a delta (the rest are kept records)
	max   int                 // the bound, maxUnsavedURLs unless set (tests)

	// While add runs (begin to end or rollback), the journal holds each
	// entry add changed, added or removed, as it was before its first
	// change, and saved the totals above: a failed add (its batch
	// discarded) puts them back, so the entries stay what the store
	// holds plus the unsaved cash. Entries removed without a change
	// in the add were clean, a cache only: they stay removed.
	epoch   uint64 // the add running, or the last one
	on      bool   // an add is running
	journal []undo
	// savedDeltas journals a save within the add: each entry it wrote
	// or removed, dirty before with its delta (a save changes nothing
	// else, and copying whole entries for it held megabytes).
	savedDeltas []savedDelta
	// free holds removed entries for create to reuse (at most
	// maxFreeEntries), so that keeping a new URL's record costs the
	// key's allocation only; entries removed while an add runs join it
	// when the add ends (freed), as its journal may put them back.
	free, freed []*unsaved
	saved       struct {
		sum   float64
		since time.Time
		dirty int
	}
}

// savedDelta is a dirty entry before a save wrote or removed it.
type savedDelta struct {
	e     *unsaved
	delta float64
}

// undo is an entry as it was before add first changed it: prev, in the
// map under e.key when existed, else not in it.
type undo struct {
	e       *unsaved
	prev    unsaved
	existed bool
}

// An entry is dirty (a delta not yet written) or clean: a record kept
// after saveCash wrote its delta, so that the navigation URLs a site
// links from every page are answered from memory after a save too, not
// with a store read each. A clean entry is only a cache: it goes when
// its record is written (putURL, storeURL), and all of them when a
// save leaves more than maxCleanURLs entries.
type unsaved struct {
	key   string // its key in the map
	epoch uint64 // the last add that journaled it (unsavedCash.touch)
	delta float64
	// rec is the URL's record with the delta, when hasRec: the store's
	// record plus delta in cash.
	rec urlRecord
	// task is the stored value of the URL's queue entry (encodeTask),
	// at queueKey(host, rec.prio, rec.seq), when known (nil: not kept).
	// With it a band rise moves the entry without reading it back.
	// Every write of a queue entry writes the URL's record too, through
	// putURL or storeURL, so it cannot go stale unseen.
	task   []byte
	hasRec bool
	dirty  bool
}

const (
	maxUnsavedURLs = 1 << 14
	maxUnsavedAge  = 5 * time.Second
	// maxCleanURLs bounds the clean entries (kept records, a cache).
	// Keeping every new URL's record too (reads saved in a 30-link
	// crawl: 17k record reads, 23k queue entry reads) grew its peak
	// RSS by ~25 MB at this bound, and at a quarter of it read more than
	// without (the next link to a URL comes after more than 4,096 new
	// URLs): new URLs' records are not kept (add.go).
	maxCleanURLs = maxUnsavedURLs
	// maxFreeEntries bounds the entries kept for reuse (256 KB).
	maxFreeEntries = 1 << 10
)

// limit is the bound on entries: a save is due at as many dirty ones,
// and keep keeps no more than as many.
func (u *unsavedCash) limit() int {
	if u.max > 0 {
		return u.max
	}
	return maxUnsavedURLs
}

// cleanLimit is the bound on clean entries, and on the free list.
func (u *unsavedCash) cleanLimit() int {
	return u.limit() * maxCleanURLs / maxUnsavedURLs
}

// begin starts the journal of an add.
func (u *unsavedCash) begin() {
	u.epoch++
	u.on = true
	u.journal = u.journal[:0]
	u.saved.sum, u.saved.since, u.saved.dirty = u.sum, u.since, u.dirty
}

// end forgets the journal of an add whose batch was committed.
func (u *unsavedCash) end() {
	u.journal = shrink(u.journal) // (its records point at tasks and captures)
	u.savedDeltas = shrink(u.savedDeltas)
	u.on = false
	for _, e := range u.freed {
		u.release(e)
	}
	u.freed = shrink(u.freed)
}

// shrink empties s, and lets a large one go (an add that saved journals
// every entry): kept, its capacity was ~5 MB a crawl's peak RSS held.
func shrink[T any](s []T) []T {
	if cap(s) > maxFreeEntries {
		return nil
	}
	clear(s)
	return s[:0]
}

// remove deletes the entry e from the map, for reuse.
func (u *unsavedCash) remove(e *unsaved) {
	delete(u.delta, e.key)
	if u.on {
		u.freed = append(u.freed, e)
		return
	}
	u.release(e)
}

// release puts e, no longer in the map, in the free list, if it has room.
func (u *unsavedCash) release(e *unsaved) {
	if len(u.free) < maxFreeEntries {
		*e = unsaved{}
		u.free = append(u.free, e)
	}
}

// rollback puts every entry the add changed back as it was, and the
// totals: the add's batch was discarded.
func (u *unsavedCash) rollback() {
	for i := len(u.savedDeltas) - 1; i >= 0; i-- { // (the save came last)
		s := u.savedDeltas[i]
		s.e.delta, s.e.dirty = s.delta, true
		u.delta[s.e.key] = s.e
	}
	for i := len(u.journal) - 1; i >= 0; i-- {
		j := &u.journal[i]
		if !j.existed {
			delete(u.delta, j.e.key)
			continue
		}
		*j.e = j.prev
		u.delta[j.e.key] = j.e
	}
	u.sum, u.since, u.dirty = u.saved.sum, u.saved.since, u.saved.dirty
	clear(u.freed) // (some are back in the map)
	u.freed = u.freed[:0]
	u.end()
}

// touch journals e, an entry in the map, before a change, unless this
// add journaled it already.
func (u *unsavedCash) touch(e *unsaved) {
	if !u.on || e.epoch == u.epoch {
		return
	}
	e.epoch = u.epoch
	u.journal = append(u.journal, undo{e: e, prev: *e, existed: true})
}

// create adds a new entry under uk.
func (u *unsavedCash) create(uk []byte) *unsaved {
	if u.delta == nil {
		u.delta = make(map[string]*unsaved)
	}
	k := string(uk)
	var e *unsaved
	if n := len(u.free); n > 0 {
		e = u.free[n-1]
		u.free[n-1] = nil
		u.free = u.free[:n-1]
		*e = unsaved{key: k, epoch: u.epoch}
	} else {
		e = &unsaved{key: k, epoch: u.epoch}
	}
	u.delta[k] = e
	if u.on {
		u.journal = append(u.journal, undo{e: e})
	}
	return e
}

// get is the unsaved cash of the URL with record key uk.
func (u *unsavedCash) get(uk []byte) float64 {
	if len(u.delta) == 0 {
		return 0
	}
	if e := u.delta[string(uk)]; e != nil {
		return e.delta
	}
	return 0
}

// record is the URL's record with its unsaved cash, when kept.
func (u *unsavedCash) record(uk []byte) (urlRecord, bool) {
	rec, _, ok := u.kept(uk)
	return rec, ok
}

// kept is the URL's record with its unsaved cash and the value of its
// queue entry (nil when not kept), when the record is kept.
func (u *unsavedCash) kept(uk []byte) (urlRecord, []byte, bool) {
	if len(u.delta) == 0 {
		return urlRecord{}, nil, false
	}
	if e := u.delta[string(uk)]; e != nil && e.hasRec {
		return e.rec, e.task, true
	}
	return urlRecord{}, nil, false
}

// add keeps cash for the URL with record key uk unsaved; rec is its
// record with the cash (and any earlier unsaved cash).
func (u *unsavedCash) add(uk []byte, cash float64, rec urlRecord, now time.Time) {
	if u.dirty == 0 {
		u.since = now
	}
	e := u.delta[string(uk)]
	if e == nil {
		e = u.create(uk)
	} else {
		u.touch(e)
	}
	if !e.dirty {
		e.dirty = true
		u.dirty++
	}
	e.delta += cash
	if !e.hasRec || !sameEntry(e.rec, rec) {
		e.task = nil
	}
	e.rec, e.hasRec = rec, true
	u.sum += cash
}

// sameEntry reports whether two records of one URL point at the same
// queue entry.
func sameEntry(a, b urlRecord) bool {
	return a.state == urlQueued && b.state == urlQueued && a.prio == b.prio && a.seq == b.seq
}

// forget drops the delta of uk: a record that includes it was written.
func (u *unsavedCash) forget(uk []byte) {
	if len(u.delta) == 0 {
		return
	}
	if e := u.delta[string(uk)]; e != nil {
		u.drop(e)
	}
}

// drop removes the entry e.
func (u *unsavedCash) drop(e *unsaved) {
	u.touch(e)
	u.sum -= e.delta
	if e.dirty {
		u.dirty--
	}
	u.remove(e)
}

// stale forgets the kept record of uk, keeping its delta.
func (u *unsavedCash) stale(uk []byte) {
	if len(u.delta) == 0 {
		return
	}
	if e := u.delta[string(uk)]; e != nil {
		if !e.dirty {
			u.drop(e) // nothing left to keep
			return
		}
		u.touch(e)
		e.rec, e.task, e.hasRec = urlRecord{}, nil, false
	}
}

// pending is the number of URLs with unsaved cash.
func (u *unsavedCash) pending() int { return u.dirty }

// due reports whether the deltas must be written.
func (u *unsavedCash) due(now time.Time) bool {
	return u.dirty >= u.limit() || (u.dirty > 0 && now.Sub(u.since) >= maxUnsavedAge)
}

// keep forgets the delta of uk (a record that includes it is being
// written) and keeps rec, the record written, as its clean entry, with
// task, the value of its queue entry (nil: the entry is unchanged, and
// a task kept for it stays). When the entries reach maxUnsavedURLs the
// clean ones go; when all of them are dirty, rec is not kept.
func (u *unsavedCash) keep(uk []byte, rec urlRecord, task []byte) {
	e := u.delta[string(uk)]
	if e == nil {
		if len(u.delta)-u.dirty >= u.cleanLimit() || len(u.delta) >= u.limit() {
			u.evictClean(0)
			if len(u.delta) >= u.limit() {
				return
			}
		}
		e = u.create(uk)
	} else {
		u.touch(e)
		u.sum -= e.delta
		if e.dirty {
			u.dirty--
		}
		if task == nil && e.hasRec && sameEntry(e.rec, rec) {
			task = e.task
		}
	}
	if rec.state != urlQueued {
		task = nil
	}
	*e = unsaved{key: e.key, epoch: e.epoch, rec: rec, task: task, hasRec: true}
}

// evictClean forgets clean entries (kept records only: nothing unsaved)
// until at most n are left.
func (u *unsavedCash) evictClean(n int) {
	clean := len(u.delta) - u.dirty
	for _, e := range u.delta {
		if clean <= n {
			return
		}
		if !e.dirty {
			u.remove(e)
			clean--
		}
	}
}

// putURL writes rec, which includes any unsaved cash of its URL, under uk;
// task is the value of its queue entry when the caller writes that too
// (nil otherwise). Within add (f.keepPut) the record is kept as the
// URL's clean entry, with task, so that the next link to the URL costs
// no store read and a band rise no read of the queue entry: a URL a
// site links from every page is queued, then takes cash from each page,
// moving up a band now and then, and every such write used to make the
// next link read the record back from the store. f.mu must be held.
func (f *Frontier) putURL(b *kv.Batch, uk []byte, rec urlRecord, task []byte) {
	b.Set(uk, rec.encode())
	if f.keepPut {
		f.unsaved.keep(uk, rec, task)
		return
	}
	f.unsaved.forget(uk)
}

// storeURL writes rec, read from the store without the URL's unsaved
// cash, under uk. f.mu must be held.
func (f *Frontier) storeURL(b *kv.Batch, uk []byte, rec urlRecord) {
	b.Set(uk, rec.encode())
	f.unsaved.stale(uk)
}

// urlView is the URL's record as the store has it, with its unsaved
// cash. A caller that writes it back must do so with putURL. f.mu must be
// held.
func (f *Frontier) urlView(host, key string) (urlRecord, error) {
	rec, err := f.urlRecord(host, key)
	if err == nil && rec.state == urlQueued {
		rec.cash += f.unsaved.get(urlKey(host, key))
	}
	return rec, err
}

// saveCash writes every unsaved delta to its URL's record with b. A
// kept record is the stored one with the delta: it is written as it is,
// with no store read, and kept, clean. A URL whose record is not kept
// is read; one no longer queued (its record rewritten or removed by a
// path that did not fold the delta in) does not take it: the delta
// leaves the total, as it would have left with the record. f.mu must be
// held.
func (f *Frontier) saveCash(b *kv.Batch) error {
	u := &f.unsaved
	for k, e := range u.delta {
		if !e.dirty {
			continue
		}
		d := e.delta
		if u.on {
			u.savedDeltas = append(u.savedDeltas, savedDelta{e, d})
		}
		if e.hasRec {
			b.Set([]byte(k), e.rec.encode())
			e.delta, e.dirty = 0, false
			continue
		}
		v, ok, err := f.db.Get([]byte(k))
		if err != nil {
			return err
		}
		var rec urlRecord
		if ok {
			if rec, err = decodeURLRecord(v); err != nil {
				return err
			}
		}
		if !ok || rec.state != urlQueued {
			f.opic.total -= d
		} else {
			rec.cash += d
			b.Set([]byte(k), rec.encode())
		}
		u.remove(e)
	}
	u.dirty, u.sum = 0, 0
	if len(u.delta) > u.cleanLimit() {
		u.evictClean(0) // all clean now: a cache, bounded
	}
	return nil
}
