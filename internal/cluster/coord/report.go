package coord

import (
	"context"
	"encoding/json"
	"time"

	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/crawl"
)

// Report is what a node writes in its member key every tick (as JSON):
// the cluster's status pages show it, and the end check reads End.
type Report struct {
	Started        time.Time         `json:"started"`
	Pages          int64             `json:"pages"`
	Requests       int64             `json:"requests"`         // every answer: pages, redirects, robots.txt, sitemaps, requisites
	PagesPerSecond float64           `json:"pages_per_second"` // over the last minute
	Queued         int               `json:"queued"`
	InFlight       int               `json:"in_flight"`
	Shards         int               `json:"shards"` // owned and claimed
	Admin          string            `json:"admin,omitempty"`
	End            cluster.EndReport `json:"end"`
}

// Tally is what a node has done for the crawl over all its runs, kept in
// the crawl's control bucket (jetstream.Node.WriteTally, as JSON) after
// the node is gone: the crawl's totals add up every node's.
type Tally struct {
	Pages    int64 `json:"pages"`
	Requests int64 `json:"requests"`
}

// requests counts every answer of a run: pages, redirects, robots.txt,
// sitemaps, requisites.
func requests(cs crawl.Stats) int64 {
	return cs.Pages + cs.Redirects + cs.RobotsFetches + cs.SitemapFetches + cs.Requisites
}

// report writes this node's status to its member key every tick and,
// while the node leads, decides whether the crawl is over; once it is
// (the crawl's done record is there), it calls finish and returns.
func (s *Session) report(ctx context.Context, c *crawl.Crawler, finish func()) {
	select {
	case <-s.seedsSynced: // a node that brings new seeds reopens the crawl first
	case <-ctx.Done():
		return
	}
	tick := time.NewTicker(s.tick)
	defer tick.Stop()
	var check endCheck
	for {
		if s.ends {
			d, err := s.js.Done(ctx)
			if err != nil && ctx.Err() == nil {
				s.log.Warn("reading whether the crawl is over", "err", err)
			}
			if d != nil {
				s.log.Info("the cluster crawl is over: every node is idle and every shard caught up",
					"decided_by", d.By, "at", d.At)
				finish()
				return
			}
		}
		r := s.stats(ctx, c)
		if b, err := json.Marshal(r); err == nil {
			if err := s.js.Report(ctx, b); err != nil && ctx.Err() == nil {
				s.log.Warn("cluster: status not reported", "err", err)
			}
		}
		if s.ends && s.js.IsLeader() {
			if err := check.step(ctx, s); err != nil && ctx.Err() == nil {
				s.log.Warn("cluster: end check", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// stats are this node's status now. The end check's round is read
// before the node looks at itself, so that the report is newer than the
// round.
func (s *Session) stats(ctx context.Context, c *crawl.Crawler) Report {
	r := Report{Started: s.started}
	r.Admin, _ = s.admin.Load().(string)
	if s.ends {
		round, err := s.js.EndRound(ctx)
		if err == nil {
			r.End.Round = round
			r.End.Seeds = int(s.seedsQueued.Load())
			r.End.Shards, r.End.Quiet, err = s.node.Quiet(ctx)
		}
		if err != nil && ctx.Err() == nil {
			s.log.Warn("cluster: end check", "err", err)
			r.End = cluster.EndReport{}
		}
	}
	cs := c.Stats()
	r.Pages = cs.Pages
	r.Requests = requests(cs)
	r.PagesPerSecond = c.Activity().Pages1m
	r.Queued, r.InFlight = cs.Frontier.Queued, cs.Frontier.InFlight
	r.Shards = len(s.node.Owned())
	return r
}

// tallyEvery is how often a node's tally is written when it changed: a
// node killed loses what it did since (and its fetches in flight).
const tallyEvery = 250 * time.Millisecond

// keepTally writes the node's tally whenever it changed, every
// tallyEvery, until ctx ends (Stop writes the last one).
func (s *Session) keepTally(ctx context.Context) {
	t := time.NewTicker(tallyEvery)
	defer t.Stop()
	var written Tally
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := s.tally()
		if now == written {
			continue
		}
		if err := s.writeTally(ctx, now); err != nil {
			if ctx.Err() == nil {
				s.log.Warn("cluster: tally not written", "err", err)
			}
			continue
		}
		written = now
	}
}

// tally is the node's tally now: its earlier runs' and this one's so far.
func (s *Session) tally() Tally {
	cs := s.crawler.Stats()
	return Tally{Pages: s.before.Pages + cs.Pages, Requests: s.before.Requests + requests(cs)}
}

func (s *Session) writeTally(ctx context.Context, t Tally) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return s.js.WriteTally(ctx, b)
}
