package frontier

import (
	"bufio"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/robots"
)

// Shards in cluster mode (docs/cluster.md). A cluster node's frontier
// holds the state of the shards it owns, each built by applying the
// shard's log in order: link batches with AddAt, outcomes with
// ApplyOutcome. Each records the log position it applied (its crawl.Position) in
// the same batch as its changes, so an event is applied exactly once
// however often it is delivered. A shard moves between nodes as a
// snapshot (ExportShard, ImportShard) plus the log after it. Only the
// hosts of the shards a Partial frontier owns (SetShard) are leased.
//
// Single-node mode uses none of this: the frontier owns every shard and
// its store's write-ahead log is the only log.

// tagApplied keys a shard's applied log position:
// a shard → uvarint seq. It sorts with the shard's other tables, so a
// shard's snapshot carries it.
const tagApplied = 'a'

// shardTags are the tables whose keys start with the shard: a shard's
// whole state.
var shardTags = []byte{tagApplied, tagHost, tagQueue, tagRobots, tagURL, tagDue}

// ShardOf is the shard of a host (its politeness key, as urlnorm.Host
// spells it): xxhash64(shard.Site(host)) mod Shards.
func ShardOf(host string) uint16 { return shardOf(host) }

func appliedKey(shard uint16) []byte {
	return binary.BigEndian.AppendUint16([]byte{tagApplied}, shard)
}

// shardRange is the key range of one shard's table tag.
func shardRange(tag byte, shard uint16) (lower, upper []byte) {
	lower = binary.BigEndian.AppendUint16([]byte{tag}, shard)
	return lower, prefixEnd(lower)
}

// shardSet is the set of shards a frontier owns.
type shardSet struct {
	partial bool // false: every shard, whatever bits says
	bits    [Shards / 64]uint64
}

func newShardSet(all bool) shardSet { return shardSet{partial: !all} }

func (s *shardSet) owns(p uint16) bool {
	return !s.partial || s.bits[p/64]&(1<<(p%64)) != 0
}

func (s *shardSet) set(p uint16, own bool) {
	if own {
		s.bits[p/64] |= 1 << (p % 64)
	} else {
		s.bits[p/64] &^= 1 << (p % 64)
	}
}

var errNotPartial = errors.New("frontier: shard ownership needs Options.Partial")

// SetShard makes shard p this frontier's own, so that its hosts are
// leased, or stops leasing them (leases already out run to their end).
// Only a Partial frontier changes what it owns.
func (f *Frontier) SetShard(p uint16, own bool) error {
	if p >= Shards {
		return fmt.Errorf("frontier: no shard %d", p)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.shards.partial {
		return errNotPartial
	}
	f.shards.set(p, own)
	for _, h := range f.hosts {
		if h.shard == p {
			f.schedule(h)
		}
	}
	f.broadcast()
	return nil
}

// Owns reports whether the frontier leases the hosts of shard p.
func (f *Frontier) Owns(p uint16) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.shards.owns(p)
}

// Applied is the position up to which shard p's log has been applied
// (0: none of it).
func (f *Frontier) Applied(p uint16) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.applied(p)
}

func (f *Frontier) applied(p uint16) (uint64, error) {
	v, ok, err := f.db.Get(appliedKey(p))
	if err != nil || !ok {
		return 0, err
	}
	seq, n := binary.Uvarint(v)
	if n <= 0 {
		return 0, fmt.Errorf("%w: applied position of shard %d", errCorrupt, p)
	}
	return seq, nil
}

// mark records m in b, when m is set.
func (f *Frontier) mark(b *kv.Batch, m crawl.Position) {
	if !m.IsZero() {
		b.Set(appliedKey(m.Shard), binary.AppendUvarint(nil, m.Seq))
	}
}

// stale reports whether the event at m was applied already. f.mu must
// be held.
func (f *Frontier) stale(m crawl.Position) (bool, error) {
	if m.IsZero() {
		return false, errors.New("frontier: an event of a shard's log needs its position")
	}
	if m.Shard >= Shards {
		return false, fmt.Errorf("frontier: no shard %d", m.Shard)
	}
	seq, err := f.applied(m.Shard)
	return m.Seq <= seq, err
}

// AddAt applies a link batch of shard m.Shard's log, at position m.Seq:
// as Add, once. A batch at or before the shard's applied position is
// skipped; every link must belong to the shard.
func (f *Frontier) AddAt(_ context.Context, links []crawl.Link, m crawl.Position) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errClosed
	}
	if stale, err := f.stale(m); stale || err != nil {
		return 0, err
	}
	for _, l := range links {
		if p := shardOf(l.Host); p != m.Shard {
			return 0, fmt.Errorf("frontier: link to %s (shard %d) in the log of shard %d", l.Host, p, m.Shard)
		}
	}
	return f.add(links, m)
}

// ApplyOutcome applies an outcome event of shard m.Shard's log, at
// position m.Seq: the fate of task t, as Complete gives it for a lease.
// When this frontier holds the lease of t (it fetched t, and its own
// outcome comes back through the log), the lease ends. Otherwise (the
// outcome of a node that owned the shard before) t's queue entry is
// completed as that node's lease was; an entry no longer queued is left
// alone. An event at or before the shard's applied position is skipped.
//
// Unlike Complete it does not wait for the store's fsync: the outcome is
// in the shard's log already, which is what a cluster node's state is
// rebuilt from (a node drops what its store kept of its shards when it
// starts, DropUnowned), so an fsync per outcome bought nothing
// (docs/decisions.md, 2026-11-27).
func (f *Frontier) ApplyOutcome(_ context.Context, t crawl.Task, out crawl.Outcome, m crawl.Position) error {
	if err := f.applyOutcome(t, out, m); err != nil {
		return err
	}
	f.calibrate()
	return nil
}

func (f *Frontier) applyOutcome(t crawl.Task, out crawl.Outcome, m crawl.Position) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errClosed
	}
	if stale, err := f.stale(m); stale || err != nil {
		return err
	}
	if p := shardOf(t.Host); p != m.Shard {
		return fmt.Errorf("frontier: outcome for %s (shard %d) in the log of shard %d", t.Host, p, m.Shard)
	}
	if r := out.Robots; r != nil && r.Status == crawl.RobotsOK && r.Rules == nil {
		rs := *r
		rs.Rules = robots.Parse(rs.Body).Group(f.agent)
		out.Robots = &rs
	}
	if ls := f.leased[t.Key]; ls != nil && ls.host.name == t.Host {
		return f.apply(ls.id, ls, out, m)
	}
	rec, err := f.urlRecord(t.Host, t.Key)
	if err != nil {
		return err
	}
	var key []byte
	var task crawl.Task
	ok := rec.state == urlQueued
	if ok {
		if key, task, ok, err = f.queuedTask(t.Host, rec, nil); err != nil {
			return err
		}
	}
	if !ok { // applied before, or never queued here: only the position moves
		b := f.db.NewBatch()
		f.mark(b, m)
		return b.Commit(false)
	}
	h, err := f.activeHost(t.Host)
	if err != nil {
		return err
	}
	ls := &lease{host: h, item: &item{key: key, task: task}, prevReady: h.rec.readyAt,
		revisit: bandOf(key) == revisitBand}
	return f.apply(0, ls, out, m)
}

// shardTally is a shard's share of the frontier's counts.
type shardTally struct {
	counts
	cash, capacity float64
	active         []*host // hosts with queued URLs
	blocked        []string
	urlKeys        [][]byte
}

// tally reads shard p's share of the counts from the store. With keep,
// it also returns the shard's active hosts, blocked hosts and URL keys.
// f.mu must be held.
func (f *Frontier) tally(p uint16, keep bool) (shardTally, error) {
	var t shardTally
	scan := func(tag byte, each func(k, v []byte) error) error {
		lo, hi := shardRange(tag, p)
		it, err := f.db.Scan(lo, hi)
		if err != nil {
			return err
		}
		for ; it.Valid(); it.Next() {
			if err := each(it.Key(), it.Value()); err != nil {
				it.Close()
				return err
			}
		}
		return it.Close()
	}
	err := scan(tagHost, func(k, v []byte) error {
		rec, err := decodeHostRecord(v)
		if err != nil {
			return err
		}
		t.hosts++
		t.queued += uint64(rec.queued)
		t.revisits += uint64(rec.revisits)
		t.capacity += rec.capacity
		if keep {
			name := string(k[3:])
			if rec.queued > 0 {
				t.active = append(t.active, &host{name: name, shard: p, rec: rec, heapIndex: -1, parkIndex: -1})
			}
			if rec.blocked {
				t.blocked = append(t.blocked, name)
			}
		}
		return nil
	})
	if err == nil {
		err = scan(tagURL, func(k, v []byte) error {
			rec, err := decodeURLRecord(v)
			if err != nil {
				return err
			}
			t.seen++
			t.cash += rec.cash + rec.history // OPIC: the total is cash plus history
			if keep {
				t.urlKeys = append(t.urlKeys, append([]byte(nil), k[3:]...))
			}
			return nil
		})
	}
	if err == nil {
		err = scan(tagDue, func(_, _ []byte) error { t.due++; return nil })
	}
	return t, err
}

// DropShard forgets shard p: its hosts, queues, URL records, due
// revisits and applied position are deleted, and its leases out are
// abandoned (completing one is a no-op). The frontier must not own p.
// The Bloom filter keeps the shard's keys: they only cost the store a
// look-up when met again.
func (f *Frontier) DropShard(p uint16) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errClosed
	}
	if err := f.dropShard(p); err != nil {
		return err
	}
	return f.db.Sync()
}

func (f *Frontier) dropShard(p uint16) error {
	f.recent.reset() // the shard's records go
	if p >= Shards {
		return fmt.Errorf("frontier: no shard %d", p)
	}
	if f.shards.owns(p) {
		return fmt.Errorf("frontier: shard %d is owned: release it before dropping it", p)
	}
	t, err := f.tally(p, false)
	if err != nil {
		return err
	}
	for id, ls := range f.leases {
		if ls.host.shard == p {
			delete(f.leases, id)
			delete(f.leased, ls.item.task.Key)
			f.endedIP(ls, crawl.Outcome{Requested: true})
		}
	}
	for ls := range f.ipVisits {
		if ls.host.shard == p {
			delete(f.ipVisits, ls)
			f.endedIP(ls, crawl.Outcome{Requested: true})
		}
	}
	for name, h := range f.hosts {
		if h.shard == p {
			if h.heapIndex >= 0 {
				heap.Remove(&f.ready, h.heapIndex)
			}
			f.forgetIP(h)
			delete(f.hosts, name)
		}
	}
	for name := range f.blocked {
		if shardOf(name) == p {
			delete(f.blocked, name)
		}
	}
	if t.seen > 0 {
		f.fp.stale[p] = true // its keys stay in the filter
	}
	f.counts.seen -= t.seen
	f.counts.queued -= t.queued
	f.counts.hosts -= t.hosts
	f.counts.due -= t.due
	f.counts.revisits -= t.revisits
	f.opic.total -= t.cash
	f.hostCapacity -= t.capacity
	b := f.db.NewBatch()
	for _, tag := range shardTags {
		b.DeleteRange(shardRange(tag, p))
	}
	return f.commit(b, nil)
}

// DropUnowned drops the local state of every shard the frontier does not
// own, and reports how many had any; the seen-set filter is then made
// anew from what is left. A cluster node calls it when it
// starts: the state its store kept of shards it held before (until it
// was stopped or killed) is not its own until it takes them again, when
// it reads them from their snapshots and logs; kept, it would count as
// this node's queue (a node started on a finished crawl reported URLs
// left queued) and keep the node from ever being quiet.
func (f *Frontier) DropUnowned() (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errClosed
	}
	if !f.shards.partial {
		return 0, errNotPartial
	}
	n := 0
	for p := range uint16(Shards) {
		if f.shards.owns(p) {
			continue
		}
		lo, hi := shardRange(tagHost, p)
		it, err := f.db.Scan(lo, hi)
		if err != nil {
			return n, err
		}
		has := it.Valid()
		if err := it.Close(); err != nil {
			return n, err
		}
		if !has {
			if a, err := f.applied(p); err != nil || a == 0 {
				if err != nil {
					return n, err
				}
				continue
			}
		}
		if err := f.dropShard(p); err != nil {
			return n, err
		}
		n++
	}
	if n == 0 {
		return 0, nil
	}
	if err := f.db.Sync(); err != nil {
		return n, err
	}
	// The filter sheds the dropped shards' keys: it holds what the
	// store does, and measures its false positives on every shard again.
	return n, f.rebuildBloom(f.expectedURLs)
}

// snapshotMagic starts a shard snapshot (after zstd decompression).
const snapshotMagic = "godwit-shard\x01"

// ExportShard writes a snapshot of shard p to w: every key and value of
// its tables, zstd-compressed (docs/formats.md, "Shard snapshots"), and
// returns the log position it includes. The shard's applies wait while
// it is written; a shard is a 1/Shards slice of the crawl.
func (f *Frontier) ExportShard(p uint16, w io.Writer) (applied uint64, err error) {
	if p >= Shards {
		return 0, fmt.Errorf("frontier: no shard %d", p)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errClosed
	}
	if applied, err = f.applied(p); err != nil {
		return 0, err
	}
	zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return 0, fmt.Errorf("frontier: snapshot: %w", err)
	}
	bw := bufio.NewWriterSize(zw, 64<<10)
	var hdr []byte
	hdr = append(hdr, snapshotMagic...)
	hdr = binary.BigEndian.AppendUint16(hdr, p)
	if _, err := bw.Write(hdr); err != nil {
		zw.Close()
		return 0, fmt.Errorf("frontier: snapshot: %w", err)
	}
	var buf []byte
	for _, tag := range shardTags {
		lo, hi := shardRange(tag, p)
		it, err := f.db.Scan(lo, hi)
		if err != nil {
			zw.Close()
			return 0, err
		}
		for ; it.Valid(); it.Next() {
			buf = binary.AppendUvarint(buf[:0], uint64(len(it.Key())))
			buf = append(buf, it.Key()...)
			buf = binary.AppendUvarint(buf, uint64(len(it.Value())))
			buf = append(buf, it.Value()...)
			if _, err := bw.Write(buf); err != nil {
				it.Close()
				zw.Close()
				return 0, fmt.Errorf("frontier: snapshot: %w", err)
			}
		}
		if err := it.Close(); err != nil {
			zw.Close()
			return 0, err
		}
	}
	if err := bw.WriteByte(0); err != nil { // a zero-length key ends the snapshot
		zw.Close()
		return 0, fmt.Errorf("frontier: snapshot: %w", err)
	}
	if err := bw.Flush(); err != nil {
		zw.Close()
		return 0, fmt.Errorf("frontier: snapshot: %w", err)
	}
	if err := zw.Close(); err != nil {
		return 0, fmt.Errorf("frontier: snapshot: %w", err)
	}
	return applied, nil
}

// importBatch is how many bytes of a snapshot go into one store batch.
const importBatch = 4 << 20

// ImportShard replaces shard p's state with the snapshot in r (written
// by ExportShard) and returns the log position it includes: the log is
// to be applied from the next one. The frontier must not own p. A failed
// import leaves the shard partly written: import it again (an import
// starts by dropping the shard).
func (f *Frontier) ImportShard(p uint16, r io.Reader) (applied uint64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errClosed
	}
	if err := f.dropShard(p); err != nil {
		return 0, err
	}
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return 0, fmt.Errorf("frontier: snapshot: %w", err)
	}
	defer zr.Close()
	br := bufio.NewReaderSize(zr, 64<<10)
	hdr := make([]byte, len(snapshotMagic)+2)
	if _, err := io.ReadFull(br, hdr); err != nil || string(hdr[:len(snapshotMagic)]) != snapshotMagic {
		return 0, fmt.Errorf("frontier: snapshot: not a shard snapshot (%v)", err)
	}
	if got := binary.BigEndian.Uint16(hdr[len(snapshotMagic):]); got != p {
		return 0, fmt.Errorf("frontier: snapshot of shard %d, not %d", got, p)
	}
	readField := func() ([]byte, error) {
		n, err := binary.ReadUvarint(br)
		if err != nil {
			return nil, err
		}
		if n > 64<<20 {
			return nil, errCorrupt
		}
		v := make([]byte, n)
		_, err = io.ReadFull(br, v)
		return v, err
	}
	b := f.db.NewBatch()
	size := 0
	for {
		k, err := readField()
		if err != nil {
			b.Discard()
			return 0, fmt.Errorf("frontier: snapshot of shard %d: %w", p, err)
		}
		if len(k) == 0 {
			break
		}
		if len(k) < 3 || binary.BigEndian.Uint16(k[1:3]) != p || !isShardTag(k[0]) {
			b.Discard()
			return 0, fmt.Errorf("frontier: snapshot of shard %d: a key outside it", p)
		}
		v, err := readField()
		if err != nil {
			b.Discard()
			return 0, fmt.Errorf("frontier: snapshot of shard %d: %w", p, err)
		}
		b.Set(k, v)
		if size += len(k) + len(v); size >= importBatch {
			if err := b.Commit(false); err != nil {
				return 0, err
			}
			b, size = f.db.NewBatch(), 0
		}
	}
	if err := b.Commit(false); err != nil {
		return 0, err
	}
	t, err := f.tally(p, true)
	if err != nil {
		return 0, err
	}
	f.counts.seen += t.seen
	f.counts.queued += t.queued
	f.counts.hosts += t.hosts
	f.counts.due += t.due
	f.counts.revisits += t.revisits
	f.opic.total += t.cash
	f.hostCapacity += t.capacity
	for _, k := range t.urlKeys {
		f.seen.Add(k)
	}
	for _, name := range t.blocked {
		f.blocked[name] = struct{}{}
	}
	for _, h := range t.active {
		f.hosts[h.name] = h
		f.schedule(h)
	}
	if now := f.now(); t.due > 0 && (f.earliestDue.IsZero() || now.Before(f.earliestDue)) {
		f.earliestDue = now // promotion finds the real earliest
	}
	if err := f.commit(f.db.NewBatch(), nil); err != nil {
		return 0, err
	}
	if applied, err = f.applied(p); err != nil {
		return 0, err
	}
	f.broadcast()
	return applied, f.db.Sync()
}

func isShardTag(tag byte) bool {
	for _, t := range shardTags {
		if t == tag {
			return true
		}
	}
	return false
}
