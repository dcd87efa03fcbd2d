package crawl

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/politeness"
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
// goes back to the head of the queue untouched. It also returns the
// sitemaps the robots.txt lists, as candidates.
func (c *Crawler) fetchRobots(ctx context.Context, l Lease) (Outcome, []foundURL) {
	prev := l.Robots
	target := prev.URL
	if target == "" {
		u, err := url.Parse(l.Task.URL)
		if err != nil { // cannot happen for a normalized URL; drop the task rather than loop
			return Outcome{Disposition: Done, Class: ClassPermanent, Reason: "invalid-url"}, nil
		}
		target = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}).String()
	}
	c.stats.robotsFetches.Add(1)
	req := fetch.Request{URL: target, Wrote: c.wrote(l.ID, l.Task.Host)}
	if prev.Status == RobotsOK && prev.URL == "" && !prev.Validators.IsZero() {
		// A refetch after RobotsTTL: a 304 costs the server a status line.
		req.Header = conditional(prev.Validators)
	}
	start := c.now()
	resp, err := c.fetcher.Fetch(ctx, req)
	now := c.now()
	if err != nil && ctx.Err() == nil {
		c.stats.countTLS(err)
		// prev.Failures counts the host's failed robots.txt requests in a row.
		c.archiveFailureLogged(ctx, target, start, now, prev.Failures+1, err)
	}
	out := Outcome{Disposition: Requeue, Requested: true, End: now}
	next := RobotsState{FetchedAt: now}
	var cands []foundURL

	switch {
	case err != nil && ctx.Err() != nil:
		// Stopping: nothing was learnt about the host.
		return out, nil
	case err != nil && fetch.Classify(err) == fetch.Policy:
		// The SSRF guard refused the host's address: no request was made,
		// and none ever will be, so its URLs are dropped.
		c.log.Warn("host refused by address policy", "host", l.Task.Host, "err", err)
		c.seeds.contact(l.Task.Host, false, fetch.Reason(err))
		next.Status = RobotsGaveUp
		out.Requested = false
		out.Reason = "forbidden-address"
	case err != nil && fetch.Classify(err) == fetch.Permanent:
		// No such host, or a TLS certificate that will not become valid:
		// asking again in a minute cannot help, so its URLs are dropped
		// now, as after robots.retries failures.
		c.log.Warn("robots.txt unreachable; giving up on the host", "host", l.Task.Host, "url", target, "err", err)
		c.seeds.contact(l.Task.Host, false, fetch.Reason(err))
		next = c.robotsFailure(prev, now)
		next.Status = RobotsGaveUp
	case err != nil:
		c.log.Info("robots.txt unreachable", "host", l.Task.Host, "url", target, "err", err)
		c.seeds.contact(l.Task.Host, false, fetch.Reason(err))
		next = c.robotsFailure(prev, now)
		if fetch.Classify(err) == fetch.Transient {
			out.Health = politeness.Transient
		}
	default:
		exchange(&out, resp)
		valid := out.Validators
		out.Validators = Validators{} // the URL record's are for pages
		c.stats.bytes.Add(int64(len(resp.Body)))
		var d Decision
		if resp.Status == http.StatusNotModified {
			d.NotModified = prev.Capture
		}
		capture, archived := c.archiveRecord(ctx, l.Task, resp, d)
		var sitemaps []string
		next, sitemaps = c.robotsAnswer(prev, resp, now)
		why := ""
		if next.Status == RobotsUnavailable || next.Status == RobotsGaveUp {
			why = fmt.Sprintf("robots.txt unreachable (HTTP status %d)", resp.Status)
		}
		c.seeds.contact(l.Task.Host, true, why)
		if next.Status == RobotsOK && resp.Status != http.StatusNotModified {
			next.Validators = valid
			next.Capture = nil
			if archived {
				next.Capture = &capture
			}
		}
		for _, sm := range sitemaps {
			cands = append(cands, foundURL{raw: sm, sitemap: 1})
		}
		if len(sitemaps) == 0 && c.cfg.Sitemaps.Guess && (next.Status == RobotsOK || next.Status == RobotsMissing) {
			u, err := url.Parse(target)
			if err == nil {
				guess := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/sitemap.xml"}
				cands = append(cands, foundURL{raw: guess.String(), sitemap: 1})
			}
		}
	}
	out.Robots = &next
	return out, cands
}

// robotsAnswer interprets an HTTP answer for robots.txt per RFC 9309
// §2.3.1, and returns the sitemaps a 2xx robots.txt lists.
func (c *Crawler) robotsAnswer(prev RobotsState, resp *fetch.Response, now time.Time) (RobotsState, []string) {
	next := RobotsState{FetchedAt: now}
	var sitemaps []string
	switch s := resp.Status; {
	case s >= 200 && s < 300:
		body, err := c.fetcher.Decode(resp)
		if err != nil {
			// Undecodable: as good as unreachable.
			return c.robotsFailure(prev, now), nil
		}
		next.Status = RobotsOK
		next.Body = body
		parsed := robots.Parse(body)
		next.Rules = parsed.Group(c.cfg.Agent)
		if !c.cfg.Sitemaps.Off {
			sitemaps = parsed.Sitemaps()
		}
	case s == http.StatusNotModified && prev.Status == RobotsOK:
		// Unchanged since the copy we hold (and, archived, refer to).
		next = prev
		next.FetchedAt = now
		next.Failures, next.FailingSince = 0, time.Time{}
		c.stats.notModified.Add(1)
		if !c.cfg.Sitemaps.Off {
			sitemaps = robots.Parse(prev.Body).Sitemaps()
		}
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
		return c.robotsFailure(prev, now), nil
	case s >= 400 && s < 500:
		next.Status = RobotsMissing
	default:
		return c.robotsFailure(prev, now), nil
	}
	return next, sitemaps
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
