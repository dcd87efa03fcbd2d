package freshness

import (
	"math"
	"time"
)

// Freshness returns the expected time-averaged freshness of a page that
// changes as a Poisson process of rate (changes per second) and is
// fetched every interval: the probability that the copy equals the live
// page at a random moment,
//
//	F = (1 − e^{−x}) / x,  x = rate × interval (changes per visit).
//
// A page that never changes (rate 0) is always fresh.
func Freshness(rate float64, interval time.Duration) float64 {
	x := rate * interval.Seconds()
	if x <= 0 {
		return 1
	}
	if x < 1e-8 {
		return 1 - x/2
	}
	return -math.Expm1(-x) / x
}

// marginal is g(x) = 1 − (1+x)e^{−x}: rate × ∂F/∂f for a page visited
// at frequency f = rate/x. It rises from 0 at x = 0 to 1 as x → ∞, with
// g'(x) = x e^{−x}.
func marginal(x float64) float64 {
	if x < 1e-3 { // 1 − (1+x)e^{−x} loses every digit here
		return x * x * (0.5 - x*(1.0/3-x/8))
	}
	return -math.Expm1(-x) - x*math.Exp(-x)
}

// solveMarginal returns x > 0 with marginal(x) = c, for 0 < c < 1, by
// Newton's method kept inside a bracket (g is convex below x = 1 and
// concave above, so a bare Newton step can overshoot).
func solveMarginal(c float64) float64 {
	lo, hi := 0.0, 1.0
	for marginal(hi) < c {
		lo, hi = hi, hi*2
		if hi > 1e3 {
			return hi
		}
	}
	x := math.Sqrt(2 * c) // g ≈ x²/2 near 0
	if !(x > lo && x < hi) {
		x = (lo + hi) / 2
	}
	for range 60 {
		g := marginal(x) - c
		if g > 0 {
			hi = x
		} else {
			lo = x
		}
		next := x - g/(x*math.Exp(-x))
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		if math.Abs(next-x) <= 1e-12*x {
			return next
		}
		x = next
	}
	return x
}

// Interval returns the revisit interval of a page with change rate
// (changes per second) and importance weight that maximizes the
// weighted expected freshness Σ w·F of the collection for the fetch
// budget that the Lagrange multiplier mu stands for (CalibrateMu).
//
// At the optimum every visited page has the same marginal value of one
// more visit per second, w·∂F/∂f = mu, that is
//
//	1 − (1+x)e^{−x} = mu·rate/w,  interval = x/rate.
//
// When mu·rate/w ≥ 1 no visit frequency is worth its cost: the page
// changes too fast to be kept fresh (or matters too little) and gets
// p.MaxInterval, as does a page that never changes or has no weight.
// mu ≤ 0 stands for an unlimited budget: p.MinInterval. The result is
// always within [p.MinInterval, p.MaxInterval].
func (p Policy) Interval(rate, weight, mu float64) time.Duration {
	if !(rate > 0) || !(weight > 0) {
		return p.MaxInterval
	}
	if !(mu > 0) {
		return p.MinInterval
	}
	c := mu * rate / weight
	if c >= 1 {
		return p.MaxInterval
	}
	sec := solveMarginal(c) / rate
	if sec >= p.MaxInterval.Seconds() {
		return p.MaxInterval
	}
	d := time.Duration(sec * float64(time.Second))
	return min(max(d, p.MinInterval), p.MaxInterval)
}

// Next returns when the URL should be visited again: its last visit plus
// the Interval for its estimated rate.
func (p Policy) Next(s State, weight, mu float64) time.Time {
	return s.Last.Add(p.Interval(p.Rate(s), weight, mu))
}

// Spend returns the fetches per second that the intervals chosen for mu
// cost: Σ 1/Interval(rate_i, weight_i, mu). weights may be nil (all 1).
func (p Policy) Spend(rates, weights []float64, mu float64) float64 {
	var sum float64
	for i, r := range rates {
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		sum += 1 / p.Interval(r, w, mu).Seconds()
	}
	return sum
}

// CalibrateMu returns the mu for which the optimal intervals of the pages
// with these rates (changes per second) and weights (nil: all 1) spend
// budget fetches per second, found by bisection on log mu (Spend falls
// as mu grows). It returns 0 when the budget allows every page
// p.MinInterval, and the smallest mu that sends every page to
// p.MaxInterval when the budget does not even cover that.
//
// It costs about 60 × len(rates) solves: the scheduler runs it now and
// then on a sample of the URLs, with the budget scaled by sample/total.
func (p Policy) CalibrateMu(rates, weights []float64, budget float64) float64 {
	if p.Spend(rates, weights, 0) <= budget {
		return 0
	}
	hi := 0.0 // above every w/λ, every page gets MaxInterval
	for i, r := range rates {
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		if r > 0 && w > 0 {
			hi = max(hi, w/r)
		}
	}
	if hi == 0 || p.Spend(rates, weights, hi) >= budget {
		return hi
	}
	lo := hi * 1e-12
	for range 64 {
		mid := math.Sqrt(lo * hi)
		if p.Spend(rates, weights, mid) > budget {
			lo = mid
		} else {
			hi = mid
		}
		if hi/lo < 1+1e-9 {
			break
		}
	}
	return hi
}

// SpareChanges is the expected number of changes per MinInterval from
// which a page is worth visiting every MinInterval when the budget is
// not binding (SpareMu).
const SpareChanges = 0.01

// SpareMu is the smallest µ worth scheduling with: the multiplier at
// which a page (of weight 1) expected to change SpareChanges times per
// MinInterval is visited every MinInterval. With a budget to spare the
// calibrated µ is 0, which Interval reads as every page every
// MinInterval, whether or not anything suggests it changes; under
// SpareMu instead, pages with evidence of change (λ·MinInterval ≥
// SpareChanges) still get MinInterval, and the others about
// √(MinInterval · SpareChanges/λ) (the geometric mean of the minimum and
// the time it takes them to change SpareChanges times), within bounds.
func (p Policy) SpareMu() float64 {
	return marginal(SpareChanges) * p.MinInterval.Seconds() / SpareChanges
}
