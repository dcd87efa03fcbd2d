package frontier

import (
	"encoding/binary"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/freshness"
	"github.com/godwit-crawler/godwit/internal/kv"
)

// Revisits (docs/freshness.md, docs/frontier.md "Revisits"). With
// Options.Recrawl every fetched URL gets a next visit: each fetch is an
// observation for the URL's change estimate (a 304, or the same content
// fingerprint, is "unchanged"), and the interval to the next visit is
// the freshness-optimal one for its estimated change rate and
// importance, given a budget of revisits per second (the Lagrange
// multiplier µ, calibrated now and then on a sample of the URLs). The
// next visit goes into the due-time index; promote moves due URLs into
// their hosts' queues, in revisitBand, and each host's leases share
// between its revisits and its discovery as the revisit share says
// (leaseItem). The budget is the fetch capacity (the hosts' politeness
// and the workers allow) times the revisit share while discovery has
// work, all of it when it has none.

// recrawler is the state of revisiting. Its fields are guarded by the
// frontier's mutex.
type recrawler struct {
	policy  freshness.Policy
	uniform bool
	workers int
	share   float64 // reserved for revisits while discovery has work
	// shareSet says share is an operator's (Options.RevisitShare or
	// Control): kept in the store, it outlives a restart that does not
	// set one.
	shareSet bool
	// sitemapInterval is how often sitemap files are read again.
	sitemapInterval time.Duration

	mu      float64 // the budget's Lagrange multiplier; 0: not calibrated
	budget  float64 // revisits per second at the last calibration
	planned float64 // the capacity at the last calibration (uniform)
	// replanFrom is the due-index shard the next replanning starts at.
	replanFrom uint16
	sample     sample
	// Calibration runs after the first 1, 2, 4, … observations while
	// the sample is young, then every calibrateEvery observations but at
	// most once a second, or calibratePeriod after the last if anything
	// was observed since; never twice at once. It also runs, at most
	// once a second, when the capacity has moved by replanChange or
	// discovery has started or ended since the last one (calibCapacity,
	// calibDiscovery): the budget then moved, and visits planned under
	// the old one may be far off. Observations alone would not notice
	// when every planned visit is far away: nothing is fetched until
	// then (docs/freshness.md, "Spare capacity").
	calibCapacity  float64
	calibDiscovery bool
	observed       int
	nextCalib      int
	calibrated     int       // observed at the last calibration
	lastCalib      time.Time // when
	calibrating    bool

	// fetchTime is the smoothed duration of a request, in seconds: with
	// workers it bounds the capacity.
	fetchTime float64
	// leaseShare is the smoothed share of leases that were revisits; lag
	// how late the last revisit leased was.
	leaseShare float64
	lag        time.Duration
	// Counters of this process.
	revisits, notModified, unchanged int64
}

// calibrateEvery and calibratePeriod pace the calibrations of µ once
// the sample is established (see recrawler.observed).
const (
	calibrateEvery  = 256
	calibratePeriod = 10 * time.Second
)

// calibrationDue says whether µ is to be calibrated again, with this
// capacity and discovery having work or not.
func (r *recrawler) calibrationDue(now time.Time, capacity float64, discovery bool) bool {
	if r.calibrating {
		return false
	}
	since := now.Sub(r.lastCalib)
	if r.calibrated > 0 && since >= time.Second &&
		(discovery != r.calibDiscovery || math.Abs(capacity-r.calibCapacity) > replanChange*r.calibCapacity) {
		return true // the budget moved
	}
	if r.observed == r.calibrated {
		return false
	}
	switch {
	case since >= calibratePeriod:
		return true
	case r.nextCalib < calibrateEvery:
		return r.observed >= r.nextCalib // young: after 1, 2, 4, … observations
	}
	return r.observed >= r.nextCalib && since >= time.Second
}

func newRecrawler(o Options) (*recrawler, error) {
	p := o.Freshness
	p.Default()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	share := o.RevisitShare
	set := share != 0
	switch {
	case share == 0:
		share = DefaultRevisitShare
	case share < 0:
		share = 0
	case share > 1:
		return nil, fmt.Errorf("frontier: revisit share %v is above 1", share)
	}
	si := o.SitemapInterval
	if si <= 0 {
		si = DefaultSitemapInterval
	}
	return &recrawler{policy: p, uniform: o.Uniform, workers: o.Workers, share: share, shareSet: set, sitemapInterval: si,
		sample: newSample(sampleSize), nextCalib: 1}, nil
}

// Defaults of Options.
const (
	DefaultRevisitShare    = 0.3
	DefaultSitemapInterval = time.Hour
)

// loadRecrawl restores the revisit share an operator set (unless
// Options set one) and the last calibration. f.mu must be held (or f not
// yet shared).
func (f *Frontier) loadRecrawl() error {
	v, ok, err := f.db.Get(metaKey("recrawl"))
	if err != nil || !ok || f.re == nil {
		return err
	}
	d := newDecoder(v)
	share, mu, budget := d.float64(), d.float64(), d.float64()
	if d.err != nil {
		return fmt.Errorf("%w: recrawl state", d.err)
	}
	if share >= 0 && !f.re.shareSet {
		f.re.share, f.re.shareSet = share, true
	}
	f.re.mu, f.re.budget = mu, budget
	return nil
}

// saveRecrawl writes the operator's revisit share (-1: none) and the
// calibration with b.
func (f *Frontier) saveRecrawl(b *kv.Batch) {
	share := -1.0
	if f.re.shareSet {
		share = f.re.share
	}
	v := []byte{encodingVersion}
	v = binary.LittleEndian.AppendUint64(v, math.Float64bits(share))
	v = binary.LittleEndian.AppendUint64(v, math.Float64bits(f.re.mu))
	v = binary.LittleEndian.AppendUint64(v, math.Float64bits(f.re.budget))
	b.Set(metaKey("recrawl"), v)
}

// capacity estimates the requests per second the crawl can make: the sum
// over hosts of one request per politeness cycle, bounded by the workers
// over the smoothed request time. f.mu must be held.
func (f *Frontier) capacity() float64 {
	c := f.hostCapacity
	if f.re != nil && f.re.workers > 0 && f.re.fetchTime > 0 {
		c = min(c, float64(f.re.workers)/f.re.fetchTime)
	}
	return max(c, 0)
}

// revisitBudget is the revisits per second the schedule may plan: the
// capacity, less the part of it the hosts with discovery work keep for
// discovery (1 − share of theirs). It walks the active hosts. f.mu must
// be held.
func (f *Frontier) revisitBudget() float64 {
	c := f.capacity()
	if f.counts.queued == f.counts.revisits {
		return c // no discovery anywhere
	}
	var discovery float64
	for _, h := range f.hosts {
		if h.rec.queued > h.rec.revisits {
			if h.rec.capacity > 0 {
				discovery += h.rec.capacity
			} else if f.policy.Delay > 0 {
				discovery += 1 / f.policy.Delay.Seconds() // not fetched yet
			}
		}
	}
	return max(c-(1-f.re.share)*discovery, f.re.share*c)
}

// observeCapacity updates host h's part of the capacity estimate after
// a request that took d. f.mu must be held.
func (f *Frontier) observeCapacity(h *host, d time.Duration) {
	if f.re != nil && d > 0 {
		const alpha = 0.05
		if f.re.fetchTime == 0 {
			f.re.fetchTime = d.Seconds()
		} else {
			f.re.fetchTime += alpha * (d.Seconds() - f.re.fetchTime)
		}
	}
	c := 0.0
	if !h.rec.blocked {
		c = 1 / max((f.gap(h).Gap+max(d, 0)).Seconds(), 1e-3)
	}
	f.hostCapacity += c - h.rec.capacity
	h.rec.capacity = c
}

// visit applies a completed task t to rec: the change estimate and the
// content fingerprint of a fetch, and returns the URL's next visit (zero:
// none, or the one it has stays). f.mu must be held.
func (f *Frontier) visit(rec *urlRecord, t crawl.Task, out crawl.Outcome, revisit bool) time.Time {
	r, p := f.re, f.re.policy
	switch {
	case t.Replay != nil:
		// Links followed again from a smaller depth: the schedule the URL
		// has stays, or, if promotion found it queued, starts again.
		if !rec.nextVisit.IsZero() {
			return time.Time{}
		}
		return f.now().Add(max(rec.interval, p.MinInterval))
	case !out.Requested && out.Reason == crawl.ReasonRobotsDisallowed:
		return f.now().Add(p.MaxInterval) // robots.txt may change its mind
	case !out.Requested:
		return time.Time{}
	case out.Status == 0:
		// No answer: keep the estimate, come back after the usual
		// interval (a permanent failure: the longest).
		if out.Class == crawl.ClassPermanent {
			return out.End.Add(p.MaxInterval)
		}
		return out.End.Add(max(rec.interval, p.MinInterval))
	}
	notModified := out.Status == http.StatusNotModified
	changed := !notModified && rec.content != 0 && out.Content != rec.content
	if revisit {
		r.revisits++
		if notModified {
			r.notModified++
		}
		if !changed {
			r.unchanged++
		}
	}
	var s freshness.State
	if rec.fresh != nil {
		s = *rec.fresh
	} else {
		s = p.NewState(t.Hints.ChangeFreq)
	}
	lm, err := http.ParseTime(out.Validators.LastModified)
	if err != nil && s.Visits == 0 {
		lm = t.Hints.LastMod // a sitemap's lastmod: only until the page speaks
	} else if err != nil {
		lm = time.Time{}
	}
	s = p.Observe(s, freshness.Observation{At: out.End, Changed: changed, LastModified: lm})
	rec.fresh = &s
	if changed {
		rec.changed++
		rec.lastChange = out.End
	}
	if !notModified && out.Content != 0 {
		rec.content = out.Content
	}
	if t.Sitemap > 0 {
		// A sitemap is a source of URLs, not part of the collection:
		// read again at a fixed interval, whatever its freshness.
		rec.interval = r.clamp(r.sitemapInterval)
		return out.End.Add(rec.interval)
	}
	rate, weight := p.Rate(s), f.importance(*rec)
	r.sample.put(xxhash.Sum64String(t.Key), point{rate: rate, weight: weight, state: s, changed: rec.changed > 0})
	r.observed++
	rec.interval = f.interval(rate, weight)
	return out.End.Add(r.spread(rec.interval, t.Key, s.Visits))
}

// spreadFraction is the width of the band, relative to the interval,
// over which spread moves a URL's next visit.
const spreadFraction = 0.2

// spread moves interval iv of URL key, after its visits-th visit, by up
// to ±spreadFraction/2 of it, by a hash of the two, within the policy's
// bounds (a band that would cross one is moved inside it). URLs fetched together in the first pass get the same interval
// (the same estimate from the same prior, the same µ): without it they
// would all fall due at once, a burst of revisits the hosts' politeness
// then serializes, each host's last page served late (docs/freshness.md,
// "Spreading revisits"). A hash rather than a random draw: the same URL
// and visit count give the same visit, so that replanning keeps a
// visit where it is when nothing else moved.
func (r *recrawler) spread(iv time.Duration, key string, visits uint32) time.Duration {
	h := xxhash.Sum64String(key) ^ uint64(visits)*0x9e3779b97f4a7c15
	h ^= h >> 33 // mix the visit count into the low bits too
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	u := float64(h>>11) / (1 << 53) // uniform in [0, 1)
	// The band around iv, moved inside the bounds rather than cut by
	// them: cut, half the URLs at MaxInterval would fall due together.
	lo, hi := float64(iv)*(1-spreadFraction/2), float64(iv)*(1+spreadFraction/2)
	if m := float64(r.policy.MaxInterval); hi > m {
		lo, hi = lo-(hi-m), m
	}
	if m := float64(r.policy.MinInterval); lo < m {
		lo, hi = m, hi+(m-lo)
	}
	return r.clamp(time.Duration(lo + u*(hi-lo)))
}

// interval is the revisit interval of a URL of this change rate and
// importance under the current schedule. f.mu must be held.
func (f *Frontier) interval(rate, weight float64) time.Duration {
	r := f.re
	if !r.uniform && (r.mu != 0 || r.calibrated > 0) {
		// Spare capacity goes to pages with evidence of change, not to
		// every page alike (freshness.Policy.SpareMu).
		return r.policy.Interval(rate, weight, max(r.mu, r.policy.SpareMu()))
	}
	// (Before the first calibration, µ is unknown: the uniform interval
	// stands in.)
	// Uniform: every scheduled URL alike, the whole capacity spread
	// evenly (while discovery has work, revisits fall behind).
	c := f.capacity()
	if !(c > 0) {
		return r.policy.MaxInterval
	}
	return r.uniformInterval(float64(f.population()), c)
}

// population is the number of URLs the revisit budget is shared by: those
// scheduled, and those queued, which will be once fetched (counting them
// keeps the first URLs fetched from being planned as if they were all).
// f.mu must be held.
func (f *Frontier) population() uint64 { return f.counts.due + f.counts.queued + 1 }

// uniformInterval is the uniform policy's interval for n URLs and this
// capacity, within bounds.
func (r *recrawler) uniformInterval(n, capacity float64) time.Duration {
	sec := n / max(capacity, 1e-9)
	return r.clamp(time.Duration(sec * float64(time.Second)))
}

// clamp bounds an interval by the policy's minimum and maximum.
func (r *recrawler) clamp(d time.Duration) time.Duration {
	return min(max(d, r.policy.MinInterval), r.policy.MaxInterval)
}

// scheduleRevisit puts a fetched URL in the due-time index, for a
// conditional request with its validators, archived as a revisit of its
// capture if answered 304. f.mu must be held; the caller writes rec.
func (f *Frontier) scheduleRevisit(b *kv.Batch, rec *urlRecord, t crawl.Task, at time.Time) {
	next := crawl.Task{Link: t.Link, Validators: rec.valid, Prior: rec.capture}
	next.Hops, next.Cash = 0, 0
	b.Set(dueKey(t.Host, at, t.Key), encodeTask(next))
	rec.nextVisit = at
	f.counts.due++
	if f.earliestDue.IsZero() || at.Before(f.earliestDue) {
		f.earliestDue = at
	}
}
