package crawl

import (
	"context"
	"net/url"
	"time"

	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/robots"
)

// maxRobotsRedirects is RFC 9309's "at least five consecutive redirects".
const maxRobotsRedirects = 5

// robotsNeeded reports whether the lease must be spent on robots.txt before
// any other request to the host.
func (c *Crawler) robotsNeeded(st RobotsState, now time.Time) bool {
	switch st.Status {
	case RobotsUnknown, RobotsUnavailable:
		// Unavailable hosts are held back by the frontier until their retry
		// time, so a lease for one means: ask again.
		return true
	}
	return now.Sub(st.FetchedAt) >= c.cfg.Politeness.RobotsTTL
}

// robotsAllows reports whether the host's robots.txt lets us fetch rawURL.
func robotsAllows(st RobotsState, rawURL string) bool {
	switch st.Status {
	case RobotsMissing:
		return true
	case RobotsOK:
		u, err := url.Parse(rawURL)
		if err != nil {
			return false
		}
		return st.Rules.Allowed(u.RequestURI())
	}
	return false
}

// fetchRobots spends the lease on the host's robots.txt. The task itself
// goes back to the head of the queue untouched.
func (c *Crawler) fetchRobots(ctx context.Context, l Lease) Outcome {
	prev := l.Robots
	target := prev.URL
	if target == "" {
		u, err := url.Parse(l.Task.URL)
		if err != nil { // cannot happen for a normalized URL; drop the task rather than loop
			return Outcome{Disposition: Done, Class: ClassPermanent, Reason: "invalid-url"}
		}
		target = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}).String()
	}
	c.stats.robotsFetches.Add(1)
	resp, err := c.fetcher.Fetch(ctx, fetch.Request{URL: target})
	now := c.now()
	out := Outcome{Disposition: Requeue, Requested: true, End: now}
	next := RobotsState{FetchedAt: now}

	switch {
	case err != nil && ctx.Err() != nil:
		// Stopping: nothing was learnt about the host.
		return out
	case err != nil && fetch.Classify(err) == fetch.Policy:
		// The SSRF guard refused the host's address: no request was made,
		// and none ever will be, so its URLs are dropped.
		c.log.Warn("host refused by address policy", "host", l.Task.Host, "err", err)
		next.Status = RobotsGaveUp
		out.Requested = false
		out.Reason = "forbidden-address"
	case err != nil:
		c.log.Info("robots.txt unreachable", "host", l.Task.Host, "url", target, "err", err)
		next = c.robotsFailure(prev, now)
	default:
		out.End, out.Status = resp.End, resp.Status
		c.stats.bytes.Add(int64(len(resp.Body)))
		c.archiveRecord(ctx, l.Task, resp)
		next = c.robotsAnswer(prev, resp, now)
	}
	out.Robots = &next
	return out
}

// robotsAnswer interprets an HTTP answer for robots.txt per RFC 9309 §2.3.1.
func (c *Crawler) robotsAnswer(prev RobotsState, resp *fetch.Response, now time.Time) RobotsState {
	next := RobotsState{FetchedAt: now}
	switch s := resp.Status; {
	case s >= 200 && s < 300:
		body, err := c.fetcher.Decode(resp)
		if err != nil {
			// Undecodable: as good as unreachable.
			return c.robotsFailure(prev, now)
		}
		next.Status = RobotsOK
		next.Body = body
		next.Rules = robots.Parse(body).Group(c.cfg.Agent)
	case s >= 300 && s < 400:
		loc, ok := resp.Location()
		if !ok {
			next.Status = RobotsMissing
			break
		}
		if prev.Hops >= maxRobotsRedirects {
			// RFC 9309 lets a crawler treat an over-long chain as "unavailable" (4xx).
			next.Status = RobotsMissing
			break
		}
		next = prev
		next.URL, next.Hops = loc, prev.Hops+1
	case s == 429:
		// Too Many Requests is the server asking us to back off: treat like 5xx.
		return c.robotsFailure(prev, now)
	case s >= 400 && s < 500:
		next.Status = RobotsMissing
	default:
		return c.robotsFailure(prev, now)
	}
	return next
}

func (c *Crawler) robotsFailure(prev RobotsState, now time.Time) RobotsState {
	next := RobotsState{Status: RobotsUnavailable, FetchedAt: now, Failures: prev.Failures + 1, FailingSince: prev.FailingSince}
	if next.FailingSince.IsZero() {
		next.FailingSince = now
	}
	if after := c.cfg.Politeness.RobotsAllowAfter; after > 0 && now.Sub(next.FailingSince) >= after {
		// RFC 9309 §2.3.1.4: after a long enough outage, crawl as if
		// there were no robots.txt.
		c.log.Warn("robots.txt unreachable for too long; treating the host as having none",
			"failing_since", next.FailingSince, "allow_after", after)
		next.Status = RobotsMissing
		return next
	}
	if next.Failures >= c.cfg.Politeness.RobotsRetries {
		next.Status = RobotsGaveUp
	}
	return next
}
