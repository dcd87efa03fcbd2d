package crawl

import (
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a crawl's counters. Counts are of events seen by
// this process since Run started.
type Stats struct {
	Started time.Time
	Elapsed time.Duration

	Pages         int64 // page responses received (any status), robots.txt excluded
	Bytes         int64 // raw body bytes received, robots.txt included
	RobotsFetches int64 // robots.txt requests sent
	Redirects     int64 // 3xx page responses
	Retries       int64 // tasks put back for another attempt

	Transient int64 // failures that may succeed later (incl. 5xx answers given up on)
	Permanent int64 // failures that will not succeed (4xx, invalid, NXDOMAIN)
	Policy    int64 // URLs not fetched on purpose (robots.txt, SSRF guard)

	RobotsDisallowed  int64 // URLs skipped because robots.txt disallows them
	RobotsUnavailable int64 // URLs dropped because their host's robots.txt stayed unreachable

	Discovered       int64 // outlinks and redirect targets considered
	Queued           int64 // of those, new URLs queued
	OutOfScope       int64
	TooDeep          int64
	NotHTTP          int64 // mailto:, javascript:, ftp: …: recorded, not queued
	Invalid          int64
	TooManyRedirects int64

	Frontier FrontierStats
}

// PagesPerSecond over the whole run.
func (s Stats) PagesPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Pages) / s.Elapsed.Seconds()
}

// Errors is the number of URLs given up on because their fetch failed.
// URLs skipped by policy (robots.txt, the SSRF guard) are not errors.
func (s Stats) Errors() int64 { return s.Transient + s.Permanent }

// counters are the live, concurrently updated form of Stats.
type counters struct {
	pages, bytes, robotsFetches, redirects, retries  atomic.Int64
	transient, permanent, policy                     atomic.Int64
	robotsDisallowed, robotsUnavailable              atomic.Int64
	discovered, queued, outOfScope, tooDeep, notHTTP atomic.Int64
	invalid, tooManyRedirects                        atomic.Int64
}

func (c *counters) countClass(cl Class) {
	switch cl {
	case ClassTransient:
		c.transient.Add(1)
	case ClassPermanent:
		c.permanent.Add(1)
	case ClassPolicy:
		c.policy.Add(1)
	}
}

func (c *counters) snapshot() Stats {
	return Stats{
		Pages:             c.pages.Load(),
		Bytes:             c.bytes.Load(),
		RobotsFetches:     c.robotsFetches.Load(),
		Redirects:         c.redirects.Load(),
		Retries:           c.retries.Load(),
		Transient:         c.transient.Load(),
		Permanent:         c.permanent.Load(),
		Policy:            c.policy.Load(),
		RobotsDisallowed:  c.robotsDisallowed.Load(),
		RobotsUnavailable: c.robotsUnavailable.Load(),
		Discovered:        c.discovered.Load(),
		Queued:            c.queued.Load(),
		OutOfScope:        c.outOfScope.Load(),
		TooDeep:           c.tooDeep.Load(),
		NotHTTP:           c.notHTTP.Load(),
		Invalid:           c.invalid.Load(),
		TooManyRedirects:  c.tooManyRedirects.Load(),
	}
}
