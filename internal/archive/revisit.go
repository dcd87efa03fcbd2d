package archive

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/simhash"
)

// Keys of the archive's tables in the crawl's store (docs/formats.md). The
// frontier uses the tags h, r, q, u and m.
const (
	tagDup  = 'd' // d shard digest        → first capture of that payload
	tagNear = 's' // s shard fp(8) seq(8)  → capture whose text has simhash fp
)

const shards = 1024

// original is the first capture of a payload, or the capture a
// fingerprint belongs to: what a revisit or a near-duplicate note refers to.
type original struct {
	RecordID string
	URI      string
	Date     time.Time
	File     string
	Offset   int64
	Length   int64
}

func (o original) encode() []byte {
	b := []byte{1}
	b = appendString(b, o.RecordID)
	b = appendString(b, o.URI)
	b = binary.AppendVarint(b, o.Date.UnixNano())
	b = appendString(b, o.File)
	b = binary.AppendUvarint(b, uint64(o.Offset))
	return binary.AppendUvarint(b, uint64(o.Length))
}

var errCorrupt = errors.New("archive: corrupt dedup record")

func decodeOriginal(v []byte) (original, error) {
	if len(v) == 0 || v[0] != 1 {
		return original{}, errCorrupt
	}
	d := decoder{b: v[1:]}
	o := original{RecordID: d.string(), URI: d.string()}
	o.Date = time.Unix(0, d.varint()).UTC()
	o.File = d.string()
	o.Offset = int64(d.uvarint())
	o.Length = int64(d.uvarint())
	if d.bad {
		return original{}, errCorrupt
	}
	return o, nil
}

func dupKey(digest string) []byte {
	b := []byte{tagDup}
	b = binary.BigEndian.AppendUint16(b, uint16(xxhash.Sum64String(digest)%shards))
	return append(b, digest...)
}

// nearKey: the shard is the fingerprint's top bits, so one shard's keys
// are one contiguous range.
func nearKey(fp, seq uint64) []byte {
	b := []byte{tagNear}
	b = binary.BigEndian.AppendUint16(b, uint16(fp>>54))
	b = binary.BigEndian.AppendUint64(b, fp)
	return binary.BigEndian.AppendUint64(b, seq)
}

// dedup is the archive's memory of payloads and texts seen before.
//
// Payload digests are all kept, in the store. Text fingerprints are kept
// in memory too, in near-duplicate indexes (simhash.Index) that grow with
// every page that is not near an earlier one: to bound memory, the
// fingerprints form generations of half the window each, by sequence
// number, and when the current generation is full the one before it is
// forgotten (its store keys deleted). A text is therefore compared with
// at least the last window/2 and at most the last window fingerprints
// added. Near-duplicates are mostly close to one another in a crawl (the
// same site, the same mirror, one day's pages), which is where the window
// looks; docs/simhash.md.
type dedup struct {
	store *kv.DB
	k     int
	half  uint64 // sequence numbers per generation; 0: one generation, never forgotten

	mu       sync.Mutex
	prev     *nearGen // the generation before cur; nil when none
	cur      *nearGen
	next     uint64                   // the next fingerprint's sequence number
	inflight map[string]chan struct{} // payloads being stored now, closed when they are known
}

// nearGen is one generation of fingerprints: sequence numbers first up to
// first+len(fps), fps[seq-first] the fingerprint of seq (0 for a sequence
// number a crash lost).
type nearGen struct {
	index *simhash.Index
	first uint64
	fps   []uint64
}

func (x *dedup) newGen(first uint64) *nearGen {
	return &nearGen{index: simhash.NewIndex(x.k), first: first}
}

func (g *nearGen) add(fp, seq uint64) {
	for g.first+uint64(len(g.fps)) < seq {
		g.fps = append(g.fps, 0)
	}
	g.fps = append(g.fps, fp)
	g.index.Add(fp, seq)
}

// openDedup loads the near-duplicate index from the store: the last one
// or two generations of fingerprints (window/2 each; window < 0: all).
// Fingerprints of older generations, left by a crash before their
// deletion or by a smaller window than the last run's, are deleted.
func openDedup(store *kv.DB, distance, window int) (*dedup, error) {
	x := &dedup{store: store, k: distance, inflight: map[string]chan struct{}{}}
	if window > 0 {
		x.half = uint64(max(window/2, 1))
	}
	type stored struct{ fp, seq uint64 }
	var all []stored
	it, err := store.Scan([]byte{tagNear}, []byte{tagNear + 1})
	if err != nil {
		return nil, err
	}
	for ; it.Valid(); it.Next() {
		k := it.Key()
		if len(k) != 1+2+8+8 {
			it.Close()
			return nil, fmt.Errorf("%w: key %x", errCorrupt, k)
		}
		s := stored{fp: binary.BigEndian.Uint64(k[3:11]), seq: binary.BigEndian.Uint64(k[11:19])}
		all = append(all, s)
		x.next = max(x.next, s.seq+1)
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b stored) int { return cmp.Compare(a.seq, b.seq) })
	var curFirst, oldest uint64 // the current generation's first sequence number; the oldest kept
	if x.half > 0 && x.next > 0 {
		curFirst = (x.next - 1) / x.half * x.half
		oldest = curFirst - min(curFirst, x.half)
		if curFirst > 0 {
			x.prev = x.newGen(oldest)
		}
	}
	x.cur = x.newGen(curFirst)
	b := store.NewBatch()
	old := 0
	for _, s := range all {
		switch {
		case s.seq < oldest:
			b.Delete(nearKey(s.fp, s.seq))
			old++
		case s.seq < curFirst:
			x.prev.add(s.fp, s.seq)
		default:
			x.cur.add(s.fp, s.seq)
		}
	}
	if old > 0 {
		if err := b.Commit(false); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// identical returns the first capture of the payload with this digest.
func (x *dedup) identical(digest string) (original, bool, error) {
	v, ok, err := x.store.Get(dupKey(digest))
	if err != nil || !ok {
		return original{}, false, err
	}
	o, err := decodeOriginal(v)
	return o, err == nil, err
}

// firstCapture returns the first capture of the payload with this digest
// or, when there is none yet, makes the caller its first capture: it must
// call release once it has remembered it (or failed). Concurrent captures
// of one payload therefore store it once: the others wait for the first
// to be on disk and become revisits of it.
func (x *dedup) firstCapture(digest string) (o original, found bool, release func(), err error) {
	for {
		if o, found, err = x.identical(digest); err != nil || found {
			return o, found, nil, err
		}
		x.mu.Lock()
		wait, busy := x.inflight[digest]
		if !busy {
			done := make(chan struct{})
			x.inflight[digest] = done
			x.mu.Unlock()
			return original{}, false, func() {
				x.mu.Lock()
				delete(x.inflight, digest)
				x.mu.Unlock()
				close(done)
			}, nil
		}
		x.mu.Unlock()
		<-wait
	}
}

// remember notes o as the first capture of digest. The write is not
// synced: the frontier's next Complete syncs the store, and an entry lost
// in a crash only means the payload is stored in full once more.
func (x *dedup) remember(digest string, o original) error {
	b := x.store.NewBatch()
	b.Set(dupKey(digest), o.encode())
	return b.Commit(false)
}

// nearest returns the capture whose fingerprint is closest to fp, within
// the index's distance; among equally close ones, the first indexed.
func (x *dedup) nearest(fp uint64) (original, int, bool, error) {
	var (
		id, stored uint64
		dist       int
		found      bool
	)
	x.mu.Lock()
	for _, g := range [...]*nearGen{x.prev, x.cur} { // older first: it wins a tie
		if g == nil {
			continue
		}
		if gid, d, ok := g.index.Near(fp); ok && (!found || d < dist) {
			id, dist, found, stored = gid, d, true, g.fps[gid-g.first]
		}
	}
	x.mu.Unlock()
	if !found {
		return original{}, 0, false, nil
	}
	v, ok, err := x.store.Get(nearKey(stored, id))
	if err != nil || !ok {
		// Not found: forgotten with its generation since Near answered.
		return original{}, 0, false, err
	}
	o, err := decodeOriginal(v)
	return o, dist, err == nil, err
}

// addText indexes the fingerprint of a capture's text. When the current
// generation is full, the one before it is forgotten.
func (x *dedup) addText(fp uint64, o original) error {
	x.mu.Lock()
	seq := x.next
	x.next++
	var forgotten *nearGen
	if x.half > 0 && seq >= x.cur.first+x.half {
		forgotten, x.prev, x.cur = x.prev, x.cur, x.newGen(seq)
	}
	x.cur.add(fp, seq)
	x.mu.Unlock()
	b := x.store.NewBatch()
	b.Set(nearKey(fp, seq), o.encode())
	if forgotten != nil {
		for i, f := range forgotten.fps {
			b.Delete(nearKey(f, forgotten.first+uint64(i)))
		}
	}
	return b.Commit(false)
}

// nearLen returns the number of fingerprints the near-duplicate index
// holds.
func (x *dedup) nearLen() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := x.cur.index.Len()
	if x.prev != nil {
		n += x.prev.index.Len()
	}
	return n
}

// A small decoder of the formats above.
type decoder struct {
	b   []byte
	bad bool
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
