package freshness

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// State is what one URL's visits taught about how often it changes. It is
// plain data; the frontier stores it with the URL (AppendBinary, Decode)
// and passes it through Policy.Observe after each fetch.
//
// The page is modelled as changing by a Poisson process of unknown rate
// λ, and State holds the Gamma distribution of what λ may be:
// Gamma(Changes, Exposure), whose mean Changes/Exposure is the estimate
// (Policy.Rate) and whose relative spread is 1/√Changes. It stays the
// same size however many visits a URL has had.
type State struct {
	// Changes (the Gamma shape) counts the changes the estimate rests
	// on, the prior's PriorWeight included, capped at Policy.Memory.
	// Zero (with Exposure) means "no information": the prior of
	// Policy.DefaultRate.
	Changes float32
	// Exposure (the Gamma rate) is the observed time in seconds.
	Exposure float32
	// Visits counts the observations (saturating).
	Visits uint32
	// Last is the time of the last visit, in whole milliseconds; zero
	// before the first.
	Last time.Time
	// LastModified is the Last-Modified (or sitemap lastmod) seen at the
	// last visit, in whole seconds; zero when unknown.
	LastModified time.Time
	// LastModifiedWrong is set once the server's Last-Modified
	// contradicted the content (it moved while the content did not, or
	// the content changed while it did not move); it is then ignored.
	LastModifiedWrong bool
}

// Observation is what one visit saw.
type Observation struct {
	// At is the time of the visit.
	At time.Time
	// Changed reports that the content differs from the previous visit's
	// (payload digest); a 304 Not Modified is unchanged. Ignored on the
	// first visit.
	Changed bool
	// LastModified is the response's Last-Modified, or else the sitemap's
	// lastmod; zero when neither is known.
	LastModified time.Time
}

// changeFreqRates maps the sitemaps.org changefreq values to a prior rate
// in changes per second. "always" (a page different at every access) is
// taken as once a minute and "never" (archived) as once in ten years:
// both must stay finite and positive for the estimator.
var changeFreqRates = map[string]float64{
	"always":  1 / 60.0,
	"hourly":  1 / 3600.0,
	"daily":   1 / 86400.0,
	"weekly":  1 / (7 * 86400.0),
	"monthly": 1 / (30 * 86400.0),
	"yearly":  1 / (365 * 86400.0),
	"never":   1 / (10 * 365 * 86400.0),
}

// PriorRate returns the prior change rate, in changes per second, for a
// sitemap changefreq (lower case, as internal/sitemap returns it), or
// p.DefaultRate when it is empty or unknown.
func (p Policy) PriorRate(changeFreq string) float64 {
	if r, ok := changeFreqRates[changeFreq]; ok {
		return r
	}
	return p.DefaultRate
}

// NewState returns the state of a URL not yet visited, with the prior
// from its sitemap changefreq ("" when none): PriorWeight changes in
// PriorWeight/rate seconds, except that the prior never claims more than
// MaxInterval of observed time (it then claims rate × MaxInterval
// changes, keeping its mean). Without that cap a "never" (once in ten
// years) would weigh as ten years of watching and take hundreds of
// observed changes to forget; and rates below one change per
// MaxInterval barely change a schedule, which visits every page at
// least that often. A hint learnt later may replace the state as long
// as Visits is 0.
func (p Policy) NewState(changeFreq string) State {
	return p.prior(p.PriorRate(changeFreq))
}

func (p Policy) prior(rate float64) State {
	b := min(p.PriorWeight/rate, p.MaxInterval.Seconds())
	return State{Changes: float32(rate * b), Exposure: float32(b)}
}

// maxLastModifiedAge bounds how much unchanged time one Last-Modified
// can claim on a first visit: a page untouched for ten years is not
// ten times surer to stay so than one untouched for one.
const maxLastModifiedAge = 365 * 24 * time.Hour

// Rate returns the estimated change rate of the URL, in changes per
// second: the mean of its Gamma distribution.
func (p Policy) Rate(s State) float64 {
	if !(s.Changes > 0 && s.Exposure > 0) {
		return p.DefaultRate
	}
	return float64(s.Changes) / float64(s.Exposure)
}

// Observe returns the URL's state after the visit o. Visits must be
// passed in time order; one not after the last is ignored.
//
// A visit after an interval t multiplies the distribution of λ by the
// likelihood of what it saw, and the result is brought back to a Gamma
// distribution with the same mean and variance (assumed-density
// filtering):
//
//   - unchanged, likelihood e^{−λt}: exactly Gamma(α, β+t);
//   - changed, likelihood 1 − e^{−λt} (at least one change): the
//     mixture [Gamma(α,β) − r·Gamma(α,β+t)]/(1−r), r = (β/(β+t))^α,
//     whose mean and variance are closed-form, matched by a Gamma;
//   - changed, with a consistent Last-Modified L after the previous
//     visit, likelihood λe^{−λ(now−L)} (a change at L, none since):
//     exactly Gamma(α+1, β+now−L).
//
// The first visit only establishes the baseline, except that a known
// Last-Modified L is the third case (with now − L capped at a year).
// Cho and Garcia-Molina's maximum-likelihood equation for irregular
// access, Σ_changed t/(e^{λt}−1) = Σ_unchanged t, is what this
// approximates with O(1) state; the prior keeps the estimate finite and
// positive when every visit, or none, saw a change. When α exceeds
// Policy.Memory, α and β are scaled down together: the mean stays, old
// observations fade.
func (p Policy) Observe(s State, o Observation) State {
	at := o.At.Truncate(time.Millisecond)
	lm := o.LastModified.Truncate(time.Second)
	if lm.After(at) {
		lm = time.Time{} // a date in the future says nothing
	}
	if !(s.Changes > 0 && s.Exposure > 0) {
		prior := p.prior(p.DefaultRate)
		s.Changes, s.Exposure = prior.Changes, prior.Exposure
	}
	a, b := float64(s.Changes), float64(s.Exposure)
	switch {
	case s.Last.IsZero():
		if !lm.IsZero() && !s.LastModifiedWrong {
			a, b = a+1, b+min(at.Sub(lm), maxLastModifiedAge).Seconds()
		}
		s.Visits = 0
	case !at.After(s.Last):
		return s
	default:
		t := at.Sub(s.Last).Seconds()
		switch {
		case !o.Changed:
			if !lm.IsZero() && !s.LastModified.IsZero() && !lm.Equal(s.LastModified) {
				s.LastModifiedWrong = true
			}
			b += t
		case !s.LastModifiedWrong && !lm.IsZero() && lm.After(s.Last):
			a, b = a+1, b+at.Sub(lm).Seconds()
		default:
			if !lm.IsZero() && !s.LastModified.IsZero() && lm.Equal(s.LastModified) {
				s.LastModifiedWrong = true
			}
			a, b = changed(a, b, t)
		}
	}
	if a > p.Memory {
		b *= p.Memory / a
		a = p.Memory
	}
	s.Changes, s.Exposure = float32(a), float32(b)
	if s.Visits < math.MaxUint32 {
		s.Visits++
	}
	s.Last, s.LastModified = at, lm
	return s
}

// changed returns the Gamma(α', β') with the mean and variance of
// Gamma(α, β) conditioned on at least one change in t seconds.
func changed(a, b, t float64) (float64, float64) {
	q := b / (b + t)
	lr := a * math.Log(q)  // log r
	omr := -math.Expm1(lr) // 1 − r
	if !(omr > 0) {
		return a + 1, b // t vanishing against β: as if the change were seen
	}
	r := 1 - omr
	// E[λ] and E[λ²] of the mixture, each as (moment of Gamma(α,β)) × factor.
	m := a / b * (1 - r*q) / omr
	m2 := a * (a + 1) / (b * b) * (1 - r*q*q) / omr
	v := m2 - m*m
	if !(v > 0) || !(m > 0) {
		return a + 1, b
	}
	return m * m / v, m / v
}

// stateVersion is the first byte of an encoded State.
const stateVersion = 1

// Errors of Decode.
var (
	ErrTruncated = errors.New("freshness: truncated state")
	ErrVersion   = errors.New("freshness: unknown state version")
)

// AppendBinary appends the state's encoding to b (13 to 26 bytes):
//
//	version   1 byte (1)
//	flags     1 byte (bit 0: LastModifiedWrong)
//	Changes   float32, little endian
//	Exposure  float32, little endian
//	Visits    uvarint
//	Last      varint, Unix milliseconds; 0 when zero
//	LastModified varint, Unix seconds; 0 when zero
//
// It never fails; the error is there to implement encoding.BinaryAppender.
func (s State) AppendBinary(b []byte) ([]byte, error) {
	var flags byte
	if s.LastModifiedWrong {
		flags |= 1
	}
	b = append(b, stateVersion, flags)
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s.Changes))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s.Exposure))
	b = binary.AppendUvarint(b, uint64(s.Visits))
	var last, lm int64
	if !s.Last.IsZero() {
		last = s.Last.UnixMilli()
	}
	if !s.LastModified.IsZero() {
		lm = s.LastModified.Unix()
	}
	b = binary.AppendVarint(b, last)
	return binary.AppendVarint(b, lm), nil
}

// Decode reads a state written by AppendBinary from the front of b and
// returns it with the bytes that follow it.
func Decode(b []byte) (State, []byte, error) {
	var s State
	if len(b) < 10 {
		return State{}, nil, ErrTruncated
	}
	if b[0] != stateVersion {
		return State{}, nil, fmt.Errorf("%w %d", ErrVersion, b[0])
	}
	s.LastModifiedWrong = b[1]&1 != 0
	s.Changes = math.Float32frombits(binary.LittleEndian.Uint32(b[2:]))
	s.Exposure = math.Float32frombits(binary.LittleEndian.Uint32(b[6:]))
	b = b[10:]
	visits, n := binary.Uvarint(b)
	if n <= 0 || visits > math.MaxUint32 {
		return State{}, nil, ErrTruncated
	}
	s.Visits = uint32(visits)
	b = b[n:]
	last, n := binary.Varint(b)
	if n <= 0 {
		return State{}, nil, ErrTruncated
	}
	b = b[n:]
	lm, n := binary.Varint(b)
	if n <= 0 {
		return State{}, nil, ErrTruncated
	}
	b = b[n:]
	if last != 0 {
		s.Last = time.UnixMilli(last).UTC()
	}
	if lm != 0 {
		s.LastModified = time.Unix(lm, 0).UTC()
	}
	return s, b, nil
}

// Current returns the probability that the page of state s has not
// changed since its last visit, at now: under its Gamma(α, β) estimate of
// the rate, E[e^{−λΔ}] = (β/(β+Δ))^α with Δ = now − s.Last, which is
// e^{−Δ·Rate(s)} once the estimate is sure and less sure of freshness
// while it is not (Jensen). A URL never visited is held by nobody: 0.
func Current(s State, now time.Time) float64 {
	if s.Last.IsZero() {
		return 0
	}
	d := now.Sub(s.Last).Seconds()
	if d <= 0 {
		return 1
	}
	a, b := float64(s.Changes), float64(s.Exposure)
	if !(a > 0 && b > 0) {
		return 1
	}
	return math.Exp(-a * math.Log1p(d/b))
}
