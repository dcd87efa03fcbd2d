package frontier

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/freshness"
)

// calibrate recomputes µ, the budget's Lagrange multiplier, on the sample
// of scheduled URLs when it is due. The solve runs without the lock.
func (f *Frontier) calibrate() {
	f.mu.Lock()
	r := f.re
	now := f.now()
	if r == nil || f.closed || !r.calibrationDue(now, f.capacity(), f.discovering()) {
		f.mu.Unlock()
		return
	}
	scheduled := float64(f.population())
	if r.mu != 0 && float64(len(r.sample.byHash)) < min(sampleSize, scheduled/4) {
		// A µ from an earlier run (or calibration) stands until the sample,
		// empty after a restart, says something about the population: a
		// µ from a handful of URLs would reshuffle every schedule.
		f.mu.Unlock()
		return
	}
	r.calibrating, r.calibrated, r.lastCalib = true, r.observed, now
	rates, weights := r.sample.points()
	budget, capacity := f.revisitBudget(), f.capacity()
	r.calibCapacity, r.calibDiscovery = capacity, f.discovering()
	f.mu.Unlock()

	scaled := budget
	if scheduled > float64(len(rates)) {
		scaled = budget * float64(len(rates)) / scheduled
	}
	mu := r.policy.CalibrateMu(rates, weights, scaled)

	f.mu.Lock()
	defer f.mu.Unlock()
	r.calibrating = false
	// Plans made under another budget are stale: replan. (Not when only
	// µ moved: with the budget unchanged that is the sample's noise.)
	moved := r.budget != 0 && math.Abs(budget-r.budget) > replanChange*r.budget ||
		r.uniform && r.planned != 0 && math.Abs(capacity-r.planned) > replanChange*r.planned
	r.mu, r.budget, r.planned = mu, budget, capacity
	if r.nextCalib < calibrateEvery {
		r.nextCalib *= 2
	} else {
		r.nextCalib = r.calibrated + calibrateEvery
	}
	if f.closed {
		return
	}
	b := f.db.NewBatch()
	f.saveRecrawl(b)
	if err := b.Commit(false); err != nil {
		f.log.Warn("cannot save the revisit calibration", "err", err)
	}
	if moved {
		if err := f.replan(now); err != nil {
			f.log.Warn("cannot replan revisits", "err", err)
		}
	}
}

// replanChange is the relative change of the revisit budget (of the
// capacity, for the uniform policy) that makes the planned visits stale
// enough to replan.
const replanChange = 0.2

// maxReplan bounds the due entries one replanning revisits: a large crawl
// replans a part at each calibration, from where the last one stopped.
const maxReplan = 10_000

// replan moves planned visits to where the current µ puts them: a visit
// planned while the budget was smaller (during the first pass, say)
// comes sooner once the budget grows, and later when it shrinks. Each
// entry keeps its last visit; only its interval changes. f.mu must be
// held.
func (f *Frontier) replan(now time.Time) error {
	r := f.re
	b := f.db.NewBatch()
	var earliest time.Time
	seen, moved := 0, 0
	for i := uint16(0); i < Shards && seen < maxReplan; i++ {
		shard := (r.replanFrom + i) % Shards
		p := dueShard(shard)
		it, err := f.db.Scan(p, prefixEnd(p))
		if err != nil {
			b.Discard()
			return err
		}
		for ; it.Valid() && seen < maxReplan; it.Next() {
			seen++
			due, hostName, key, ok := parseDueKey(it.Key())
			if !ok {
				continue // promote reports it
			}
			if t, err := decodeTask(it.Value()); err != nil || t.Sitemap > 0 {
				continue // sitemaps keep their fixed interval
			}
			rec, err := f.urlRecord(hostName, key)
			if err != nil || rec.state != urlDone || rec.fresh == nil || rec.fresh.Last.IsZero() || rec.nextVisit.IsZero() {
				continue // not a page's planned visit (a failure, …): left as it is
			}
			iv := f.interval(r.policy.Rate(*rec.fresh), f.importance(rec))
			next := laterOf(rec.fresh.Last.Add(r.spread(iv, key, rec.fresh.Visits)), now)
			if d := next.Sub(due); d > -time.Second && d < time.Second {
				continue
			}
			b.Delete(append([]byte(nil), it.Key()...))
			b.Set(dueKey(hostName, next, key), append([]byte(nil), it.Value()...))
			rec.nextVisit, rec.interval = next, iv
			f.storeURL(b, urlKey(hostName, key), rec)
			if earliest.IsZero() || next.Before(earliest) {
				earliest = next
			}
			moved++
		}
		if err := it.Close(); err != nil {
			b.Discard()
			return err
		}
		r.replanFrom = shard
	}
	if moved == 0 {
		b.Discard()
		return nil
	}
	if f.earliestDue.IsZero() || earliest.Before(f.earliestDue) {
		f.earliestDue = earliest
	}
	if err := b.Commit(false); err != nil {
		return err
	}
	f.broadcast()
	return nil
}

// setRevisitShare applies Control(SetRevisitShare). f.mu must be held.
func (f *Frontier) setRevisitShare(share float64) error {
	if f.re == nil {
		return errors.New("frontier: revisit share: the crawl does not recrawl (--continuous)")
	}
	if !(share >= 0 && share <= 1) {
		return fmt.Errorf("frontier: revisit share %v is outside [0, 1]", share)
	}
	f.re.share, f.re.shareSet = share, true
	b := f.db.NewBatch()
	f.saveRecrawl(b)
	return b.Commit(true)
}

// discovering says whether discovery has work: URLs queued that are not
// revisits. f.mu must be held.
func (f *Frontier) discovering() bool { return f.counts.queued > f.counts.revisits }

// estimateFreshness estimates the share of the collection's pages whose
// copy is current now: over the sample, the probability that a page has
// not changed since its last visit, under its estimate (freshness.Current),
// times the share of the URLs known that have been fetched at all (a
// page queued but never fetched is held by nobody: stale). With nothing
// fetched yet it is 0, not 1: no evidence is no freshness. Unweighted,
// so that it says what share of the pages a reader of the archive finds
// current; the schedule maximizes the importance-weighted mean. f.mu must
// be held.
func (f *Frontier) estimateFreshness(now time.Time) float64 {
	s := f.re.sample.byHash
	if len(s) == 0 {
		return 0
	}
	var fresh float64
	for _, p := range s {
		fresh += freshness.Current(p.state, now)
	}
	held := float64(f.counts.due + f.counts.revisits)
	unfetched := float64(f.counts.queued) - float64(f.counts.revisits)
	if held+unfetched == 0 {
		return 0
	}
	return fresh / float64(len(s)) * held / (held + unfetched)
}

// estimateChanging is estimateFreshness over the sampled URLs seen to
// change at least once, and how many those are: the pages a crawl of a
// mostly static collection must chase (issue 23). f.mu must be held.
func (f *Frontier) estimateChanging(now time.Time) (float64, int) {
	var fresh float64
	n := 0
	for _, p := range f.re.sample.byHash {
		if p.changed {
			fresh += freshness.Current(p.state, now)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return fresh / float64(n), n
}

// recrawlStats describes revisiting. f.mu must be held.
func (f *Frontier) recrawlStats(now time.Time) crawl.RecrawlStats {
	r := f.re
	if r == nil {
		return crawl.RecrawlStats{}
	}
	policy := "optimal"
	if r.uniform {
		policy = "uniform"
	}
	s := crawl.RecrawlStats{
		Enabled:      true,
		Policy:       policy,
		Share:        r.share,
		RevisitShare: r.leaseShare,
		Scheduled:    int(f.counts.due),
		DueBacklog:   int(f.counts.revisits),
		Capacity:     f.capacity(),
		Budget:       f.revisitBudget(),
		Mu:           r.mu,
		Freshness:    f.estimateFreshness(now),
		Revisits:     r.revisits,
		NotModified:  r.notModified,
		Unchanged:    r.unchanged,
	}
	s.FreshnessChanging, s.ChangingPages = f.estimateChanging(now)
	if f.counts.revisits > 0 {
		s.Lag = r.lag
	}
	if !f.earliestDue.IsZero() && f.earliestDue.Before(now) {
		// Due, not yet promoted (promotion moves at most maxPromote).
		s.Lag = max(s.Lag, now.Sub(f.earliestDue))
	}
	return s
}

// sample is a uniform sample of the scheduled URLs' change rates and
// importance, for calibrating µ: the URLs whose key hash is below a
// threshold, halved whenever the sample outgrows twice its size (so it
// holds between size and 2×size URLs once the crawl is large). A URL
// observed again replaces its point.
type sample struct {
	size      int
	threshold uint64
	byHash    map[uint64]point
}

// point is what the sample keeps of a URL: its rate and importance at its
// last visit, for µ, and its state, for the estimate of freshness.
type point struct {
	rate, weight float64
	state        freshness.State
	changed      bool // the URL was seen to change at least once
}

// sampleSize is the smallest sample µ is calibrated on once the crawl
// has that many scheduled URLs: a calibration costs about 64 interval
// solves per point (~25 ms for 4096 points).
const sampleSize = 2048

func newSample(size int) sample {
	return sample{size: size, threshold: math.MaxUint64, byHash: make(map[uint64]point)}
}

func (s *sample) put(hash uint64, p point) {
	if hash > s.threshold {
		return
	}
	s.byHash[hash] = p
	if len(s.byHash) <= 2*s.size {
		return
	}
	s.threshold /= 2
	for h := range s.byHash {
		if h > s.threshold {
			delete(s.byHash, h)
		}
	}
}

func (s *sample) points() (rates, weights []float64) {
	rates = make([]float64, 0, len(s.byHash))
	weights = make([]float64, 0, len(s.byHash))
	for _, p := range s.byHash {
		rates = append(rates, p.rate)
		weights = append(weights, p.weight)
	}
	return rates, weights
}
