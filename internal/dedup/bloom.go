package dedup

import (
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Defaults for NewBloom.
const (
	// DefaultBitsPerKey gives a false-positive rate of about 1% (0.98%
	// measured at a million keys, TestFalsePositiveRate).
	DefaultBitsPerKey = 10
	// DefaultExpected is the capacity of a filter made with expected == 0.
	DefaultExpected = 4096

	minBitsPerKey = 2
	maxBitsPerKey = 64
	// maxCapacity bounds the capacity of one sub-filter (2^40 keys, 1.25
	// TiB at 10 bits per key), so that sizes never overflow.
	maxCapacity = 1 << 40
)

// block is one cache line of a filter: a key sets and tests bits of one
// block only, so a lookup costs one cache miss whatever k is. Go's
// allocator puts an allocation whose size is a multiple of 64 bytes on a
// 64-byte boundary (such a size rounds up to a size class that is itself a
// multiple of 64, objects of a class lie at multiples of its size from a
// page boundary, and large allocations are page-aligned), so blocks are
// cache lines. That is the runtime's behaviour, not its promise:
// TestBlocksAligned checks it, and were it to change, a lookup would cost
// up to two cache misses instead of one, and answer the same.
type block [8]uint64

// Hash returns the 64-bit hash Bloom uses for key (xxhash64). Callers that
// hash the key anyway can pass the result to AddHash and MayContainHash.
func Hash(key []byte) uint64 { return xxhash.Sum64(key) }

// HashString is Hash of a string key, without converting it to bytes.
func HashString(key string) uint64 { return xxhash.Sum64String(key) }

// Bloom is a cache-blocked Bloom filter: each key maps to one 64-byte
// block (one cache line) and sets k bits inside it, all derived from one
// 64-bit hash (xxhash64 of the key, or a hash the caller already has).
//
// It answers "definitely not added" (MayContain false, never wrong) or
// "maybe added". Past its capacity it grows as a chain of sub-filters; see
// the package documentation. A Bloom is not safe for concurrent use.
type Bloom struct {
	bitsPerKey float64 // of the first sub-filter
	first      uint64  // capacity of the first sub-filter, in keys
	fp0        float64 // model FP rate of the first sub-filter when full
	subs       []sub   // oldest first; Add sets bits in the last one
	n          uint64  // keys added
}

// sub is one plain blocked Bloom filter of the chain.
type sub struct {
	blocks   []block
	k        int    // bits set per key
	capacity uint64 // keys it is sized for
	count    uint64 // keys added to it
	set      uint64 // bits set, for EstimatedFPRate
}

// NewBloom returns an empty filter sized for expected keys at about
// bitsPerKey bits each. expected == 0 means DefaultExpected; bitsPerKey
// == 0 (or NaN) means DefaultBitsPerKey, and other values are clamped to
// [2, 64]. The filter starts with expected*bitsPerKey bits and grows if more
// keys are added (see the package documentation).
func NewBloom(expected uint64, bitsPerKey float64) *Bloom {
	if expected == 0 {
		expected = DefaultExpected
	}
	expected = min(expected, maxCapacity)
	if bitsPerKey == 0 || math.IsNaN(bitsPerKey) {
		bitsPerKey = DefaultBitsPerKey
	}
	bitsPerKey = min(max(bitsPerKey, minBitsPerKey), maxBitsPerKey)
	b := &Bloom{bitsPerKey: bitsPerKey, first: expected}
	nblocks, k, fp := plan(expected, bitsPerKey)
	b.fp0 = fp
	b.subs = []sub{{blocks: make([]block, nblocks), k: k, capacity: expected}}
	return b
}

// Add adds key. Each call counts towards Len and the capacity, so callers
// add a key once (after MayContain said no, or the store said new).
func (b *Bloom) Add(key []byte) { b.AddHash(Hash(key)) }

// MayContain reports whether key may have been added. False is certain;
// true is wrong with probability about EstimatedFPRate.
func (b *Bloom) MayContain(key []byte) bool { return b.MayContainHash(Hash(key)) }

// AddHash adds the key whose hash is h. h must be a well-mixed 64-bit hash
// such as Hash or xxhash64 of the key: the filter uses its bits directly.
func (b *Bloom) AddHash(h uint64) {
	s := &b.subs[len(b.subs)-1]
	if s.count >= s.capacity {
		b.grow()
		s = &b.subs[len(b.subs)-1]
	}
	s.add(h)
	b.n++
}

// MayContainHash is MayContain for a key whose hash is h (see AddHash).
func (b *Bloom) MayContainHash(h uint64) bool {
	// Newest first: it is the largest and holds most keys.
	for i := len(b.subs) - 1; i >= 0; i-- {
		if b.subs[i].has(h) {
			return true
		}
	}
	return false
}

// Len returns the number of keys added.
func (b *Bloom) Len() uint64 { return b.n }

// EstimatedFPRate estimates the probability that MayContain returns true
// for a key that was not added, from how many bits of each sub-filter are
// set. It takes a few microseconds per sub-filter, whatever their size.
func (b *Bloom) EstimatedFPRate() float64 {
	pass := 1.0 // probability that a new key passes no sub-filter
	for i := range b.subs {
		pass *= 1 - b.subs[i].estimatedFP()
	}
	return 1 - pass
}

// SizeBytes returns the memory the filter's bits occupy.
func (b *Bloom) SizeBytes() uint64 {
	var n uint64
	for i := range b.subs {
		n += uint64(len(b.subs[i].blocks)) * 64
	}
	return n
}

// grow appends the next sub-filter: twice the capacity of the last one,
// with enough bits per key that its false-positive rate when full is at
// most target(level).
func (b *Bloom) grow() {
	level := len(b.subs)
	capacity := b.subs[level-1].capacity
	if capacity <= maxCapacity/2 {
		capacity *= 2
	}
	nblocks, k, _ := plan(capacity, bitsFor(b.target(level), b.bitsPerKey))
	b.subs = append(b.subs, sub{blocks: make([]block, nblocks), k: k, capacity: capacity})
}

// tightening makes the targets of sub-filters 1, 2, … sum to the first
// one's: Σ_{i≥1} 1/(i+1)² = π²/6 - 1.
const tightening = 1 / (math.Pi*math.Pi/6 - 1)

// target returns the false-positive rate sub-filter level may reach when
// full: fp0·c/(level+1)² for level ≥ 1, so the whole chain stays below
// 2·fp0. The targets fall polynomially rather than geometrically (the
// usual scalable filter halves them), because each halving costs about
// 1.5-2 bits per key: after ten doublings the chain holds 20 bits per key
// instead of 27, with the same bound.
func (b *Bloom) target(level int) float64 {
	if level == 0 {
		return b.fp0
	}
	l := float64(level + 1)
	return b.fp0 * tightening / (l * l)
}

// The probe sequence is FastLocalBloom's from RocksDB: the high 64 bits of
// h*nblocks pick the block (so the top bits of h do), and the low 32 bits
// of h, multiplied by an odd constant between probes, give each bit's
// position in the block from their top 9 bits.
const probeMul = 0x9e3779b9

func (s *sub) add(h uint64) {
	i, _ := bits.Mul64(h, uint64(len(s.blocks)))
	blk := &s.blocks[i]
	h2 := uint32(h)
	var fresh uint64
	for range s.k {
		bit := h2 >> (32 - 9)
		w := &blk[bit>>6]
		fresh += ^*w >> (bit & 63) & 1
		*w |= 1 << (bit & 63)
		h2 *= probeMul
	}
	s.set += fresh
	s.count++
}

// has tests all k bits without branching on them: an early exit at the
// first clear bit mispredicts on most keys that were not added.
func (s *sub) has(h uint64) bool {
	i, _ := bits.Mul64(h, uint64(len(s.blocks)))
	blk := &s.blocks[i]
	h2 := uint32(h)
	var unset uint64
	for range s.k {
		bit := h2 >> (32 - 9)
		unset |= ^blk[bit>>6] >> (bit & 63)
		h2 *= probeMul
	}
	return unset&1 == 0
}

func (s *sub) estimatedFP() float64 {
	if s.set == 0 {
		return 0
	}
	m := float64(len(s.blocks)) * blockBits
	fill := float64(s.set) / m
	if fill >= 1 {
		return 1
	}
	// Invert the model's expected fill, 1 - exp(-λ(1-q)) with q the chance
	// that one key leaves a given bit clear, to get the load λ that set
	// this many bits (duplicate adds set none), then evaluate the model.
	q := math.Pow(1-1.0/blockBits, float64(s.k))
	lambda := -math.Log1p(-fill) / (1 - q)
	return fpModel(lambda, s.k)
}
