package freshness

import (
	"math"
	"testing"
	"time"
)

func TestFreshness(t *testing.T) {
	cases := []struct {
		rate     float64
		interval time.Duration
		want     float64
	}{
		{0, time.Hour, 1},
		{1 / 3600.0, 0, 1},
		{1 / 3600.0, time.Hour, 1 - 1/math.E},
		{1 / 3600.0, 2 * time.Hour, (1 - math.Exp(-2)) / 2},
		{1e-12, time.Second, 1 - 0.5e-12},
		{1, 1000 * time.Second, 1e-3},
	}
	for _, c := range cases {
		if got := Freshness(c.rate, c.interval); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Freshness(%g, %v) = %.15g, want %.15g", c.rate, c.interval, got, c.want)
		}
	}
}

func TestSolveMarginal(t *testing.T) {
	for _, c := range []float64{1e-12, 1e-6, 1e-3, 0.01, 0.1, 0.3, 0.5, 0.9, 0.99, 0.999999} {
		x := solveMarginal(c)
		if got := marginal(x); math.Abs(got-c) > 1e-9*max(c, 1e-3) {
			t.Errorf("marginal(solveMarginal(%g) = %g) = %g", c, x, got)
		}
	}
	// marginal is increasing and continuous across the series cut-over.
	prev := 0.0
	for x := 1e-5; x < 50; x *= 1.01 {
		g := marginal(x)
		if g < prev {
			t.Fatalf("marginal(%g) = %g < marginal of a smaller x, %g", x, g, prev)
		}
		prev = g
	}
}

func TestIntervalBoundsAndMonotonicity(t *testing.T) {
	p := defaultPolicy()
	rates := []float64{0, 1e-9, 1 / (30 * 86400.0), 1 / 86400.0, 1 / 3600.0, 1 / 60.0, 0.2, 10}
	weights := []float64{0, 0.1, 1, 10}
	mus := []float64{0, 1, 100, 1e4, 1e6, math.Inf(1)}
	for _, r := range rates {
		for _, w := range weights {
			prev := time.Duration(0)
			for _, mu := range mus {
				d := p.Interval(r, w, mu)
				if d < p.MinInterval || d > p.MaxInterval {
					t.Errorf("Interval(%g, %g, %g) = %v, outside [%v, %v]", r, w, mu, d, p.MinInterval, p.MaxInterval)
				}
				if d < prev { // a scarcer budget never visits more often
					t.Errorf("Interval(%g, %g, %g) = %v < %v for a smaller mu", r, w, mu, d, prev)
				}
				prev = d
			}
		}
	}
	// More important pages are visited at least as often.
	for _, r := range rates[1:] {
		prev := p.MaxInterval
		for _, w := range weights {
			d := p.Interval(r, w, 1000)
			if d > prev {
				t.Errorf("Interval(%g, %g, 1000) = %v > %v for a smaller weight", r, w, d, prev)
			}
			prev = d
		}
	}
	// In the rate, the optimal frequency rises, peaks and falls to zero
	// (the interval falls then rises to MaxInterval): pages changing
	// too fast to be kept fresh are left alone, which a policy
	// proportional to the change rate gets exactly wrong.
	wide := Policy{MinInterval: time.Millisecond, MaxInterval: 1e6 * time.Hour}
	wide.Default()
	mu := 1000.0
	var seq []time.Duration
	for r := 1e-8; r < 1; r *= 1.5 {
		seq = append(seq, wide.Interval(r, 1, mu))
	}
	i := 0
	for i+1 < len(seq) && seq[i+1] <= seq[i] {
		i++
	}
	for j := i; j+1 < len(seq); j++ {
		if seq[j+1] < seq[j] {
			t.Fatalf("Interval over increasing rates is not valley-shaped: %v", seq)
		}
	}
	if i == 0 || i == len(seq)-1 || seq[len(seq)-1] != wide.MaxInterval {
		t.Errorf("Interval over increasing rates: minimum at %d of %d, last %v; want an inner minimum and MaxInterval at the end", i, len(seq), seq[len(seq)-1])
	}
	if got := p.Interval(1/mu+1e-9, 1, mu); got != p.MaxInterval {
		t.Errorf("Interval(rate just above w/mu) = %v, want MaxInterval (ignored)", got)
	}
}

// mixture is the skewed collection: 1000 pages, 10% changing
// every 5 seconds, 30% hourly, 30% monthly and 30% never.
func mixture() []float64 {
	rates := make([]float64, 1000)
	for i := range rates {
		switch {
		case i < 100:
			rates[i] = 1 / 5.0
		case i < 400:
			rates[i] = 1 / 3600.0
		case i < 700:
			rates[i] = 1 / (30 * 86400.0)
		}
	}
	return rates
}

// TestOptimalBeatsUniform computes, analytically, the time-averaged
// freshness of the changing pages of mixture() under the optimal policy
// (default bounds, 1 h … 30 days) and under a uniform one with the same
// number of fetches, for budgets far below the total change rate
// (≈ 20 changes/s). The optimal one must be at least 20% fresher.
func TestOptimalBeatsUniform(t *testing.T) {
	p := defaultPolicy()
	rates := mixture()
	var total float64
	for _, r := range rates {
		total += r
	}
	for _, uniform := range []time.Duration{3 * time.Hour, 6 * time.Hour} {
		budget := float64(len(rates)) / uniform.Seconds()
		mu := p.CalibrateMu(rates, nil, budget)
		spend := p.Spend(rates, nil, mu)
		if spend > budget*1.0001 || spend < budget*0.99 {
			t.Errorf("uniform %v: CalibrateMu spends %.5f fetches/s, want %.5f", uniform, spend, budget)
		}
		var opt, uni, optAll, uniAll float64
		changing := 0
		for _, r := range rates {
			fo, fu := Freshness(r, p.Interval(r, 1, mu)), Freshness(r, uniform)
			optAll += fo
			uniAll += fu
			if r > 0 {
				opt += fo
				uni += fu
				changing++
			}
		}
		opt, uni = opt/float64(changing), uni/float64(changing)
		optAll, uniAll = optAll/float64(len(rates)), uniAll/float64(len(rates))
		t.Logf("budget %.4f fetches/s (uniform every %v; total change rate %.1f/s): changing pages optimal %.3f, uniform %.3f (×%.2f); all pages %.3f vs %.3f (×%.2f); hourly pages every %v, 5-second ones every %v",
			budget, uniform, total, opt, uni, opt/uni, optAll, uniAll, optAll/uniAll, p.Interval(1/3600.0, 1, mu), p.Interval(0.2, 1, mu))
		if opt < 1.2*uni {
			t.Errorf("uniform %v: optimal freshness %.3f < 1.2 × uniform %.3f", uniform, opt, uni)
		}
		if optAll < uniAll {
			t.Errorf("uniform %v: optimal freshness over all pages %.3f < uniform %.3f", uniform, optAll, uniAll)
		}
		// Proportional to the change rate, with the same budget: worse.
		var prop float64
		for _, r := range rates {
			if r > 0 {
				prop += Freshness(r, time.Duration(total/(budget*r)*float64(time.Second)))
			}
		}
		prop /= float64(changing)
		t.Logf("  proportional to change rate: %.3f", prop)
		if prop >= uni {
			t.Errorf("uniform %v: proportional %.3f ≥ uniform %.3f", uniform, prop, uni)
		}
	}
}

func TestCalibrateMu(t *testing.T) {
	p := defaultPolicy()
	rates := mixture()
	weights := make([]float64, len(rates))
	for i := range weights {
		weights[i] = 1 + float64(i%7)
	}
	n := float64(len(rates))
	cases := []struct {
		name   string
		budget float64
		check  func(mu float64) bool
	}{
		{"every page at MinInterval fits: 0", n / p.MinInterval.Seconds(), func(mu float64) bool { return mu == 0 }},
		{"not even MaxInterval fits: all at MaxInterval", n / p.MaxInterval.Seconds() / 2, func(mu float64) bool {
			for i, r := range rates {
				if p.Interval(r, weights[i], mu) != p.MaxInterval {
					return false
				}
			}
			return true
		}},
		{"in between: spends the budget", n / (12 * 3600.0), func(mu float64) bool {
			s := p.Spend(rates, weights, mu)
			return s <= n/(12*3600.0)*1.0001 && s >= n/(12*3600.0)*0.99
		}},
	}
	for _, c := range cases {
		mu := p.CalibrateMu(rates, weights, c.budget)
		if !c.check(mu) {
			t.Errorf("%s: CalibrateMu(budget %g) = %g (spends %g)", c.name, c.budget, mu, p.Spend(rates, weights, mu))
		}
	}
}

func BenchmarkInterval(b *testing.B) {
	p := defaultPolicy()
	rates := mixture()
	for i := 0; b.Loop(); i++ {
		p.Interval(rates[i%len(rates)]*(1+float64(i%13)), 1, 900)
	}
}

func BenchmarkCalibrateMu1000(b *testing.B) {
	p := defaultPolicy()
	rates := mixture()
	budget := float64(len(rates)) / (6 * 3600)
	for b.Loop() {
		p.CalibrateMu(rates, nil, budget)
	}
}

func TestNext(t *testing.T) {
	p := defaultPolicy()
	hourly := p.Observe(p.NewState("hourly"), Observation{At: t0})
	never := p.Observe(p.NewState("never"), Observation{At: t0})
	cases := []struct {
		name   string
		s      State
		weight float64
		mu     float64
		want   time.Time
	}{
		{"unlimited budget: MinInterval", hourly, 1, 0, t0.Add(p.MinInterval)},
		{"no weight: MaxInterval", hourly, 0, 100, t0.Add(p.MaxInterval)},
		{"too fast for the budget: MaxInterval", hourly, 1, 3600, t0.Add(p.MaxInterval)},
		{"hourly page, mu 1800: g(x) = 1/2", hourly, 1, 1800, t0.Add(time.Duration(solveMarginal(0.5) * float64(time.Hour)))},
		{"hourly page, mu 900: g(x) = 1/4, x < 1, so MinInterval", hourly, 1, 900, t0.Add(p.MinInterval)},
		{"page claimed never to change, mu 1e6: MaxInterval", never, 1, 1e6, t0.Add(p.MaxInterval)},
		{"page claimed never to change, mu 900: about √(2µ/λ), 8.7 days", never, 1, 900, t0.Add(time.Duration(solveMarginal(900*p.Rate(never)) / p.Rate(never) * float64(time.Second)))},
	}
	for _, c := range cases {
		got := p.Next(c.s, c.weight, c.mu)
		if d := got.Sub(c.want); d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("%s: Next = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSpareMu: with the budget to spare, a page expected to change at
// least SpareChanges times per MinInterval is visited every MinInterval,
// a page that rarely changes much less often, within bounds.
func TestSpareMu(t *testing.T) {
	p := Policy{MinInterval: 2 * time.Second, MaxInterval: time.Hour}
	p.Default()
	mu := p.SpareMu()
	for _, c := range []struct {
		rate   float64
		lo, hi time.Duration
	}{
		{1 / 8.0, 2 * time.Second, 2 * time.Second},          // every 8 s
		{SpareChanges / 2, 2 * time.Second, 2 * time.Second}, // exactly at the threshold
		{1 / 60.0, 2 * time.Second, 3 * time.Second},         // every minute: about √(2 s × 0.6 s)
		{1 / 86400.0, 40 * time.Second, 50 * time.Second},    // daily: √(2 s × 864 s) ≈ 42 s
		{1e-9, time.Hour, time.Hour},                         // never: the maximum
	} {
		if got := p.Interval(c.rate, 1, mu); got < c.lo || got > c.hi {
			t.Errorf("Interval(%g/s, 1, SpareMu) = %v, want within [%v, %v]", c.rate, got, c.lo, c.hi)
		}
	}
}
