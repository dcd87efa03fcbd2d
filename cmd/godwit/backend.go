package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/archive"
	"github.com/godwit-crawler/godwit/internal/cluster/coord"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/events"
	"github.com/godwit-crawler/godwit/internal/frontier"
	"github.com/godwit-crawler/godwit/internal/process"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// backend is the running crawl as the admin API sees it: the crawler, its
// frontier and its archive behind admin.Backend.
type backend struct {
	crawler  *crawl.Crawler
	frontier *frontier.Frontier
	archive  *archive.Archive
	pages    *events.Index   // nil: no pages API (pages.go)
	procs    *process.Runner // nil: no processors
	cluster  *coord.Session  // nil: a single-node crawl (no /api/cluster)
	// adminToken is the admin server's token, which a cluster node
	// sends the other nodes' admin APIs (cluster_hosts.go).
	adminToken string
	canon      *urlnorm.Canonicalizer
	started    time.Time
	now        func() time.Time
}

var _ admin.Backend = (*backend)(nil)

func newBackend(c *crawl.Crawler, f *frontier.Frontier, a *archive.Archive, url urlnorm.Options) *backend {
	url.Default()
	return &backend{crawler: c, frontier: f, archive: a, canon: urlnorm.NewCanonicalizer(url), started: time.Now(), now: time.Now}
}

func (b *backend) Status() admin.Status {
	s := b.crawler.Stats()
	act := b.crawler.Activity()
	d := b.archive.Stats()
	fs := s.Frontier
	st := admin.Status{
		Paused:            b.crawler.Paused(),
		UptimeSeconds:     s.Elapsed.Seconds(),
		PagesFetched:      s.Pages,
		RobotsFetches:     s.RobotsFetches,
		SitemapFetches:    s.SitemapFetches,
		Redirects:         s.Redirects,
		PagesPerSecond1m:  act.Pages1m,
		PagesPerSecond10m: act.Pages10m,
		QueueDepth:        int64(fs.Queued),
		InFlight:          int64(fs.InFlight),
		Hosts: admin.HostCounts{Known: int64(fs.Hosts), Active: int64(fs.Active), Ready: int64(fs.Ready),
			Waiting: int64(fs.Waiting), WaitingIP: int64(fs.WaitingIP), Blocked: int64(fs.Blocked)},
		Errors: map[string]int64{"transient": s.Transient, "permanent": s.Permanent, "policy": s.Policy},
		Dedup: admin.DedupCounts{Revisits: d.Revisits, NotModified: d.NotModified, NearDuplicates: d.NearDuplicates,
			SeenURLs: int64(fs.Seen)},
		WARCBytes: d.WARCBytes,
	}
	if s.TLS.Total() > 0 {
		st.TLSErrors = s.TLS.ByKind()
	}
	if n := s.Pages + s.Redirects + s.SitemapFetches + s.RobotsFetches; n > 0 {
		st.ErrorRate = float64(s.Errors()) / float64(n)
	}
	for _, p := range act.Rate {
		st.Rate = append(st.Rate, admin.RatePoint{Time: p.Start, Pages: p.Pages})
	}
	for _, h := range act.TopHosts {
		st.TopHosts = append(st.TopHosts, admin.HostRequests{Host: h.Host, Requests: h.Requests})
	}
	st.Recrawl = recrawlStatus(fs.Recrawl)
	if b.procs != nil {
		for _, p := range b.procs.States() {
			st.Processors = append(st.Processors, admin.ProcessorStatus{Name: p.Name, Broken: p.Broken, Why: p.Why, Skipped: p.Skipped})
		}
	}
	return st
}

// recrawlStatus is the API's view of revisiting; nil when the crawl does
// not recrawl. (The server derives NotModifiedShare.)
func recrawlStatus(r crawl.RecrawlStats) *admin.RecrawlStatus {
	if !r.Enabled {
		return nil
	}
	return &admin.RecrawlStatus{
		Enabled:           true,
		Policy:            r.Policy,
		Share:             r.Share,
		RevisitShare:      r.RevisitShare,
		Scheduled:         int64(r.Scheduled),
		DueBacklog:        int64(r.DueBacklog),
		LagSeconds:        r.Lag.Seconds(),
		CapacityPerSecond: r.Capacity,
		BudgetPerSecond:   r.Budget,
		Mu:                r.Mu,
		Freshness:         r.Freshness,
		FreshnessChanging: r.FreshnessChanging,
		ChangingPages:     r.ChangingPages,
		Revisits:          r.Revisits,
		NotModified:       r.NotModified,
		Unchanged:         r.Unchanged,
	}
}

func (b *backend) AddSeeds(ctx context.Context, urls []string, priority int) (admin.SeedsResult, error) {
	n, rejected, err := b.crawler.AddSeedsReport(ctx, urls, priority)
	res := admin.SeedsResult{Queued: n, Rejected: []admin.Rejection{}}
	for _, r := range rejected {
		res.Rejected = append(res.Rejected, admin.Rejection{URL: r.URL, Reason: r.Reason, Detail: r.Detail})
	}
	return res, err
}

func (b *backend) Hosts(_ context.Context, sort string, limit int) ([]admin.Host, error) {
	infos, err := b.frontier.Hosts(sort, limit)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", admin.ErrInvalid, err)
	}
	recent := b.crawler.Activity().RequestsByHost
	out := make([]admin.Host, 0, len(infos))
	for _, h := range infos {
		out = append(out, b.host(h, recent[h.Name]))
	}
	return out, nil
}

func (b *backend) Host(ctx context.Context, name string) (admin.Host, error) {
	info, ok, err := b.frontier.Host(name)
	switch {
	case err != nil:
		return admin.Host{}, err
	case !ok && b.cluster != nil && admin.Forwarded(ctx) == "":
		return b.ownerHost(ctx, name)
	case !ok:
		return admin.Host{}, fmt.Errorf("%w: host %q", admin.ErrNotFound, name)
	}
	return b.host(info, b.crawler.Activity().RequestsByHost[name]), nil
}

// host converts the frontier's view of a host into the API's.
func (b *backend) host(h crawl.HostInfo, requests10m int64) admin.Host {
	out := admin.Host{
		Name:            h.Name,
		Queued:          int64(h.Queued),
		Fetched:         int64(h.Fetched),
		Leased:          h.Leased,
		Blocked:         h.Blocked,
		DelayMS:         h.Delay.Gap.Milliseconds(),
		DelayReason:     string(h.Delay.Reason),
		NextAllowed:     h.NextReady,
		Waiting:         string(h.Waiting),
		IPGroup:         h.IPGroup,
		LatencyMS:       h.Latency.Milliseconds(),
		ErrorStreak:     int64(h.ErrorStreak),
		Errors:          int64(h.Errors),
		Breaker:         h.Breaker.String(),
		Robots:          h.Robots.String(),
		RobotsFetchedAt: h.RobotsFetchedAt,
		BudgetUsed:      int64(h.Fetched),
		Requests10m:     requests10m,
	}
	if b.cluster != nil {
		out.Node = b.cluster.Node()
	}
	if b.crawler != nil { // nil: a stored crawl's hosts, which nothing renders now
		if r, ok := b.crawler.RenderHost(h.Name); ok {
			out.Render = &admin.HostRender{Mode: string(b.crawler.RenderMode()), Verdict: string(r.Verdict),
				Rendered: r.Rendered, Found: r.Found, FoundNothing: r.FoundNothing, NewLinks: r.NewLinks, LastReasons: r.LastReasons}
		}
	}
	if !h.RobotsFetchedAt.IsZero() {
		out.RobotsAgeSeconds = b.now().Sub(h.RobotsFetchedAt).Seconds()
	}
	for _, e := range h.Aliases {
		out.Aliases = append(out.Aliases, admin.AliasRule{Rule: e.Rule.String(), Kind: e.Rule.Kind.String(),
			Param: e.Rule.Param, Confirmations: e.Confirmations, Contradicted: e.Contradicted, Adopted: e.Adopted})
	}
	if tr := h.Traps; tr != nil {
		out.Traps = &admin.HostTraps{PagesCounted: tr.Fetched, Demoted: tr.Demoted, PageBudget: tr.Budget}
		for _, x := range tr.Templates {
			out.Traps.Templates = append(out.Traps.Templates, admin.TrapTemplate{Hash: fmt.Sprintf("%016x", x.Hash),
				Entry: x.Entry, Pages: x.Pages, Barren: x.Barren, Open: x.Open})
		}
		for _, x := range tr.Calendars {
			out.Traps.Calendars = append(out.Traps.Calendars, admin.TrapCalendar{Hash: fmt.Sprintf("%016x", x.Hash), Steps: x.Steps})
		}
	}
	if !h.Policy.IsZero() {
		p := &admin.HostPolicy{}
		if h.Policy.Delay != nil {
			ms := h.Policy.Delay.Milliseconds()
			p.DelayMS = &ms
		}
		if h.Policy.MaxPages != nil {
			p.MaxPages = h.Policy.MaxPages
			out.BudgetMax = *h.Policy.MaxPages
		}
		out.Policy = p
	}
	return out
}

func (b *backend) SetHostPolicy(ctx context.Context, host string, p admin.HostPolicy) error {
	var hp crawl.HostPolicy
	if p.DelayMS != nil {
		if *p.DelayMS < 0 {
			return fmt.Errorf("%w: negative delay", admin.ErrInvalid)
		}
		d := time.Duration(*p.DelayMS) * time.Millisecond
		hp.Delay = &d
	}
	if p.MaxPages != nil {
		if *p.MaxPages < 0 {
			return fmt.Errorf("%w: negative max pages", admin.ErrInvalid)
		}
		hp.MaxPages = p.MaxPages
	}
	err := b.control(ctx, crawl.Control{Op: crawl.SetHostPolicy, Host: host, Policy: hp, Force: p.Force})
	if errors.Is(err, crawl.ErrBelowFloor) {
		why := strings.TrimPrefix(err.Error(), crawl.ErrBelowFloor.Error()+": ")
		return fmt.Errorf("%w: %s, its floor: an override must not make the crawl less polite by accident; "+
			"give --force (API: \"force\": true) to set it anyway", admin.ErrInvalid, why)
	}
	return err
}

func (b *backend) ClearHostPolicy(ctx context.Context, host string) error {
	return b.control(ctx, crawl.Control{Op: crawl.ClearHostPolicy, Host: host})
}

func (b *backend) Block(ctx context.Context, host string) error {
	return b.control(ctx, crawl.Control{Op: crawl.BlockHost, Host: host})
}

func (b *backend) Unblock(ctx context.Context, host string) error {
	return b.control(ctx, crawl.Control{Op: crawl.UnblockHost, Host: host})
}

// control applies an operator's command to a host named as a URL's host
// is ("Example.COM:80" is "example.com").
func (b *backend) control(ctx context.Context, c crawl.Control) error {
	u, err := urlnorm.Parse("http://" + c.Host + "/")
	if err != nil || c.Host == "" {
		return fmt.Errorf("%w: host %q", admin.ErrInvalid, c.Host)
	}
	c.Host = urlnorm.Host(u)
	return b.frontier.Control(ctx, c)
}

func (b *backend) URL(_ context.Context, raw string) (admin.URLInfo, error) {
	u, err := urlnorm.Parse(raw)
	if err != nil {
		return admin.URLInfo{}, fmt.Errorf("%w: %w", admin.ErrInvalid, err)
	}
	key, host := b.canon.Key(u), urlnorm.Host(u)
	info, ok, err := b.frontier.URL(host, key)
	switch {
	case err != nil:
		return admin.URLInfo{}, err
	case !ok:
		return admin.URLInfo{}, fmt.Errorf("%w: %s", admin.ErrNotFound, raw)
	}
	out := admin.URLInfo{URL: u.String(), Key: key, Host: host, State: "done", Depth: info.Depth,
		Status: info.Status, FetchedAt: info.FetchedAt, ETag: info.Validators.ETag, LastMod: info.Validators.LastModified,
		NextVisit: info.NextVisit, Revisit: info.Revisit,
		ChangeRate: info.ChangeRate, RateError: info.RateError, Visits: info.Visits, Changed: info.Changed,
		LastChange: info.LastChange, IntervalSeconds: info.Interval.Seconds(),
		Importance: info.Importance, Cash: info.Cash, History: info.History, Band: info.Band}
	if info.Queued {
		out.State = "queued"
	}
	if c := info.Capture; c != nil {
		out.WARC = &admin.WARCLocation{File: c.File, Offset: c.Offset, Length: c.Length, RecordID: c.RecordID}
	}
	return out, nil
}

// SetRevisitShare applies the operator's revisit share. A share out of
// range, or a crawl that does not recrawl, is the caller's fault
// (ErrInvalid); the frontier's own failures are not.
func (b *backend) SetRevisitShare(ctx context.Context, share float64) error {
	if !(share >= 0 && share <= 1) {
		return fmt.Errorf("%w: revisit share %g: want 0 to 1", admin.ErrInvalid, share)
	}
	if !b.frontier.Stats().Recrawl.Enabled {
		return fmt.Errorf("%w: this crawl does not recrawl (it was not started with --continuous)", admin.ErrInvalid)
	}
	return b.frontier.Control(ctx, crawl.Control{Op: crawl.SetRevisitShare, Share: share})
}

func (b *backend) Pause()  { b.crawler.Pause() }
func (b *backend) Resume() { b.crawler.Resume() }
