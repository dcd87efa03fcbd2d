package freshness

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func defaultPolicy() Policy {
	var p Policy
	p.Default()
	return p
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// page simulates a page whose content changes as a Poisson process.
type page struct {
	rate       float64 // changes per second
	rng        *rand.Rand
	next, last time.Time // next change; last change (zero before any)
}

func newPage(rate float64, rng *rand.Rand) *page {
	p := &page{rate: rate, rng: rng}
	p.next = t0.Add(p.gap())
	return p
}

func (p *page) gap() time.Duration {
	return time.Duration(p.rng.ExpFloat64() / p.rate * float64(time.Second))
}

// advance moves the page to time at; it reports whether it changed since
// the previous call.
func (p *page) advance(at time.Time) bool {
	changed := false
	for !p.next.After(at) {
		changed = true
		p.last = p.next
		p.next = p.next.Add(p.gap())
	}
	return changed
}

// logUniform returns a duration log-uniformly distributed in [lo, hi].
func logUniform(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	l, h := math.Log(float64(lo)), math.Log(float64(hi))
	return time.Duration(math.Exp(l + rng.Float64()*(h-l)))
}

// TestRateConverges: for Poisson change processes of known rate, visited
// at random irregular intervals (log-uniform over a wide range, so that
// some intervals see many changes and some none), starting from a prior
// that is wrong, the estimate after enough visits to see about 300
// changes (1000 or 4000 visits) is within 20% of the true rate for at
// least 18 of 20 seeds, and its mean relative error over the seeds is
// within 5% (no bias).
func TestRateConverges(t *testing.T) {
	const (
		seeds     = 20
		tolerance = 0.20
		within    = 18
		maxBias   = 0.05
	)
	cases := []struct {
		name         string
		every        time.Duration // true mean time between changes
		lo, hi       time.Duration // visit intervals
		visits       int
		changeFreq   string // the sitemap's (wrong) claim
		lastModified bool   // the server sends an honest Last-Modified
	}{
		{"hourly/visits 5m-4h", time.Hour, 5 * time.Minute, 4 * time.Hour, 1000, "daily", false},
		{"hourly/visits 5m-4h/Last-Modified", time.Hour, 5 * time.Minute, 4 * time.Hour, 1000, "daily", true},
		{"daily/visits 1h-7d (mostly changed)", 24 * time.Hour, time.Hour, 7 * 24 * time.Hour, 1000, "", false},
		{"weekly/visits 1h-1d (mostly unchanged)", 7 * 24 * time.Hour, time.Hour, 24 * time.Hour, 4000, "hourly", false},
		{"10s/visits 1s-60s", 10 * time.Second, time.Second, time.Minute, 1000, "always", false},
		{"monthly/visits 1d-60d", 30 * 24 * time.Hour, 24 * time.Hour, 60 * 24 * time.Hour, 1000, "never", false},
		{"monthly/visits 1d-60d/Last-Modified", 30 * 24 * time.Hour, 24 * time.Hour, 60 * 24 * time.Hour, 1000, "never", true},
	}
	p := defaultPolicy()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			truth := 1 / c.every.Seconds()
			var worst, sum, sq float64
			ok := 0
			for seed := range uint64(seeds) {
				rng := rand.New(rand.NewPCG(seed, 9))
				pg := newPage(truth, rng)
				s := p.NewState(c.changeFreq)
				at := t0
				for range c.visits {
					changed := pg.advance(at)
					o := Observation{At: at, Changed: changed}
					if c.lastModified && !pg.last.IsZero() {
						o.LastModified = pg.last
					}
					s = p.Observe(s, o)
					at = at.Add(logUniform(rng, c.lo, c.hi))
				}
				e := p.Rate(s)/truth - 1
				worst, sum, sq = max(worst, math.Abs(e)), sum+e, sq+e*e
				if math.Abs(e) <= tolerance {
					ok++
				} else {
					t.Logf("seed %d: rate after %d visits = 1/%v, want 1/%v ±%.0f%%", seed, c.visits, every(p.Rate(s)), c.every, tolerance*100)
				}
			}
			bias := sum / seeds
			t.Logf("%d visits: %d/%d seeds within %.0f%%; mean error %+.1f%%, rms %.1f%%, worst %.1f%%",
				c.visits, ok, seeds, tolerance*100, bias*100, math.Sqrt(sq/seeds)*100, worst*100)
			if ok < within || math.Abs(bias) > maxBias {
				t.Errorf("%d/%d seeds within %.0f%% (want ≥ %d), mean error %+.1f%% (want within ±%.0f%%)",
					ok, seeds, tolerance*100, within, bias*100, maxBias*100)
			}
		})
	}
}

func every(rate float64) time.Duration {
	return time.Duration(float64(time.Second) / rate).Round(time.Second)
}

func TestObserveEdgeCases(t *testing.T) {
	p := defaultPolicy()
	daily := 1 / 86400.0
	const eps = 1e-6 // float32 state
	run := func(cf string, n int, gap time.Duration, changed bool, lm func(time.Time) time.Time) State {
		s := p.NewState(cf)
		at := t0
		for range n {
			o := Observation{At: at, Changed: changed}
			if lm != nil {
				o.LastModified = lm(at)
			}
			s = p.Observe(s, o)
			at = at.Add(gap)
		}
		return s
	}
	cases := []struct {
		name   string
		s      State
		lo, hi float64 // bounds on the rate
	}{
		{"no visit: the prior", p.NewState("daily"), daily * (1 - eps), daily * (1 + eps)},
		{"zero state: default rate", State{}, p.DefaultRate, p.DefaultRate},
		{"no hint: default rate", p.NewState(""), p.DefaultRate * (1 - eps), p.DefaultRate * (1 + eps)},
		{"unknown changefreq: default rate", p.NewState("sometimes"), p.DefaultRate * (1 - eps), p.DefaultRate * (1 + eps)},
		{"single visit: the prior", run("daily", 1, 0, true, nil), daily * (1 - eps), daily * (1 + eps)},
		{"single visit, modified 10 days ago: (1+1)/(1 day + 10 days)",
			run("daily", 1, 0, false, func(at time.Time) time.Time { return at.Add(-10 * 24 * time.Hour) }),
			2 / (11 * 86400.0) * 0.999, 2 / (11 * 86400.0) * 1.001},
		{"never changed, 100 daily visits: about 1/(101 days)", run("daily", 101, 24*time.Hour, false, nil),
			1 / (102 * 86400.0), 1 / (100 * 86400.0)},
		{"always changed, 50 hourly visits: finite, well above the weekly prior", run("weekly", 51, time.Hour, true, nil),
			10 / (7 * 86400.0), 1 / 60.0},
		{"always changed, 5000 hourly visits: finite", run("weekly", 5001, time.Hour, true, nil),
			1 / 3600.0, math.MaxFloat64},
	}
	for _, c := range cases {
		got := p.Rate(c.s)
		if !(got >= c.lo && got <= c.hi) || math.IsInf(got, 0) {
			t.Errorf("%s: rate = %g (1/%v), want in [%g, %g]", c.name, got, every(got), c.lo, c.hi)
		}
	}
}

func TestObserveOrderAndLastModified(t *testing.T) {
	p := defaultPolicy()
	s := p.Observe(p.NewState(""), Observation{At: t0})
	s1 := p.Observe(s, Observation{At: t0.Add(time.Hour), Changed: true})
	if got := p.Observe(s1, Observation{At: t0.Add(30 * time.Minute), Changed: true}); got != s1 {
		t.Errorf("Observe(visit before the last) = %+v, want state unchanged %+v", got, s1)
	}
	if s1.Visits != 2 || !s1.Last.Equal(t0.Add(time.Hour)) {
		t.Errorf("after two visits: Visits %d Last %v, want 2 %v", s1.Visits, s1.Last, t0.Add(time.Hour))
	}

	// A dynamic page sending Last-Modified: now, with unchanged content.
	s = p.NewState("")
	for i := range 3 {
		at := t0.Add(time.Duration(i) * time.Hour)
		s = p.Observe(s, Observation{At: at, LastModified: at})
	}
	if !s.LastModifiedWrong {
		t.Error("Last-Modified moving on unchanged content: LastModifiedWrong not set")
	}
	// A server that never moves Last-Modified although the content changes.
	s = p.NewState("")
	for i := range 3 {
		s = p.Observe(s, Observation{At: t0.Add(time.Duration(i) * time.Hour), Changed: true, LastModified: t0.Add(-time.Hour)})
	}
	if !s.LastModifiedWrong {
		t.Error("Last-Modified stuck on changing content: LastModifiedWrong not set")
	}
	// An honest one.
	s = p.NewState("")
	lm := t0.Add(-time.Hour)
	for i := range 5 {
		at := t0.Add(time.Duration(i) * time.Hour)
		changed := i%2 == 1
		if changed {
			lm = at.Add(-10 * time.Minute)
		}
		s = p.Observe(s, Observation{At: at, Changed: changed, LastModified: lm})
	}
	if s.LastModifiedWrong {
		t.Error("consistent Last-Modified: LastModifiedWrong set")
	}
}

func TestStateEncoding(t *testing.T) {
	p := defaultPolicy()
	cases := []State{
		{},
		p.NewState("hourly"),
		p.Observe(p.NewState("daily"), Observation{At: t0.Add(123456789 * time.Nanosecond), LastModified: t0.Add(-time.Hour)}),
		{Changes: 99.5, Exposure: 3.2e7, Visits: math.MaxUint32, Last: t0.Add(-40 * 365 * 24 * time.Hour), LastModified: t0, LastModifiedWrong: true},
	}
	for _, s := range cases {
		b, err := s.AppendBinary([]byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		got, rest, err := Decode(append(b[1:], "tail"...))
		if err != nil || string(rest) != "tail" {
			t.Errorf("Decode(AppendBinary(%+v)) = rest %q, err %v; want tail, nil", s, rest, err)
			continue
		}
		if !got.Last.Equal(s.Last) || !got.LastModified.Equal(s.LastModified) {
			t.Errorf("Decode(AppendBinary(%+v)) times = %v %v", s, got.Last, got.LastModified)
		}
		got.Last, got.LastModified = s.Last, s.LastModified
		if got != s {
			t.Errorf("Decode(AppendBinary(%+v)) = %+v", s, got)
		}
		t.Logf("%d bytes", len(b)-1)
	}
	b, _ := cases[2].AppendBinary(nil)
	for i := range len(b) {
		if _, _, err := Decode(b[:i]); !errors.Is(err, ErrTruncated) {
			t.Errorf("Decode(%d of %d bytes) error = %v, want ErrTruncated", i, len(b), err)
		}
	}
	b[0] = 9
	if _, _, err := Decode(b); !errors.Is(err, ErrVersion) {
		t.Errorf("Decode(version 9) error = %v, want ErrVersion", err)
	}
}

func FuzzDecode(f *testing.F) {
	p := defaultPolicy()
	b, _ := p.Observe(p.NewState("daily"), Observation{At: t0, LastModified: t0.Add(-time.Hour)}).AppendBinary(nil)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, rest, err := Decode(b)
		if err != nil {
			return
		}
		again, _ := s.AppendBinary(nil)
		if !bytes.Equal(again, b[:len(b)-len(rest)]) {
			// Non-canonical varints decode too; the state must survive a second trip.
			s2, _, err := Decode(again)
			if err != nil || !s2.Last.Equal(s.Last) || s2.Visits != s.Visits {
				t.Errorf("second trip: %+v, %v; want %+v", s2, err, s)
			}
		}
	})
}

func BenchmarkObserve(b *testing.B) {
	p := defaultPolicy()
	s := p.Observe(p.NewState("daily"), Observation{At: t0})
	at := t0
	for i := 0; b.Loop(); i++ {
		at = at.Add(time.Hour)
		s = p.Observe(s, Observation{At: at, Changed: i%3 == 0})
	}
}

func BenchmarkStateEncoding(b *testing.B) {
	p := defaultPolicy()
	s := p.Observe(p.NewState("daily"), Observation{At: t0, LastModified: t0.Add(-time.Hour)})
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf, _ = s.AppendBinary(buf[:0])
		if _, _, err := Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCurrent: the probability that a page is unchanged since its last
// visit is 0 for a page never visited, 1 at the visit, e^{−λΔ} once the
// estimate is sure, and below it while unsure (Jensen).
func TestCurrent(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	if got := Current(State{}, t0); got != 0 {
		t.Errorf("Current(never visited) = %v, want 0", got)
	}
	sure := State{Changes: 1000, Exposure: 10_000, Last: t0} // λ = 0.1/s, sure
	if got := Current(sure, t0); got != 1 {
		t.Errorf("Current(at the visit) = %v, want 1", got)
	}
	at := t0.Add(10 * time.Second)
	if got, want := Current(sure, at), math.Exp(-1); math.Abs(got-want) > 0.001 {
		t.Errorf("Current(λ = 0.1/s, sure, 10 s later) = %v, want e^-1 = %v", got, want)
	}
	unsure := State{Changes: 1, Exposure: 10, Last: t0} // the same mean, one change seen
	if got := Current(unsure, at); got <= math.Exp(-1) || got != 0.5 {
		t.Errorf("Current(λ = 0.1/s from one change, 10 s later) = %v, want (10/20)^1 = 0.5", got)
	}
}
