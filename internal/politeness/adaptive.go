package politeness

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Reason says which rule set a host's current wait. It is what an operator
// sees next to the effective delay: "why is this host slow?".
type Reason string

const (
	ReasonConfigured Reason = "configured"  // Policy.Delay
	ReasonCrawlDelay Reason = "crawl-delay" // the site's robots.txt Crawl-delay
	ReasonLatency    Reason = "latency"     // LatencyFactor × the server's response time
	ReasonRetryAfter Reason = "retry-after" // the server's Retry-After on a 429 or 503
	ReasonBackoff    Reason = "backoff"     // exponential backoff after transient failures
	ReasonBreaker    Reason = "breaker"     // the circuit breaker is open
	ReasonRobots     Reason = "robots"      // robots.txt unreachable: retried with backoff
	ReasonOverride   Reason = "override"    // an operator's delay for the host
	ReasonBlocked    Reason = "blocked"     // an operator blocked the host
	ReasonIP         Reason = "ip"          // the host's IP address is at its budget (frontier IP groups)
)

// Breaker is the state of a host's circuit breaker.
type Breaker uint8

const (
	// BreakerClosed: requests flow normally.
	BreakerClosed Breaker = iota
	// BreakerOpen: too many consecutive failures; the host is parked until
	// HostState.Until, when one probe request is allowed.
	BreakerOpen
	// BreakerHalfOpen: a probe is in flight. Its success closes the
	// breaker; its failure opens it again for twice as long.
	BreakerHalfOpen
)

var breakerNames = [...]string{"closed", "open", "half-open"}

func (b Breaker) String() string {
	if int(b) < len(breakerNames) {
		return breakerNames[b]
	}
	return "invalid"
}

// HostState is the adaptive part of one host's politeness: what the
// server's recent answers taught us. It is plain data; the frontier stores
// it with the host and passes it through the Policy's pure functions.
type HostState struct {
	// Latency is the smoothed time to first byte of the host's responses
	// (an exponentially weighted mean; 0 until measured).
	Latency time.Duration
	// Streak counts consecutive transient failures: network errors,
	// timeouts, 5xx, 429.
	Streak int
	// Breaker is the circuit breaker's state; Trips counts how often it
	// opened since the host last answered well (each trip doubles the
	// cool-down).
	Breaker Breaker
	Trips   int
	// Until is the earliest time of the next request, set by a
	// Retry-After, a backoff or the breaker; Why says which.
	Until time.Time
	Why   Reason
}

// Failure classifies an exchange for the host's health.
type Failure uint8

const (
	// Healthy: the server answered (2xx, 3xx, 4xx other than 429), or the
	// request failed for a reason that is not the server's load (an
	// invalid URL, a refused address, a permanent TLS error).
	Healthy Failure = iota
	// Throttled: 429, or 503, the server's own "slow down".
	Throttled
	// Transient: a timeout, a reset or refused connection, another 5xx.
	Transient
)

// Observation is one finished exchange with a host.
type Observation struct {
	Start     time.Time // the request was written
	FirstByte time.Time // the response's first byte arrived; zero when none did
	End       time.Time // the exchange ended
	Failure   Failure
	// RetryAfter is the server's Retry-After as a duration (see
	// ParseRetryAfter); meaningful when HasRetryAfter.
	RetryAfter    time.Duration
	HasRetryAfter bool
	// Jitter is a uniform random number in [0, 1), supplied by the
	// caller so that the Policy stays a pure function. It spreads backoffs
	// so that hosts failing together do not retry together.
	Jitter float64
}

// latencyWeight is the weight of the newest sample in HostState.Latency:
// a few slow answers move it, one does not.
const latencyWeight = 0.3

// Observe returns the host's state after the exchange o. It never shortens
// a wait already set: a Retry-After stays in force whatever follows.
func (p Policy) Observe(s HostState, o Observation) HostState {
	if !o.FirstByte.IsZero() && !o.FirstByte.Before(o.Start) {
		ttfb := o.FirstByte.Sub(o.Start)
		if s.Latency == 0 {
			s.Latency = ttfb
		} else {
			s.Latency = time.Duration(latencyWeight*float64(ttfb) + (1-latencyWeight)*float64(s.Latency))
		}
	}
	if o.Failure == Healthy {
		s.Streak, s.Trips = 0, 0
		s.Breaker = BreakerClosed
		return s
	}

	s.Streak++
	switch {
	case o.HasRetryAfter:
		s = wait(s, o.End.Add(min(max(o.RetryAfter, 0), p.RetryAfterCap)), ReasonRetryAfter)
	default:
		s = wait(s, o.End.Add(p.Backoff(s.Streak, o.Jitter)), ReasonBackoff)
	}

	switch {
	case s.Breaker == BreakerHalfOpen, s.Breaker == BreakerClosed && s.Streak >= p.BreakerThreshold:
		// The probe failed, or the streak is long enough: park the host.
		s.Breaker = BreakerOpen
		s.Trips++
		s = wait(s, o.End.Add(p.BreakerCooldown(s.Trips)), ReasonBreaker)
	}
	return s
}

// wait moves s.Until to t if that is later.
func wait(s HostState, t time.Time, why Reason) HostState {
	if t.After(s.Until) {
		s.Until, s.Why = t, why
	}
	return s
}

// Backoff is the wait after the streak-th consecutive failure: Backoff
// doubled for each failure after the first, capped at BackoffMax, with
// "equal jitter": the result lies in [d/2, d) for the uncapped value d, so
// it still grows while spreading hosts apart.
func (p Policy) Backoff(streak int, jitter float64) time.Duration {
	d := doubled(p.BackoffBase, p.BackoffMax, streak)
	jitter = min(max(jitter, 0), 1)
	return d/2 + time.Duration(jitter*float64(d/2))
}

// BreakerCooldown is how long the breaker stays open on its trips-th
// consecutive trip: BreakerOpenFor doubled per trip, capped at
// BreakerOpenMax.
func (p Policy) BreakerCooldown(trips int) time.Duration {
	return doubled(p.BreakerOpenFor, p.BreakerOpenMax, trips)
}

// doubled is the wait after the n-th consecutive event (n >= 1): base
// for the first, doubling with each further one, capped at most.
func doubled(base, most time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < most; i++ {
		d *= 2
	}
	return min(d, most)
}

// Probe returns the state for a request about to be made at now: an open
// breaker whose cool-down is over lets this one request through as a
// probe (half-open).
func (p Policy) Probe(s HostState, now time.Time) HostState {
	if s.Breaker == BreakerOpen && !now.Before(s.Until) {
		s.Breaker = BreakerHalfOpen
	}
	return s
}

// Delay is a host's effective gap between requests and the rule that set it.
type Delay struct {
	Gap    time.Duration
	Reason Reason
}

// HostGap is the gap to keep after an exchange with a host whose
// robots.txt asks for crawlDelay: the largest of the configured delay, the
// (capped) Crawl-delay and LatencyFactor times the host's latency (capped
// at MaxLatencyDelay). capped reports that the Crawl-delay exceeded
// CrawlDelayCap.
func (p Policy) HostGap(s HostState, crawlDelay time.Duration) (d Delay, capped bool) {
	d = Delay{p.Delay, ReasonConfigured}
	if crawlDelay > p.CrawlDelayCap {
		crawlDelay, capped = p.CrawlDelayCap, true
	}
	if crawlDelay > d.Gap {
		d = Delay{crawlDelay, ReasonCrawlDelay}
	}
	if lat := min(time.Duration(p.LatencyFactor*float64(s.Latency)), p.MaxLatencyDelay); lat > d.Gap {
		d = Delay{lat, ReasonLatency}
	}
	return d, capped
}

// Ready is when a host may next be contacted after an exchange that ended
// at end: end plus the gap, or the host's Until when that is later; the
// Delay says which and why.
func Ready(s HostState, end time.Time, gap Delay) (time.Time, Delay) {
	t := end.Add(gap.Gap)
	if s.Until.After(t) {
		return s.Until, Delay{s.Until.Sub(end), s.Why}
	}
	return t, gap
}

// ParseRetryAfter reads a Retry-After header value (RFC 9110 §10.2.3):
// either a number of seconds or an HTTP-date. A date is measured from the
// response's Date header when it has a valid one (so a skewed server clock
// does not matter), else from now. ok is false for an absent or invalid
// value; a date in the past gives 0.
func ParseRetryAfter(value, date string, now time.Time) (d time.Duration, ok bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return 0, false
	}
	if strings.Trim(v, "0123456789") == "" {
		const maxSeconds = uint64(1<<63-1) / uint64(time.Second)
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil { // only a range error is possible: digits only
			n = maxSeconds
		}
		return time.Duration(min(n, maxSeconds)) * time.Second, true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	base := now
	if sd, err := http.ParseTime(strings.TrimSpace(date)); err == nil {
		base = sd
	}
	return max(at.Sub(base), 0), true
}
