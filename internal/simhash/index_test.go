package simhash

import (
	"math/bits"
	"math/rand/v2"
	"sync"
	"testing"
)

// bruteNear is what Index.Near must answer: the closest stored
// fingerprint within k, the first added among equals.
func bruteNear(fps []uint64, f uint64, k int) (pos int, dist int, ok bool) {
	pos, dist = -1, k+1
	for i, g := range fps {
		if d := Distance(f, g); d < dist {
			pos, dist = i, d
		}
	}
	return pos, dist, pos >= 0
}

// flip returns f with n distinct random bits flipped.
func flip(r *rand.Rand, f uint64, n int) uint64 {
	for _, b := range r.Perm(64)[:n] {
		f ^= 1 << b
	}
	return f
}

// TestNearAgreesWithScan compares Near with a linear scan on random
// fingerprints, clusters of near duplicates and repeated ones, queried
// with perturbations of 0 to 5 bits of stored fingerprints and with
// unrelated ones: every fingerprint within k must be found (the closest,
// the first among equals), none beyond k. It queries the index as it
// grows: small enough to be scanned, just past that (the tables built
// from the entries at once), and grown by Adds into its tables.
func TestNearAgreesWithScan(t *testing.T) {
	for k := 0; k <= MaxK; k++ {
		r := rand.New(rand.NewPCG(uint64(k), 42))
		x := NewIndex(k)
		var fps []uint64
		add := func(f uint64) {
			x.Add(f, uint64(len(fps))*7+1) // ids differ from positions
			fps = append(fps, f)
		}
		hits := map[int]int{}
		check := func(queries int) {
			if x.Len() != len(fps) {
				t.Fatalf("k=%d: Len() = %d, want %d", k, x.Len(), len(fps))
			}
			if tables := x.tables != nil; tables != (len(fps) > scanEntries) {
				t.Fatalf("k=%d, %d fingerprints: tables %v, want them past %d", k, len(fps), tables, scanEntries)
			}
			for i := range queries {
				var q uint64
				if i%6 == 5 {
					q = r.Uint64()
				} else {
					q = flip(r, fps[r.IntN(len(fps))], i%6)
				}
				pos, dist, ok := bruteNear(fps, q, k)
				id, gotDist, gotOK := x.Near(q)
				want := uint64(pos)*7 + 1
				if gotOK != ok || ok && (id != want || gotDist != dist) {
					t.Fatalf("k=%d, %d fingerprints: Near(%#x) = %d, %d, %v; want %d, %d, %v", k, len(fps), q, id, gotDist, gotOK, want, dist, ok)
				}
				if ok {
					hits[dist]++
				}
			}
		}
		for _, n := range []int{100, scanEntries, scanEntries + 1, 10000} {
			for len(fps) < n {
				switch p := r.IntN(10); {
				case p < 6 || len(fps) == 0:
					add(r.Uint64())
				case p < 9: // a near duplicate of an earlier one
					add(flip(r, fps[r.IntN(len(fps))], r.IntN(6)))
				default: // an exact repeat
					add(fps[r.IntN(len(fps))])
				}
			}
			check(6000)
		}
		t.Logf("k=%d: hits by distance %v", k, hits)
		for d := 0; d <= k; d++ {
			if hits[d] == 0 {
				t.Errorf("k=%d: no query at distance %d: the test does not cover it", k, d)
			}
		}
	}
}

// TestNearEveryPattern checks recall at k=3 for every way of flipping up
// to 3 bits spread over the four blocks, including all three in one block
// or one in each of three, against a single stored fingerprint.
func TestNearEveryPattern(t *testing.T) {
	const f uint64 = 0x0123456789abcdef
	x := NewIndex(3)
	x.Add(f, 99)
	for a := range 64 {
		for b := a; b < 64; b++ {
			for c := b; c < 64; c++ {
				q := f ^ 1<<a ^ 1<<b ^ 1<<c // a==b cancels: 1 or 3 bits
				want := bits.OnesCount64(q ^ f)
				if id, d, ok := x.Near(q); !ok || id != 99 || d != want {
					t.Fatalf("Near(%#x) = %d, %d, %v; want 99, %d, true", q, id, d, ok, want)
				}
				q ^= 1 << ((c + 17) % 64) // one more bit: 2 or 4 apart
				id, d, ok := x.Near(q)
				if want = bits.OnesCount64(q ^ f); want <= 3 {
					if !ok || id != 99 || d != want {
						t.Fatalf("Near(%#x) = %d, %d, %v; want 99, %d, true", q, id, d, ok, want)
					}
				} else if ok {
					t.Fatalf("Near(%#x) = %d, %d, true; want none (distance %d)", q, id, d, want)
				}
			}
		}
	}
}

func TestIndexEmpty(t *testing.T) {
	for _, x := range []*Index{NewIndex(3), new(Index)} {
		if id, d, ok := x.Near(0); ok {
			t.Errorf("empty index: Near(0) = %d, %d, true; want none", id, d)
		}
		if x.Len() != 0 {
			t.Errorf("empty index: Len() = %d, want 0", x.Len())
		}
	}
	// The zero Index is an exact-match index.
	var x Index
	x.Add(5, 1)
	if id, d, ok := x.Near(5); !ok || id != 1 || d != 0 {
		t.Errorf("zero Index: Near(5) = %d, %d, %v; want 1, 0, true", id, d, ok)
	}
	if _, _, ok := x.Near(4); ok {
		t.Errorf("zero Index: Near(4) found 5, which is 1 bit away with k = 0")
	}
}

func TestNewIndexPanics(t *testing.T) {
	for _, k := range []int{-1, 4, 64} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewIndex(%d) did not panic", k)
				}
			}()
			NewIndex(k)
		}()
	}
}

// TestIndexConcurrent is for the race detector: Near, Add, Len and
// WriteTo from several goroutines.
func TestIndexConcurrent(t *testing.T) {
	x := NewIndex(3)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 0))
			for i := range 2000 {
				f := r.Uint64()
				x.Add(f, uint64(i))
				if _, d, ok := x.Near(flip(r, f, 2)); !ok || d > 2 {
					t.Errorf("Near of a fingerprint 2 bits from one just added = %d, %v", d, ok)
					return
				}
				if i%500 == 0 {
					if _, err := x.MarshalBinary(); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if x.Len() != 8000 {
		t.Errorf("Len() = %d, want 8000", x.Len())
	}
}
