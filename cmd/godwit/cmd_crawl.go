package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/godwit-crawler/godwit/internal/admin"
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

func newCrawlCmd() *cobra.Command {
	var flags crawlFlags
	cmd := &cobra.Command{
		Use:   "crawl [URL...]",
		Short: "Crawl politely from the given seeds and write WARC files",
		Long: `Crawl politely from the given seed URLs (and/or --seeds FILE), writing WARC
files under --data. The crawl ends by itself when nothing is left to fetch;
Ctrl-C stops it cleanly (in-flight fetches finish or are abandoned within a
few seconds, the WARC is flushed, exit status 0).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := flags.settings(cmd.Flags(), args)
			if err != nil {
				return err
			}
			term := newTerminal(cmd.ErrOrStderr())
			log, err := newLogger(term, s.LogLevel)
			if err != nil {
				return err
			}
			for _, w := range s.warnings {
				log.Warn(w)
			}
			// The data directory is locked before anything in it is read
			// or changed; a resumed crawl's stored settings are the base
			// of the config file and flags given now (settings.go).
			seeds, err := collectSeeds(s, true, func(msg string) { log.Warn(msg) })
			if err != nil {
				return err
			}
			_, statErr := os.Stat(s.Data)
			created := errors.Is(statErr, fs.ErrNotExist) // this run makes the directory
			if len(seeds) == 0 && s.Cluster.URL == "" && (s.Fresh || created) {
				if !created {
					// Another crawl's directory is refused as such,
					// seeds or not.
					if err := checkNotBusy(s.Data); err != nil {
						return err
					}
				}
				return errNoSeeds // nothing to resume: touch nothing
			}
			d, err := lockData(s.Data)
			if err != nil {
				return err
			}
			var discard bool // the new crawl fetched nothing: keep nothing of it
			defer func() {
				if err := d.close(); err != nil {
					log.Warn("closing the data directory", "err", err)
				}
				if discard {
					d.discard(created)
				}
			}()
			resume, err := d.prepare(s.Fresh)
			if err != nil {
				return err
			}
			if d.deleted != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "godwit: --fresh: deleted %s\n", d.deleted)
			}
			if resume {
				merge := func(base crawlSettings) (crawlSettings, error) { return flags.settingsOver(base, cmd.Flags(), args) }
				if s, err = d.resumeSettings(s, merge, log); err != nil {
					return err
				}
			} else if len(seeds) == 0 && s.Cluster.URL == "" {
				return errNoSeeds
			}
			s.proxyEnv = fetch.ProxyEnvFrom(os.Getenv)
			if s.AdminToken == "" {
				s.AdminToken = os.Getenv("GODWIT_ADMIN_TOKEN")
			}
			if s.MemoryLimit != "" {
				limit, _ := parseBytes(s.MemoryLimit) // validated
				debug.SetMemoryLimit(limit)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			finished := make(chan struct{})
			defer close(finished)
			go func() { // after the first signal, let a second one kill the process
				select {
				case <-ctx.Done():
					stop()
					log.Warn("stopping: no new fetches; in-flight fetches get the grace period; press Ctrl-C again to quit at once",
						"grace", s.Grace)
				case <-finished:
				}
			}()
			res, err := runLocked(ctx, d, s, resume, seeds, log, term)
			if err != nil {
				return err
			}
			printSummary(cmd.OutOrStdout(), res)
			if res.Processors != nil {
				return failure{fmt.Errorf("%w; the crawl stopped (--processor-errors stop): fix the processor, then run the same command to resume", res.Processors)}
			}
			if !res.Interrupted && res.Seeds.AllFailed() {
				msg := seedFailures(res.Seeds)
				if !resume && s.Cluster.URL == "" {
					// A first run that fetched nothing leaves nothing
					// behind: the same command again starts afresh.
					discard = true
					msg += fmt.Sprintf("; nothing was kept in %s", s.Data)
				}
				return nothingFetched{errors.New(msg)}
			}
			return nil
		},
	}
	flags.register(cmd.Flags())
	return cmd
}

// crawlResult is what a finished crawl reports.
type crawlResult struct {
	Stats       crawl.Stats
	WARCDir     string
	WARCFiles   []string // every WARC file of the crawl, earlier runs' included
	WARCBytes   int64
	WARCNew     int // of WARCFiles, those written in this run
	Interrupted bool
	Resumed     bool
	Dedup       archive.Stats
	Store       *storeResult // nil without --store
	Seeds       crawl.SeedReport
	// Processors is why the crawl stopped for a processor taken as
	// broken (--processor-errors stop); Broken lists those taken so.
	Processors error
	Broken     []string
	Data       string // the data directory
	// MaxPages is --max-pages; BudgetSpent says the run used all of it.
	MaxPages    int64
	BudgetSpent bool
	// Render is what rendering did; RenderMode "" when no page could be
	// rendered.
	Render     crawl.RenderStats
	RenderMode string
}

// startAdmin serves the admin API, dashboard and metrics of a crawl on
// s.Admin until stop is called, and returns the address it listens on
// ("" for none). Metrics are registered on a registry of this crawl's
// own. When the default address is taken (another crawl on the machine:
// three cluster nodes on one machine) the server listens on a free
// loopback port instead, and says which; an address the operator asked
// for must work.
func startAdmin(ctx context.Context, s crawlSettings, b *backend, log *slog.Logger,
	register ...func(prometheus.Registerer) error) (stop func(), addr string, err error) {
	if s.Admin == "" || s.Admin == "off" {
		return func() {}, "", nil
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, r := range register {
		if err := r(reg); err != nil {
			return nil, "", failure{fmt.Errorf("metrics: %w", err)}
		}
	}
	srv, err := admin.New(b, admin.Options{
		Addr:    s.Admin,
		Token:   s.AdminToken,
		UI:      admin.UI(),
		Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}),
		Logger:  log,
	})
	if err != nil {
		return nil, "", fmt.Errorf("--admin: %w", err)
	}
	ln, err := net.Listen("tcp", s.Admin)
	if err != nil {
		if s.adminExplicit || s.Admin != defaultAdmin {
			return nil, "", fmt.Errorf("--admin %s: %w", s.Admin, err)
		}
		taken := err
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			log.Warn("admin API and dashboard not served: the default address is taken (another crawl?) and no other port is free; use --admin ADDR",
				"addr", s.Admin, "err", errors.Join(taken, err))
			return func() {}, "", nil
		}
		log.Info("the default admin address is taken (another crawl?): serving on a free port instead; --admin ADDR chooses one",
			"default", s.Admin, "addr", ln.Addr().String())
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(sctx, ln); err != nil {
			log.Error("admin server", "err", err)
		}
	}()
	log.Info("admin API and dashboard", "url", "http://"+ln.Addr().String()+"/")
	if s.adminListening != nil {
		s.adminListening(ln.Addr().String())
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}, ln.Addr().String(), nil
}

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
	s.applyURLSettings(&ccfg) // URL identity, scope rules, trap defences (config.go)
	wcfg := warc.WriterConfig{
		Dir:     res.WARCDir,
		Prefix:  s.WARC.Prefix,
		Node:    s.WARC.Node,
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
