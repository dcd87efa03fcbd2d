package dedup

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"testing"

	bitsbloom "github.com/bits-and-blooms/bloom/v3"
)

// The benchmarks report the cost per key, hashing included. Keys are 8
// bytes, written into a buffer per iteration so that every variant pays
// the same for making them. Sizes: 1M keys (1.2 MiB of bits, in L2/L3) and
// 16M keys (20 MiB, mostly out of cache, like a real crawl's filter).

var benchSizes = []int{1 << 20, 1 << 24}

// filter is the interface the benchmarks need of either filter.
type filter interface {
	add(key []byte)
	test(key []byte) bool
	reset()
}

type ours struct{ *Bloom }

func (f ours) add(k []byte)       { f.Add(k) }
func (f ours) test(k []byte) bool { return f.MayContain(k) }
func (f ours) reset() {
	f.subs = f.subs[:1]
	clear(f.subs[0].blocks)
	f.subs[0].count, f.subs[0].set, f.n = 0, 0, 0
}

// theirs is github.com/bits-and-blooms/bloom/v3, the common Go filter, with
// the same memory (10 bits per key) and its best k for it, 7: the
// comparison behind writing our own.
type theirs struct{ *bitsbloom.BloomFilter }

func (f theirs) add(k []byte)       { f.Add(k) }
func (f theirs) test(k []byte) bool { return f.Test(k) }
func (f theirs) reset()             { f.ClearAll() }

var impls = []struct {
	name string
	new  func(n int) filter
}{
	{"godwit", func(n int) filter { return ours{NewBloom(uint64(n), 10)} }},
	{"bits-and-blooms", func(n int) filter { return theirs{bitsbloom.New(uint(10*n), 7)} }},
}

func BenchmarkAdd(b *testing.B) {
	for _, impl := range impls {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/keys=%dM", impl.name, n>>20), func(b *testing.B) {
				f := impl.new(n)
				var k [8]byte
				for i := 0; i < b.N; i++ {
					if i%n == 0 && i > 0 {
						f.reset() // stay at n keys
					}
					binary.LittleEndian.PutUint64(k[:], uint64(i))
					f.add(k[:])
				}
			})
		}
	}
}

func BenchmarkMayContain(b *testing.B) {
	for _, impl := range impls {
		for _, n := range benchSizes {
			f := impl.new(n)
			var k [8]byte
			for i := range n {
				binary.LittleEndian.PutUint64(k[:], uint64(i))
				f.add(k[:])
			}
			// hit: keys added; miss: keys never added (about 1% still pass).
			for _, tc := range []struct {
				name string
				base uint64
			}{{"hit", 0}, {"miss", 1 << 40}} {
				b.Run(fmt.Sprintf("%s/%s/keys=%dM", impl.name, tc.name, n>>20), func(b *testing.B) {
					var k [8]byte
					found := 0
					for i := 0; i < b.N; i++ {
						binary.LittleEndian.PutUint64(k[:], tc.base+uint64(i%n))
						if f.test(k[:]) {
							found++
						}
					}
					sink = found
				})
			}
		}
	}
}

// BenchmarkMayContainHash leaves out the hashing, as for a caller that
// already holds the key's xxhash.
func BenchmarkMayContainHash(b *testing.B) {
	for _, n := range benchSizes {
		f := NewBloom(uint64(n), 10)
		for i := range uint64(n) {
			f.AddHash(mix(i))
		}
		for _, tc := range []struct {
			name string
			base uint64
		}{{"hit", 0}, {"miss", 1 << 40}} {
			b.Run(fmt.Sprintf("%s/keys=%dM", tc.name, n>>20), func(b *testing.B) {
				found := 0
				for i := 0; i < b.N; i++ {
					if f.MayContainHash(mix(tc.base + uint64(i%n))) {
						found++
					}
				}
				sink = found
			})
		}
	}
}

// mix stands in for a hash the caller already has (splitmix64's
// finalizer).
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

var sink int

// BenchmarkMayContainLarge checks the target at crawl scale: test
// ≤ 100 ns at 100M keys, false-positive rate within 20% of the configured
// one. It needs ~125 MiB and a minute to fill, so it runs only with
//
//	GODWIT_BLOOM_KEYS=100000000 go test -run '^$' -bench Large ./internal/dedup
func BenchmarkMayContainLarge(b *testing.B) {
	n, err := strconv.Atoi(os.Getenv("GODWIT_BLOOM_KEYS"))
	if err != nil || n <= 0 {
		b.Skip("set GODWIT_BLOOM_KEYS to run")
	}
	f := NewBloom(uint64(n), 10)
	var k [8]byte
	for i := range n {
		binary.LittleEndian.PutUint64(k[:], uint64(i))
		f.Add(k[:])
	}
	fp := 0
	const probes = 1 << 20
	for i := range probes {
		binary.LittleEndian.PutUint64(k[:], 1<<40+uint64(i))
		if f.MayContain(k[:]) {
			fp++
		}
	}
	b.ResetTimer()
	found := 0
	for i := 0; i < b.N; i++ {
		binary.LittleEndian.PutUint64(k[:], uint64(i*7919%n)) // scattered hits
		if f.MayContain(k[:]) {
			found++
		}
	}
	sink = found
	b.ReportMetric(100*float64(fp)/probes, "fp-%")
	b.ReportMetric(100*f.EstimatedFPRate(), "est-fp-%")
	b.ReportMetric(float64(f.SizeBytes())/(1<<20), "MiB")
}
