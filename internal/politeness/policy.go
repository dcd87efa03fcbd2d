package politeness

import (
	"errors"
	"fmt"
	"time"
)

// Policy is the politeness configuration shared by every host unless an
// operator override says otherwise.
type Policy struct {
	// Delay is the minimum gap between the starts of two requests to one
	// host. The frontier measures it from the end of the previous exchange,
	// which is stricter: the gap seen by the server is Delay plus the time
	// the previous response took.
	Delay time.Duration
	// CrawlDelayCap bounds a robots.txt Crawl-delay. A larger value is
	// replaced by the cap (and logged once per host); the host is never dropped.
	CrawlDelayCap time.Duration
	// RobotsTTL is how long a fetched robots.txt is trusted before it is
	// fetched again.
	RobotsTTL time.Duration
	// RobotsRetries is how many consecutive times an unreachable robots.txt
	// (5xx, timeout, network failure) is tried before the host's queued URLs
	// are given up for this pass. Until then the host is treated as
	// disallowing everything, as RFC 9309 requires.
	RobotsRetries int
	// RobotsBackoff is the wait after the first unreachable robots.txt; it
	// doubles with each further failure, up to RobotsBackoffMax.
	RobotsBackoff    time.Duration
	RobotsBackoffMax time.Duration
	// RobotsAllowAfter is how long a robots.txt may stay unreachable before
	// the host is treated as having none (allow all), as RFC 9309 §2.3.1.4
	// permits after "a reasonably long period of time" (30 days). Default
	// 30 days; negative: never.
	RobotsAllowAfter time.Duration

	// LatencyFactor makes the gap grow with a slow server: at least
	// LatencyFactor × the host's smoothed time to first byte, up to
	// MaxLatencyDelay (the way Bingbot backs off a struggling site).
	// Default 2; negative turns it off.
	LatencyFactor   float64
	MaxLatencyDelay time.Duration // default 60s
	// RetryAfterCap bounds how long a server's Retry-After can park a
	// host; default 1h.
	RetryAfterCap time.Duration
	// BackoffBase is the wait after a transient failure (timeout, reset,
	// 5xx, 429 or 503 without Retry-After); it doubles with each further
	// consecutive failure up to BackoffMax, with jitter. Defaults 5s and
	// 10m.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// BreakerThreshold consecutive transient failures open the host's
	// circuit breaker: it is parked for BreakerOpenFor (doubling per
	// consecutive trip, up to BreakerOpenMax), then probed with one
	// request. Defaults 5, 1m, 1h.
	BreakerThreshold int
	BreakerOpenFor   time.Duration
	BreakerOpenMax   time.Duration
}

// Default fills zero fields with godwit's polite defaults.
func (p *Policy) Default() {
	if p.Delay == 0 {
		p.Delay = time.Second
	}
	if p.CrawlDelayCap == 0 {
		p.CrawlDelayCap = 60 * time.Second
	}
	if p.RobotsTTL == 0 {
		p.RobotsTTL = 24 * time.Hour
	}
	if p.RobotsRetries == 0 {
		p.RobotsRetries = 3
	}
	if p.RobotsBackoff == 0 {
		p.RobotsBackoff = time.Minute
	}
	if p.RobotsBackoffMax == 0 {
		p.RobotsBackoffMax = time.Hour
	}
	if p.RobotsAllowAfter == 0 {
		p.RobotsAllowAfter = 30 * 24 * time.Hour
	}
	if p.LatencyFactor == 0 {
		p.LatencyFactor = 2
	}
	setDefault(&p.MaxLatencyDelay, 60*time.Second)
	setDefault(&p.RetryAfterCap, time.Hour)
	setDefault(&p.BackoffBase, 5*time.Second)
	setDefault(&p.BackoffMax, 10*time.Minute)
	setDefault(&p.BreakerThreshold, 5)
	setDefault(&p.BreakerOpenFor, time.Minute)
	setDefault(&p.BreakerOpenMax, time.Hour)
}

// Validate reports the first setting that cannot work.
func (p Policy) Validate() error {
	var errs []error
	if p.Delay < 0 {
		errs = append(errs, fmt.Errorf("politeness: delay %v is negative", p.Delay))
	}
	if p.CrawlDelayCap < 0 {
		errs = append(errs, fmt.Errorf("politeness: crawl-delay cap %v is negative", p.CrawlDelayCap))
	}
	if p.RobotsTTL <= 0 {
		errs = append(errs, fmt.Errorf("politeness: robots TTL %v must be positive", p.RobotsTTL))
	}
	if p.RobotsRetries < 1 {
		errs = append(errs, fmt.Errorf("politeness: robots retries %d must be at least 1", p.RobotsRetries))
	}
	if p.RobotsBackoff <= 0 || p.RobotsBackoffMax < p.RobotsBackoff {
		errs = append(errs, fmt.Errorf("politeness: robots backoff %v..%v is not a valid range", p.RobotsBackoff, p.RobotsBackoffMax))
	}
	if p.MaxLatencyDelay < 0 || p.RetryAfterCap < 0 {
		errs = append(errs, fmt.Errorf("politeness: max latency delay %v and retry-after cap %v must not be negative", p.MaxLatencyDelay, p.RetryAfterCap))
	}
	if p.BackoffBase <= 0 || p.BackoffMax < p.BackoffBase {
		errs = append(errs, fmt.Errorf("politeness: backoff %v..%v is not a valid range", p.BackoffBase, p.BackoffMax))
	}
	if p.BreakerThreshold < 1 {
		errs = append(errs, fmt.Errorf("politeness: breaker threshold %d must be at least 1", p.BreakerThreshold))
	}
	if p.BreakerOpenFor <= 0 || p.BreakerOpenMax < p.BreakerOpenFor {
		errs = append(errs, fmt.Errorf("politeness: breaker open time %v..%v is not a valid range", p.BreakerOpenFor, p.BreakerOpenMax))
	}
	return errors.Join(errs...)
}

func setDefault[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

// RobotsRetryDelay returns how long to wait before asking again for a
// robots.txt that has failed `failures` times in a row (failures >= 1).
func (p Policy) RobotsRetryDelay(failures int) time.Duration {
	return doubled(p.RobotsBackoff, p.RobotsBackoffMax, failures)
}
