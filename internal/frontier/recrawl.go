package frontier

import (
	"encoding/binary"
	"errors"
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

// maxPromote bounds the revisits one promotion queues, so a lease is
// never held up for long; the rest follow on the next calls.
const maxPromote = 10_000

// promote moves the revisits due by now from the due-time index to their
// hosts' queues, in revisitBand. It scans only when the earliest entry
// may be due, one shard at a time, each shard's due entries being a
// prefix of it. f.mu must be held.
func (f *Frontier) promote(now time.Time) error {
	if f.re == nil || f.earliestDue.IsZero() || now.Before(f.earliestDue) {
		return nil
	}
	b := f.db.NewBatch()
	dirty := map[*host]struct{}{}
	var earliest time.Time
	moved := 0
	for shard := uint16(0); shard < Shards; shard++ {
		p := dueShard(shard)
		it, err := f.db.Scan(p, prefixEnd(p))
		if err != nil {
			b.Discard()
			return err
		}
		for ; it.Valid(); it.Next() {
			due, hostName, key, ok := parseDueKey(it.Key())
			if !ok {
				it.Close()
				b.Discard()
				return fmt.Errorf("%w: due key %x", errCorrupt, it.Key())
			}
			if due.After(now) || moved >= maxPromote {
				if earliest.IsZero() || due.Before(earliest) {
					earliest = due
				}
				break
			}
			t, err := decodeTask(it.Value())
			if err != nil {
				it.Close()
				b.Discard()
				return err
			}
			h, err := f.activeHost(hostName)
			if err != nil {
				it.Close()
				b.Discard()
				return err
			}
			uk := urlKey(hostName, key)
			rec, err := f.urlRecord(hostName, key)
			if err != nil {
				it.Close()
				b.Discard()
				return err
			}
			b.Delete(append([]byte(nil), it.Key()...))
			f.counts.due--
			if rec.state == urlQueued {
				// Queued meanwhile (a replay, found again by a shorter
				// path): its completion schedules it again.
				rec.nextVisit = time.Time{}
				f.storeURL(b, uk, rec)
				continue
			}
			if rec.state == 0 {
				rec = urlRecord{depth: t.Depth} // a lost record: start again
			}
			f.enqueue(b, h, uk, t, rec, revisitBand) // rec.nextVisit: when it fell due
			dirty[h] = struct{}{}
			moved++
		}
		if err := it.Close(); err != nil {
			b.Discard()
			return err
		}
	}
	f.earliestDue = earliest
	if b.Empty() {
		b.Discard()
		return nil
	}
	return f.commit(b, dirty)
}

// pick chooses what host h is leased for: its head, or, when the head is
// a revisit and the host also has discovery waiting, whichever the
// revisit share asks for. credit, a deficit counter, keeps the two in
// that proportion: a discovery lease while revisits wait earns the
// share, a revisit lease while discovery waits costs the rest. f.mu must
// be held.
func (f *Frontier) pick(h *host) (*item, error) {
	it := h.head
	if f.re == nil || bandOf(it.key) != revisitBand || h.rec.queued <= h.rec.revisits {
		if f.re != nil && h.rec.revisits > 0 {
			h.credit = min(h.credit+f.re.share, 1)
		}
		return it, nil
	}
	if h.credit >= 0 {
		h.credit = max(h.credit-(1-f.re.share), -1)
		return it, nil
	}
	d, err := f.discoveryHead(h)
	if err != nil || d == nil {
		return it, err
	}
	h.credit = min(h.credit+f.re.share, 1)
	return d, nil
}

// discoveryHead reads the first entry of h's discovery bands. f.mu must
// be held.
func (f *Frontier) discoveryHead(h *host) (*item, error) {
	p := queuePrefix(h.name)
	from := h.discFrom
	if from == nil {
		from = append(p, firstBand)
	}
	it, err := f.db.Scan(from, prefixEnd(p))
	if err != nil {
		return nil, err
	}
	var d *item
	if it.Valid() {
		t, err := decodeTask(it.Value())
		if err != nil {
			it.Close()
			return nil, err
		}
		d = &item{key: append([]byte(nil), it.Key()...), task: t}
		h.discFrom = d.key
	}
	return d, it.Close()
}

// leasedURL returns the record of the URL item leases, and counts the
// lease in the revisit share and lag. f.mu must be held.
func (f *Frontier) leasedURL(h *host, it *item, now time.Time) (urlRecord, error) {
	rec, err := f.urlView(h.name, it.task.Key) // the lease hands on its unsaved cash too
	if err != nil || f.re == nil {
		return rec, err
	}
	revisit := bandOf(it.key) == revisitBand
	x := 0.0
	if revisit {
		x = 1
		if !rec.nextVisit.IsZero() {
			f.re.lag = max(now.Sub(rec.nextVisit), 0)
		}
	}
	const alpha = 1.0 / 200
	f.re.leaseShare += alpha * (x - f.re.leaseShare)
	return rec, nil
}

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
