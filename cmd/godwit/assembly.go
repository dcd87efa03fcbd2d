package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/godwit-crawler/godwit/internal/archive"
	"github.com/godwit-crawler/godwit/internal/cluster/coord"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/events"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/frontier"
	"github.com/godwit-crawler/godwit/internal/lifecycle"
	"github.com/godwit-crawler/godwit/internal/upload"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// The crawl's assembly: its components as a lifecycle.Group
// (docs/architecture.md, "Assembly").

// runCrawl runs one crawl to its end in s.Data, resuming the crawl there
// if there is one, with the settings s as they are (godwit crawl merges
// them with the stored ones first).
func runCrawl(ctx context.Context, s crawlSettings, seeds []string, log *slog.Logger, term *terminal) (crawlResult, error) {
	d, err := lockData(s.Data)
	if err != nil {
		return crawlResult{}, err
	}
	defer d.close()
	resume, err := d.prepare(s.Fresh)
	if err != nil {
		return crawlResult{}, err
	}
	return runLocked(ctx, d, s, resume, seeds, log, term)
}

// runLocked wires the packages together and runs one crawl to its end in
// the data directory d, whose lock this process holds and which prepare
// found ready. Configuration errors come back as plain errors (bad
// input); failures while running come back wrapped in failure.
func runLocked(ctx context.Context, d *lockedDir, s crawlSettings, resume bool, seeds []string, log *slog.Logger, term *terminal) (crawlResult, error) {
	data := d.dataDir
	res := crawlResult{WARCDir: data.warc()}
	res.Resumed = resume
	if resume {
		earlier, err := data.loadSeeds()
		if err != nil {
			return res, failure{fmt.Errorf("resume: %w", err)}
		}
		seeds = union(earlier, seeds)
	}
	if len(seeds) == 0 && s.Cluster.URL == "" { // a cluster's node may join without seeds
		return res, errNoSeeds
	}
	if err := data.saveSeeds(seeds); err != nil {
		return res, failure{err}
	}
	if err := d.saveSettings(s, time.Now().UTC().Truncate(time.Millisecond)); err != nil {
		return res, failure{err}
	}
	recovered, err := warc.Recover(res.WARCDir)
	if err != nil {
		return res, failure{fmt.Errorf("resume: %w", err)}
	}
	for _, r := range recovered {
		log.Warn("completed a WARC file interrupted by a crash", "file", r.File, "records", r.Records,
			"bytes_cut", r.Truncated, "removed", r.Removed)
	}
	// The crawl's components, each started beside its stop. However the
	// run ends (a component that fails to start, or the crawl's end),
	// the started ones stop once each, last first: processors, progress
	// and the admin server, the cluster node (its last links go out, its
	// shards handed back), the result is read, then the events, the
	// archive (its records are what the state points at), the frontier
	// (it snapshots the seen-set), the uploads (the last WARC file and
	// every index complete) and the fetcher.
	var g lifecycle.Group
	defer g.Stop()
	var (
		fetcher *fetch.Client
		ws      *upload.Spool
		fr      *frontier.Frontier
		arch    *archive.Archive
		evs     eventsSink
		procs   *processors
		pages   *events.Index
		cn      *coord.Session
		c       *crawl.Crawler
	)
	if err := g.Start(ctx, "fetcher", func(context.Context) (lifecycle.Stop, error) {
		overrides, roots, err := s.transport() // transport.go
		if err != nil {
			return nil, err
		}
		fetcher, err = fetch.New(fetch.Config{
			Overrides:    overrides,
			RootCAs:      roots,
			HTTP2:        s.HTTP2 == "auto",
			UserAgent:    s.userAgent(),
			Proxy:        s.Proxy,
			ProxyEnv:     s.proxyEnv,
			Resolver:     s.resolver,
			AllowPrivate: s.AllowPrivate,
			Timeout:      s.Timeout,
			MaxBodyBytes: s.MaxBodyBytes,
		})
		if err != nil {
			return nil, err
		}
		return func() error { fetcher.Close(); return nil }, nil
	}); err != nil {
		return res, err
	}

	pol := s.politenessPolicy() // effective.go
	ccfg := crawl.Config{
		MaxRetries: s.Adapt.Retries,
		Workers:    s.Workers,
		MaxDepth:   s.MaxDepth,
		MaxPages:   s.MaxPages,
		Scope:      crawl.ScopeMode(s.Scope),
		Grace:      s.Grace,
		KeepTrying: s.Continuous || s.Cluster.URL != "", // a cluster node waits for the shards it is given
		Politeness: pol,
	}
	s.applyURLSettings(&ccfg) // URL identity, scope rules, trap defences (config_url.go)
	wnode := s.WARC.Node
	if wnode == "" && s.Cluster.URL != "" {
		// Two nodes on one machine (or two with the same host name)
		// must not name their files alike: their uploads to the store
		// would overwrite each other's (seen in TestClusterNodeKilled).
		wnode = s.Cluster.Node
	}
	wcfg := warc.WriterConfig{
		Dir:     res.WARCDir,
		Prefix:  s.WARC.Prefix,
		Node:    wnode,
		MaxSize: s.WARC.MaxSize,
		Digest:  s.WARC.Digest,
		Info: []warc.Field{
			{Name: "software", Value: "godwit/" + godwitVersion()},
			{Name: "format", Value: "WARC File Format 1.1"},
			{Name: "conformsTo", Value: "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
			{Name: "http-header-user-agent", Value: s.userAgent()},
			{Name: "robots", Value: "obey"},
		},
	}
	if err := g.Start(ctx, "store", func(ctx context.Context) (lifecycle.Stop, error) {
		var err error
		ws, err = openStore(ctx, s, data, warcNode(wcfg), log) // nil without --store (store.go)
		if err != nil || ws == nil {
			return nil, err
		}
		return func() error {
			err := ws.Stop()
			res.Store = storeResultOf(ws)
			return err
		}, nil
	}); err != nil {
		return res, err
	}
	if err := g.Start(ctx, "frontier", func(context.Context) (lifecycle.Stop, error) {
		var err error
		fr, err = frontier.Open(frontier.Options{
			Dir:          data.state(),
			Policy:       pol,
			Agent:        ccfg.Agent,
			LeaseTimeout: s.Timeout, // a request never outlives its timeout
			Logger:       log,
			Recrawl:      s.Continuous,
			Freshness:    s.Recrawl.freshness(),
			Uniform:      s.Recrawl.Policy == "uniform",
			RevisitShare: s.Recrawl.share(),
			Workers:      s.Workers,
			BreadthFirst: s.Order == "breadth-first",
			// In a cluster the frontier holds the shards this node owns.
			Partial:       s.Cluster.URL != "",
			Resolve:       ipResolver(fetcher),
			IPConcurrency: s.IPConcurrency,
			IPDelay:       s.ipDelay(),
			IPWire:        true, // the crawler reports it (crawl.WireReporter)
		})
		if err != nil {
			return nil, failure{err}
		}
		return fr.Close, nil
	}); err != nil {
		return res, err
	}
	if err := g.Start(ctx, "archive", func(context.Context) (lifecycle.Stop, error) {
		var err error
		arch, err = archive.New(wcfg, archive.Options{
			Store:        fr.Store(), // one store per crawl: the dup table lives beside the frontier's tables
			RevisitMin:   s.Dedup.RevisitMin,
			NearDup:      archive.NearDupPolicy(s.Dedup.NearDuplicates),
			NearDistance: s.Dedup.NearDistance,
			NearWindow:   s.Dedup.NearWindow,
			Remote:       storeRemote(ws), // records of WARC files uploaded and deleted
		})
		if err != nil {
			return nil, err
		}
		return arch.Close, nil
	}); err != nil {
		return res, err
	}
	if err := g.Start(ctx, "events", func(ctx context.Context) (lifecycle.Stop, error) {
		var err error
		if evs, err = openEvents(ctx, s); err != nil || evs == nil {
			return nil, err
		}
		return evs.Close, nil
	}); err != nil {
		return res, err
	}
	// The result is read once everything started after this point has
	// stopped (the cluster node's last links are out), and before the
	// archive and the frontier close.
	g.Add("result", func() error {
		if c != nil {
			res.Stats = c.Stats()
			res.Seeds = c.Seeds()
			res.BudgetSpent = c.BudgetSpent()
			if m := c.RenderMode(); m != "never" {
				res.Render, res.RenderMode = c.RenderStats(), string(m)
			}
		}
		res.Data, res.MaxPages = s.Data, s.MaxPages
		res.Dedup = arch.Stats()
		return nil
	})
	if err := g.Start(ctx, "processors", func(context.Context) (lifecycle.Stop, error) {
		var err error
		procs, err = newProcessors(s, s.goProcessors, log) // processors.go
		return nil, err
	}); err != nil {
		return res, err
	}
	if err := g.Start(ctx, "pages", func(context.Context) (lifecycle.Stop, error) {
		var err error
		if pages, err = events.OpenIndex(fr.Store()); err != nil { // the admin API's pages (pages.go)
			return nil, failure{err}
		}
		return nil, nil
	}); err != nil {
		return res, err
	}
	var front crawl.Frontier = fr
	if s.Cluster.URL != "" {
		if err := g.Start(ctx, "cluster node", func(ctx context.Context) (lifecycle.Stop, error) {
			var err error
			if cn, err = joinCluster(ctx, s, fr, ws, log); err != nil {
				return nil, err
			}
			return cn.Stop, nil
		}); err != nil {
			return res, err
		}
		front = cn.Frontier()
	}
	deps := crawl.Deps{Frontier: front, Fetcher: fetcher, Archive: arch, Logger: log, Processors: procs.runner,
		Events: teeEvents{pages}}
	pool, err := startRender(ctx, &g, s, &ccfg, log) // render.go
	if err != nil {
		return res, err
	}
	if pool != nil {
		deps.Renderer = pool
	}
	if evs != nil {
		deps.Events = teeEvents{pages, evs}
	}
	// runCtx ends the crawl as finished rather than stopped: a cluster
	// crawl ends so when every node is idle.
	runCtx, finish := context.WithCancel(ctx)
	defer finish()
	if err := g.Start(ctx, "crawler", func(ctx context.Context) (lifecycle.Stop, error) {
		var err error
		if c, err = crawl.New(ccfg, deps); err != nil {
			return nil, err
		}
		if cn != nil {
			cn.Start(seeds, c, finish) // the crawl's seeds come from every node
		} else if _, err := c.AddSeeds(ctx, seeds); err != nil {
			return nil, err
		}
		return nil, nil
	}); err != nil {
		return res, err
	}
	go func() { // --processor-errors stop
		select {
		case <-procs.broke:
			finish()
		case <-runCtx.Done():
		}
	}()
	metrics := []func(prometheus.Registerer) error{c.RegisterMetrics, fr.RegisterMetrics, arch.RegisterMetrics, fetcher.RegisterMetrics}
	if procs.runner != nil {
		metrics = append(metrics, procs.runner.RegisterMetrics)
	}
	if ws != nil {
		metrics = append(metrics, ws.RegisterMetrics)
	}
	if cn != nil {
		metrics = append(metrics, func(reg prometheus.Registerer) error { return reg.Register(cn.Collector()) })
	}
	if pool != nil {
		metrics = append(metrics, func(reg prometheus.Registerer) error {
			return reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "godwit_render_restarts_total",
				Help: "Browser processes started after the first (every render.restart_after pages, memory, crash or hang)."},
				func() float64 { return float64(pool.Stats().Restarts) }))
		})
	}
	if err := g.Start(ctx, "admin", func(ctx context.Context) (lifecycle.Stop, error) {
		be := newBackend(c, fr, arch, ccfg.URL)
		be.pages = pages
		be.procs = procs.runner
		be.cluster = cn
		be.adminToken = s.AdminToken
		stopAdmin, adminAddr, err := startAdmin(ctx, s, be, log, metrics...)
		if err != nil {
			return nil, err
		}
		if cn != nil {
			cn.SetAdmin(adminAddr) // as the server listens: the default's port may have been taken
		}
		return func() error { stopAdmin(); return nil }, nil
	}); err != nil {
		return res, err
	}
	log.Info("crawl starting", "resumed", resume, "seeds", len(seeds), "queued", fr.Stats().Queued,
		"data", s.Data, "delay", s.Delay, "workers", s.Workers, "scope", s.Scope, "user_agent", s.userAgent())

	if ws != nil {
		ws.Start(ctx, c) // uploads WARC files as they complete, and those an earlier run left (stopped by the store's stop)
	}
	stopProgress := term.progress(c.Stats, log)
	g.Add("progress", func() error { stopProgress(); return nil })
	stopProcs := procs.start(ctx)
	g.Add("processors' children", func() error { stopProcs(); return nil }) // no worker calls them any more
	runErr := c.Run(runCtx)
	closeErr := g.Stop()
	res.Interrupted = ctx.Err() != nil
	if res.Processors = procs.stopped(); res.Processors != nil {
		res.Interrupted = true
	}
	res.Broken = procs.brokenProcessors()
	res.WARCNew = len(arch.Files())
	res.WARCFiles = arch.Files()
	if all, err := filepath.Glob(filepath.Join(res.WARCDir, "*.warc.gz")); err == nil && len(all) >= len(res.WARCFiles) {
		res.WARCFiles = res.WARCFiles[:0]
		for _, p := range all { // a resumed crawl's files include the earlier runs'
			res.WARCFiles = append(res.WARCFiles, filepath.Base(p))
		}
	}
	for _, f := range res.WARCFiles {
		if fi, err := os.Stat(filepath.Join(res.WARCDir, f)); err == nil {
			res.WARCBytes += fi.Size()
		} else if n, ok := ws.Size(f); ok { // uploaded and deleted
			res.WARCBytes += n
		}
	}
	if err := errors.Join(runErr, closeErr); err != nil {
		return res, failure{err}
	}
	return res, nil
}
