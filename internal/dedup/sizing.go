package dedup

import "math"

const (
	blockBits = 512
	maxK      = 32
)

// fpModel returns the false-positive rate of a blocked Bloom filter whose
// 512-bit blocks hold lambda keys on average, each setting k bits.
//
// A blocked filter is worse than a classic one of the same size because
// blocks are unevenly loaded: the number of keys in a block is Poisson(λ),
// and a query that lands in a crowded block passes more often. So the
// rate is the classic formula averaged over the block load:
//
//	Σ_j P(J = j) · (1 - (1 - 1/512)^(k·j))^k,  J ~ Poisson(λ)
//
// This matches the measured rates within a few percent (bloom_test.go).
func fpModel(lambda float64, k int) float64 {
	if lambda <= 0 {
		return 0
	}
	q := math.Pow(1-1.0/blockBits, float64(k)) // a key leaves a given bit clear
	hi := int(lambda + 12*math.Sqrt(lambda) + 30)
	var fp float64
	logP := -lambda // log P(J = 0)
	logL := math.Log(lambda)
	for j := 0; j <= hi; j++ {
		if j > 0 {
			logP += logL - math.Log(float64(j))
		}
		fp += math.Exp(logP) * math.Pow(1-math.Pow(q, float64(j)), float64(k))
	}
	return min(fp, 1)
}

// bestK returns the number of bits per key that minimizes the
// false-positive rate at lambda keys per block, and that rate.
func bestK(lambda float64) (int, float64) {
	k, fp := 1, fpModel(lambda, 1)
	for next := 2; next <= maxK; next++ {
		f := fpModel(lambda, next)
		if f >= fp {
			break // the rate is unimodal in k
		}
		k, fp = next, f
	}
	return k, fp
}

// plan sizes a sub-filter for capacity keys at bitsPerKey: its number of
// blocks, the best k for the resulting load, and its false-positive rate
// when full.
func plan(capacity uint64, bitsPerKey float64) (nblocks uint64, k int, fp float64) {
	nblocks = max(1, uint64(math.Ceil(float64(capacity)*bitsPerKey/blockBits)))
	k, fp = bestK(float64(capacity) / float64(nblocks))
	return nblocks, k, fp
}

// bitsFor returns the fewest bits per key, at least from and at most
// maxBitsPerKey, at which a full sub-filter's false-positive rate is at
// most target.
func bitsFor(target, from float64) float64 {
	rate := func(b float64) float64 {
		_, fp := bestK(blockBits / b)
		return fp
	}
	lo, hi := from, float64(maxBitsPerKey)
	if rate(lo) <= target {
		return lo
	}
	if rate(hi) > target {
		return hi
	}
	for hi-lo > 1.0/64 {
		mid := (lo + hi) / 2
		if rate(mid) <= target {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
