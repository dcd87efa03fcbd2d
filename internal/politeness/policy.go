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
	return errors.Join(errs...)
}

// HostDelay returns the gap to keep between requests to a host whose
// robots.txt asks for crawlDelay (zero when it asks for nothing). capped
// reports that the site's value exceeded CrawlDelayCap and was reduced.
func (p Policy) HostDelay(crawlDelay time.Duration) (d time.Duration, capped bool) {
	d = p.Delay
	if crawlDelay > p.CrawlDelayCap {
		crawlDelay, capped = p.CrawlDelayCap, true
	}
	return max(d, crawlDelay), capped
}

// RobotsRetryDelay returns how long to wait before asking again for a
// robots.txt that has failed `failures` times in a row (failures >= 1).
func (p Policy) RobotsRetryDelay(failures int) time.Duration {
	d := p.RobotsBackoff
	for i := 1; i < failures && d < p.RobotsBackoffMax; i++ {
		d *= 2
	}
	return min(d, p.RobotsBackoffMax)
}
