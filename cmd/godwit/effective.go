package main

import (
	"github.com/godwit-crawler/godwit/internal/archive"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// Settings left at zero mean the packages' defaults, which the packages
// fill (Default methods): a stored crawl keeps the zero, so that a later
// godwit's better default applies on resume. effectiveSettings is s with
// those zeros replaced by what the crawl runs with, for godwit status.

// politenessPolicy is the politeness the settings ask for, zeros
// included (politeness.Policy.Default fills them).
func (s crawlSettings) politenessPolicy() politeness.Policy {
	return politeness.Policy{
		Delay:            s.Delay,
		CrawlDelayCap:    s.CrawlDelayCap,
		RobotsTTL:        s.Robots.TTL,
		RobotsRetries:    s.Robots.Retries,
		RobotsBackoff:    s.Robots.Backoff,
		RobotsBackoffMax: s.Robots.BackoffMax,
		RobotsAllowAfter: s.Robots.AllowAfter,
		LatencyFactor:    s.Adapt.LatencyFactor,
		MaxLatencyDelay:  s.Adapt.MaxLatencyDelay,
		RetryAfterCap:    s.Adapt.RetryAfterCap,
		BackoffBase:      s.Adapt.Backoff,
		BackoffMax:       s.Adapt.BackoffMax,
		BreakerThreshold: s.Adapt.BreakerThreshold,
		BreakerOpenFor:   s.Adapt.BreakerOpen,
		BreakerOpenMax:   s.Adapt.BreakerOpenMax,
	}
}

// effectiveSettings is s with every zero that means a default replaced
// by that default, taken from the packages that apply it.
func effectiveSettings(s crawlSettings) crawlSettings {
	c := crawl.Config{MaxRetries: s.Adapt.Retries, Politeness: s.politenessPolicy()}
	s.applyURLSettings(&c)
	c.Default()
	p := c.Politeness
	s.Adapt.Retries = c.MaxRetries
	s.Delay, s.CrawlDelayCap = p.Delay, p.CrawlDelayCap
	s.Robots.TTL, s.Robots.Retries, s.Robots.Backoff, s.Robots.BackoffMax, s.Robots.AllowAfter =
		p.RobotsTTL, p.RobotsRetries, p.RobotsBackoff, p.RobotsBackoffMax, p.RobotsAllowAfter
	s.Adapt.LatencyFactor, s.Adapt.MaxLatencyDelay, s.Adapt.RetryAfterCap = p.LatencyFactor, p.MaxLatencyDelay, p.RetryAfterCap
	s.Adapt.Backoff, s.Adapt.BackoffMax = p.BackoffBase, p.BackoffMax
	s.Adapt.BreakerThreshold, s.Adapt.BreakerOpen, s.Adapt.BreakerOpenMax = p.BreakerThreshold, p.BreakerOpenFor, p.BreakerOpenMax
	t := c.Traps
	s.Traps.MaxURLLength, s.Traps.MaxPathDepth, s.Traps.MaxPathRepeats = t.MaxURLLength, t.MaxPathDepth, t.MaxPathRepeats
	s.Traps.MaxQueryParams, s.Traps.MaxCalendarSteps, s.Traps.HostPages = t.MaxQueryParams, t.MaxCalendarSteps, t.HostPages
	s.Traps.TemplatePages, s.Traps.TemplateHops = t.TemplatePages, t.TemplateHops
	s.Traps.Anomaly.MinURLs, s.Traps.Anomaly.Ratio, s.Traps.Anomaly.Pages = t.Anomaly.MinURLs, t.Anomaly.Ratio, t.Anomaly.Pages
	s.Sitemaps.MaxNesting = c.Sitemaps.MaxNesting
	a := archive.Options{RevisitMin: s.Dedup.RevisitMin, NearDup: archive.NearDupPolicy(s.Dedup.NearDuplicates),
		NearDistance: s.Dedup.NearDistance, NearWindow: s.Dedup.NearWindow}
	a.Default()
	s.Dedup.RevisitMin, s.Dedup.NearDuplicates, s.Dedup.NearDistance, s.Dedup.NearWindow =
		a.RevisitMin, string(a.NearDup), a.NearDistance, a.NearWindow
	s.IPDelay = s.ipDelay()
	s.Render = s.Render.effective()
	if s.Process.Errors == "" {
		s.Process.Errors = "skip"
	}
	return s
}
