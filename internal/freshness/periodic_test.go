package freshness

import (
	"testing"
	"time"
)

// TestPeriodicChangesLearned: a page that changes exactly every 8 s
// (issue 23's pages that change together), first fetched 3 s after a
// change and then revisited every 36 s, so that every revisit sees a
// change. With the recrawl bounds of that issue (2 s to 40 s), the
// estimate must learn within a few revisits a rate for which spare
// capacity revisits the page every MinInterval: from Last-Modified
// (the time of the last change) within 3 revisits a rate within a
// factor of 2 of the truth, and from the change/no-change observations
// alone (no Last-Modified) within 5.
func TestPeriodicChangesLearned(t *testing.T) {
	p := defaultPolicy()
	p.MinInterval, p.MaxInterval = 2*time.Second, 40*time.Second
	const period = 8 * time.Second
	spare := p.SpareMu()
	for _, withLM := range []bool{true, false} {
		s := p.NewState("")
		at := t0.Add(3 * time.Second)
		for visit := range 6 {
			lm := time.Time{}
			if withLM {
				lm = t0.Add(at.Sub(t0).Truncate(period))
			}
			s = p.Observe(s, Observation{At: at, Changed: visit > 0, LastModified: lm})
			rate := p.Rate(s)
			iv := p.Interval(rate, 1, spare)
			t.Logf("Last-Modified %v, after %d revisits: one change per %.1fs, interval under spare capacity %v", withLM, visit, 1/rate, iv)
			switch {
			case withLM && visit >= 3 && (rate < 1/(2*period.Seconds()) || rate > 2/period.Seconds()):
				t.Errorf("with Last-Modified, after %d revisits: one change per %.1fs, want within 2× of %v", visit, 1/rate, period)
			case (withLM && visit >= 3 || visit >= 5) && iv != p.MinInterval:
				t.Errorf("Last-Modified %v, after %d revisits: interval %v under spare capacity, want MinInterval %v", withLM, visit, iv, p.MinInterval)
			}
			at = at.Add(36 * time.Second)
		}
	}
}
