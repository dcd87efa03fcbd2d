package archive

import (
	"encoding/binary"
	"errors"
	"fmt"
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
type dedup struct {
	store *kv.DB

	mu       sync.Mutex
	near     *simhash.Index
	fps      []uint64                 // id → fingerprint: with the id, the key of the capture
	inflight map[string]chan struct{} // payloads being stored now, closed when they are known
}

// openDedup loads the near-duplicate index from the store.
func openDedup(store *kv.DB, distance int) (*dedup, error) {
	x := &dedup{store: store, near: simhash.NewIndex(distance), inflight: map[string]chan struct{}{}}
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
		fp := binary.BigEndian.Uint64(k[3:11])
		seq := binary.BigEndian.Uint64(k[11:19])
		for uint64(len(x.fps)) <= seq {
			x.fps = append(x.fps, 0)
		}
		x.fps[seq] = fp
		x.near.Add(fp, seq)
	}
	if err := it.Close(); err != nil {
		return nil, err
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
// the index's distance.
func (x *dedup) nearest(fp uint64) (original, int, bool, error) {
	x.mu.Lock()
	id, dist, ok := x.near.Near(fp)
	var stored uint64
	if ok {
		stored = x.fps[id]
	}
	x.mu.Unlock()
	if !ok {
		return original{}, 0, false, nil
	}
	v, found, err := x.store.Get(nearKey(stored, id))
	if err != nil || !found {
		return original{}, 0, false, err
	}
	o, err := decodeOriginal(v)
	return o, dist, err == nil, err
}

// addText indexes the fingerprint of a capture's text.
func (x *dedup) addText(fp uint64, o original) error {
	x.mu.Lock()
	seq := uint64(len(x.fps))
	x.fps = append(x.fps, fp)
	x.near.Add(fp, seq)
	x.mu.Unlock()
	b := x.store.NewBatch()
	b.Set(nearKey(fp, seq), o.encode())
	return b.Commit(false)
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
