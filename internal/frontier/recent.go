package frontier

import "github.com/godwit-crawler/godwit/internal/dedup"

// recentDone remembers URLs recently found finished (fetched, failed
// for good, or skipped) and the depth they were reached at, so that a
// link to one costs no store read. Pages link the same URLs again and
// again (a site's navigation, its home page, the page before): on the
// throughput web with 60 links a page most links are to pages already
// fetched, and each cost a Pebble point read (~3 µs) that could only
// confirm there was nothing to do.
//
// A link to a finished URL changes nothing unless it is by a shorter
// path (its depth is lowered and its capture replayed), carries sitemap
// hints, or the crawl revisits (the URL's record takes the link's OPIC
// cash); add reads the record in those cases, as before. So the cache
// only answers "finished, reached at depth d", and only when the
// frontier does not revisit.
//
// It is direct-mapped: a fixed array of slots, each a key's 64-bit hash
// (the seen-set's, xxhash) and its depth; a key evicts whatever held its
// slot. 65,536 slots take 1 MiB. A slot is trusted on the whole 64-bit
// hash: a new URL is taken for a finished one only if the seen-set
// filter also calls it "maybe seen" (about 1%) and its hash equals the
// slot's, one chance in 2^64 after that.
type recentDone struct {
	slots []recentSlot
	mask  uint64
}

type recentSlot struct {
	hash  uint64 // 0: empty
	depth int32
}

// recentSlots is the size of the cache.
const recentSlots = 1 << 16

func newRecentDone(n int) *recentDone {
	return &recentDone{slots: make([]recentSlot, n), mask: uint64(n - 1)}
}

// depth returns the depth a finished URL with key hash h was reached
// at, when the cache holds it.
func (r *recentDone) depth(h uint64) (int, bool) {
	if h == 0 {
		return 0, false
	}
	s := r.slots[h&r.mask]
	if s.hash != h {
		return 0, false
	}
	return int(s.depth), true
}

// put records that the URL with key hash h is finished, reached at
// depth.
func (r *recentDone) put(h uint64, depth int) {
	if h == 0 {
		return
	}
	r.slots[h&r.mask] = recentSlot{hash: h, depth: int32(depth)}
}

// drop forgets the URL with key hash h (its record is about to change).
func (r *recentDone) drop(h uint64) {
	if s := &r.slots[h&r.mask]; s.hash == h {
		*s = recentSlot{}
	}
}

// reset forgets everything (a shard's state was replaced or dropped).
func (r *recentDone) reset() { clear(r.slots) }

// keyHash is the hash recentDone and the seen-set filter use
// (dedup.Hash of the key's bytes, without copying them).
func keyHash(key string) uint64 { return dedup.HashString(key) }
