package simhash

import (
	"fmt"
	"math"
	"math/bits"
	"sync"
)

// DefaultK is the Hamming distance under which two pages are near
// duplicates. Manku, Jain and Das Sarma found k = 3 the best trade-off of
// precision and recall for 64-bit fingerprints of 8 billion web pages.
const DefaultK = 3

// MaxK is the largest distance an Index supports: its four tables each
// key on a quarter of the bits, and a fingerprint within distance k agrees
// exactly on at least 4-k quarters.
const MaxK = 3

// Index stores fingerprints with ids and finds the closest one within
// Hamming distance k of a query without scanning them all, with the
// permuted tables of Manku, Jain and Das Sarma ("Detecting near-duplicates
// for web crawling", WWW 2007).
//
// Layout: the 64 bits are four 16-bit blocks, block b being bits 16b to
// 16b+15. Two fingerprints within distance k ≤ 3 differ in at most k
// blocks, so they agree exactly on at least one of any k+1 blocks. The
// index keeps k+1 tables; table t is an array of 2^16 buckets indexed by
// block t, and each stored fingerprint is appended to one bucket of every
// table. A query looks at one bucket per table, holding about n/2^16 of n
// fingerprints. Each bucket entry is 8 bytes: the entry's position in
// insertion order (32 bits) and the two blocks after t (32 bits, a tag),
// so that the candidates are filtered by their tag's distance in the
// bucket's own cache lines: a random fingerprint passes the tag test with
// probability 1.3e-6 at k = 3, and only those that pass are looked up in
// the entries array for their full distance and id.
//
// Memory is 16 bytes per fingerprint for the entries (fingerprint and id)
// plus 8 bytes per table, 48 bytes at k = 3, plus the slack of bucket
// growth, and 1.5 MiB of bucket headers per table: measured at a million,
// 69 bytes per fingerprint after Adds, 55 after ReadFrom (exact buckets).
// docs/simhash.md has the numbers and why this layout and not more tables
// with longer keys.
//
// A small index has no tables: up to scanEntries fingerprints, Near scans
// the entries (a few microseconds, what a probe of the tables costs at a
// million), and the tables are built, with buckets sized exactly, when the
// index outgrows that. So a crawl of a few thousand pages does not carry
// the 6 MiB of bucket headers (k = 3) that its handful of fingerprints
// would leave almost empty.
//
// An Index is safe for concurrent use. Add does not deduplicate: adding a
// fingerprint twice stores it twice, and Near answers with the first.
// Near duplicates of one page share its buckets and all pass the tag test,
// so a query near a cluster of m of them costs m lookups; adding a page
// only when Near finds nothing keeps one per cluster.
// Use NewIndex; the zero Index is an empty one with k = 0.
type Index struct {
	mu      sync.RWMutex
	k       int
	entries []entry
	tables  []*table // k+1 once len(entries) > scanEntries, else nil
}

// scanEntries is the most fingerprints an index holds without tables.
// Scanning 1,024 entries (16 KiB) costs about what probing the tables
// costs at a million fingerprints, 1–2 µs (docs/simhash.md, "Memory and
// probe cost"); the tables' bucket headers at k = 3 are 6 MiB.
const scanEntries = 1024

type entry struct {
	fp, id uint64
}

// table is one permuted table: bucket key is a 16-bit block of the
// fingerprint; an element is tag<<32 | position.
type table [1 << blockBits][]uint64

const (
	blockBits = 16
	blocks    = 64 / blockBits
)

// NewIndex returns an empty index answering within Hamming distance k. It
// panics unless 0 ≤ k ≤ MaxK: k is fixed by the code that creates the
// index, and a larger one needs a different table layout.
func NewIndex(k int) *Index {
	if k < 0 || k > MaxK {
		panic(fmt.Sprintf("simhash: NewIndex(%d): k must be between 0 and %d", k, MaxK))
	}
	return &Index{k: k}
}

// K returns the distance within which the index answers.
func (x *Index) K() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.k
}

// Len returns the number of fingerprints added.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.entries)
}

// Add stores fingerprint f with id. It panics past 2^32-1 fingerprints,
// which would take some 200 GB.
func (x *Index) Add(f, id uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.entries) == math.MaxUint32 {
		panic("simhash: Index.Add: index full")
	}
	pos := uint64(len(x.entries))
	x.entries = append(x.entries, entry{f, id})
	if x.tables == nil {
		if len(x.entries) > scanEntries {
			x.tables = buildTables(x.k, x.entries)
		}
		return
	}
	for t, tab := range x.tables {
		b := &tab[key(f, t)]
		*b = append(*b, uint64(tag(f, t))<<32|pos)
	}
}

func newTables(k int) []*table {
	ts := make([]*table, k+1)
	for t := range ts {
		ts[t] = new(table)
	}
	return ts
}

// Near returns the id of the stored fingerprint closest to f and its
// distance, if one is within distance k; among equally close ones, the
// first added.
func (x *Index) Near(f uint64) (id uint64, dist int, ok bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.tables == nil {
		return x.scan(f)
	}
	best, bestDist := uint32(0), x.k+1
	for t, tab := range x.tables {
		q := tag(f, t)
		for _, e := range tab[key(f, t)] {
			if bits.OnesCount32(uint32(e>>32)^q) > x.k {
				continue
			}
			pos := uint32(e)
			d := bits.OnesCount64(x.entries[pos].fp ^ f)
			if d < bestDist || d == bestDist && pos < best {
				best, bestDist = pos, d
				if d == 0 && t == 0 {
					// An exact match agrees on every block, so every
					// exact match is in this bucket, in insertion
					// order: this is the first.
					return x.entries[pos].id, 0, true
				}
			}
		}
	}
	if bestDist > x.k {
		return 0, 0, false
	}
	return x.entries[best].id, bestDist, true
}

// scan is Near without tables: the closest entry within k, the first
// among equals. x.mu is held.
func (x *Index) scan(f uint64) (id uint64, dist int, ok bool) {
	best, bestDist := -1, x.k+1
	for pos, e := range x.entries {
		if d := bits.OnesCount64(e.fp ^ f); d < bestDist {
			best, bestDist = pos, d
			if d == 0 {
				break
			}
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	return x.entries[best].id, bestDist, true
}

// key is block t of f, the bucket of f in table t.
func key(f uint64, t int) uint16 {
	return uint16(f >> (blockBits * t))
}

// tag is the two blocks after block t (wrapping around), stored with the
// position to filter candidates without reading the entries array.
func tag(f uint64, t int) uint32 {
	return uint32(bits.RotateLeft64(f, -blockBits*(t+1)))
}
