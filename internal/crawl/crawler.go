package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/godwit-crawler/godwit/internal/process"
	"github.com/godwit-crawler/godwit/internal/render"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// Deps are the adapters a Crawler drives. Logger and Now are optional.
type Deps struct {
	Frontier Frontier
	Fetcher  Fetcher
	Archive  Archive
	// Processors run over every page fetched and archived; nil: none.
	Processors *process.Runner
	// Events receives a PageEvent per page archived; nil: none.
	Events Events
	// Renderer renders the pages Config.Render picks; nil: none. It
	// needs a Frontier that is a Visitor.
	Renderer Renderer
	Logger   *slog.Logger
	Now      func() time.Time
}

// Crawler runs the worker loop over a frontier.
type Crawler struct {
	cfg      Config
	frontier Frontier
	fetcher  Fetcher
	archive  Archive
	procs    *process.Runner  // nil: none
	events   Events           // nil: none
	renderer Renderer         // nil: no rendering (render.go)
	visitor  Visitor          // the frontier, when rendering
	selector *render.Selector // nil: no rendering
	subCache *subCache        // browser requisites already fetched (subcache.go); nil: no rendering
	rstats   renderCounters
	log      *slog.Logger
	now      func() time.Time
	scope    *scope
	traps    *traps       // spider-trap defences (traps.go)
	aliases  *aliases     // URL alias learning (aliases.go)
	chains   *chains      // stylesheet chains' budgets (requisite_chains.go)
	chain    []linkFilter // the discovery chain (discover.go)
	canon    *urlnorm.Canonicalizer
	stats    counters
	budget   atomic.Int64        // pages reserved against MaxPages
	parseMem *semaphore.Weighted // bytes of large pages being decoded and parsed (ParseMemory)
	activity activity            // the last ten minutes: rates and requests per host
	seeds    seedWatch           // what became of this run's seeds (seedwatch.go)
	metrics  *metrics            // nil until RegisterMetrics
	paused   chan struct{}       // non-nil while paused; closed by Resume

	mu       sync.Mutex
	started  time.Time
	ended    time.Time
	stopFunc context.CancelFunc // ends dispatch of the current Run
}

// New checks cfg and returns a Crawler; it starts nothing.
func New(cfg Config, d Deps) (*Crawler, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if d.Frontier == nil || d.Fetcher == nil || d.Archive == nil {
		return nil, errors.New("crawl: frontier, fetcher and archive are required")
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	c := &Crawler{
		cfg:      cfg,
		frontier: d.Frontier,
		fetcher:  d.Fetcher,
		archive:  d.Archive,
		procs:    d.Processors,
		events:   d.Events,
		log:      d.Logger,
		now:      d.Now,
		scope:    newScope(cfg),
		traps:    newTraps(cfg.Traps, d.Logger),
		chains:   newChains(cfg.Requisites.ChainBudget),
		canon:    urlnorm.NewCanonicalizer(cfg.URL),
		parseMem: semaphore.NewWeighted(cfg.ParseMemory),
	}
	if v, ok := d.Frontier.(Visitor); ok && d.Renderer != nil && cfg.Render.Mode != render.Never {
		c.renderer, c.visitor = d.Renderer, v
		c.selector = render.NewSelector(cfg.Render.Mode, cfg.Render.Learn, cfg.Render.MaxShare)
		c.subCache = newSubCache(c.now)
	} else if d.Renderer != nil && cfg.Render.Mode != render.Never {
		return nil, errors.New("crawl: rendering needs a frontier that can hold a host for a browser request (Visitor)")
	}
	c.aliases = newAliases(cfg.Aliases, c.canon, d.Logger, &c.stats)
	c.chain = c.newChain()
	return c, nil
}

// SeedRejection says why a seed given to AddSeedsReport was not queued:
// "invalid" (not an http(s) URL), "out-of-scope" (an exclude rule) or
// "seen" (already known to the crawl).
type SeedRejection struct {
	URL, Reason, Detail string
}

// AddSeedsReport queues seeds while the crawl runs (an operator's command):
// each valid seed not excluded widens the scope and is queued at depth
// priority (the frontier's first bands come first). It says why the others
// were not queued.
func (c *Crawler) AddSeedsReport(ctx context.Context, seeds []string, priority int) (queued int, rejected []SeedRejection, err error) {
	for _, raw := range seeds {
		u, err := urlnorm.Parse(raw)
		if err != nil {
			rejected = append(rejected, SeedRejection{raw, "invalid", err.Error()})
			continue
		}
		str := u.String()
		if rule := c.scope.exclude.match(str); rule != "" {
			rejected = append(rejected, SeedRejection{raw, "out-of-scope", "exclude rule " + rule})
			continue
		}
		c.scope.add(u)
		l := Link{Cash: SeedCash}
		c.fillLink(&l, u)
		l.Depth = max(priority, 0)
		n, err := c.frontier.Add(ctx, []Link{l})
		if err != nil {
			return queued, rejected, err
		}
		if n == 0 {
			rejected = append(rejected, SeedRejection{raw, "seen", ""})
			continue
		}
		queued++
		c.stats.queued.Add(1)
	}
	return queued, rejected, nil
}

// AddSeeds widens the scope to each seed and queues it at depth 0. It
// stops at the first invalid URL and reports it; earlier seeds stay queued.
func (c *Crawler) AddSeeds(ctx context.Context, seeds []string) (added int, err error) {
	links := make([]Link, 0, len(seeds))
	for _, raw := range seeds {
		u, err := urlnorm.Parse(raw)
		if err != nil {
			return 0, fmt.Errorf("crawl: seed %q: %w", raw, err)
		}
		c.scope.add(u)
		l := Link{Cash: SeedCash}
		c.fillLink(&l, u)
		c.seeds.add(l)
		links = append(links, l)
	}
	n, err := c.frontier.Add(ctx, links)
	c.stats.queued.Add(int64(n))
	return n, err
}

// Run crawls until the frontier is exhausted, the page budget is spent,
// every seed has failed with no host answering (unless Config.KeepTrying;
// see Seeds), or ctx ends. After ctx ends no new lease is taken; fetches in flight may
// finish within Config.Grace and are then abandoned (their tasks stay
// queued). Run returns nil in all those cases, and an error only when the
// crawl could not go on (the archive failed).
func (c *Crawler) Run(ctx context.Context) error {
	dispatch, stop := context.WithCancel(ctx)
	defer stop()
	work, abandon := context.WithCancel(context.WithoutCancel(ctx))
	defer abandon()
	c.mu.Lock()
	c.started, c.ended, c.stopFunc = c.now(), time.Time{}, stop
	c.mu.Unlock()

	// The grace timer: once dispatch ends, in-flight work has Grace to finish.
	done, graceDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(graceDone)
		select {
		case <-done:
			return
		case <-dispatch.Done():
		}
		t := time.NewTimer(c.cfg.Grace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			abandon()
		}
	}()
	var workers sync.WaitGroup
	var fatal error
	var fatalOnce sync.Once
	for range c.cfg.Workers {
		workers.Go(func() {
			if err := c.work(dispatch, work); err != nil {
				fatalOnce.Do(func() { fatal = err })
				stop()
			}
		})
	}
	workers.Wait()
	close(done)
	<-graceDone
	c.mu.Lock()
	c.ended = c.now()
	c.mu.Unlock()
	return fatal
}

// work is one worker: lease, process, record, repeat.
func (c *Crawler) work(dispatch, work context.Context) error {
	// Frontier updates must land even when work is being abandoned.
	persist := context.WithoutCancel(work)
	for {
		if err := c.waitResumed(dispatch); err != nil {
			return nil
		}
		l, err := c.frontier.Next(dispatch)
		if errors.Is(err, ErrExhausted) {
			c.stopDispatch()
			return nil
		}
		if err != nil {
			if dispatch.Err() != nil {
				return nil
			}
			return err
		}
		out, links, perr := c.process(work, l)
		n, err := c.settle(persist, l, &out, links)
		if err != nil {
			return err
		}
		c.stats.queued.Add(int64(n))
		if out.Requested {
			// A page, as Stats.Pages counts them: not robots.txt, a
			// sitemap or a redirect (nor a failure: no answer).
			page := out.Robots == nil && l.Task.Sitemap == 0 && out.Status != 0 && !isRedirect(out.Status)
			c.activity.record(out.End, l.Task.Host, page)
			c.observeFetch(out)
		}
		if out.Robots != nil && out.Requested {
			c.observeRobots(robotsOutcome(l.Robots, *out.Robots))
		}
		if out.Disposition == Done {
			c.seeds.done(l.Task, out)
		}
		if err := c.frontier.Complete(persist, l, out); err != nil {
			return err
		}
		if perr != nil {
			return perr
		}
		if !c.cfg.KeepTrying && c.seeds.hopeless(c.otherWork) {
			c.log.Warn("giving up: no seed can be fetched and no host has answered")
			c.stopDispatch()
			return nil
		}
	}
}

// otherWork is, for seedWatch.hopeless, the number of hosts the crawl
// knows, or more than any when a host may be contacted now or a lease is
// out (a seed of a host whose robots.txt was given up on is then still to
// be dispositioned: the crawl ends after it, with its count).
func (c *Crawler) otherWork() int {
	s := c.frontier.Stats()
	if s.Ready > 0 || s.InFlight > 0 {
		return math.MaxInt
	}
	return s.Hosts
}

// Pause stops taking new leases: fetches in flight finish, then workers
// wait until Resume (or the end of the crawl's context).
func (c *Crawler) Pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == nil {
		c.paused = make(chan struct{})
		c.log.Info("crawl paused by the operator")
	}
}

// Resume undoes Pause.
func (c *Crawler) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused != nil {
		close(c.paused)
		c.paused = nil
		c.log.Info("crawl resumed by the operator")
	}
}

// Paused reports whether the crawl is paused.
func (c *Crawler) Paused() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paused != nil
}

// waitResumed blocks while the crawl is paused; it returns ctx's error if
// ctx ends first.
func (c *Crawler) waitResumed(ctx context.Context) error {
	c.mu.Lock()
	p := c.paused
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	select {
	case <-p:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Activity returns the last ten minutes of the crawl: pages per second
// over time and the hosts contacted most.
func (c *Crawler) Activity() Activity {
	c.mu.Lock()
	started := c.started
	c.mu.Unlock()
	return c.activity.snapshot(c.now(), started)
}

// robotsOutcome names what a robots.txt fetch taught, for metrics.
func robotsOutcome(prev, next RobotsState) string {
	switch {
	case next.Status == RobotsOK && prev.Status == RobotsOK && next.Capture == prev.Capture && prev.Capture != nil:
		return "not-modified"
	case next.URL != "" && next.Hops > prev.Hops:
		return "redirect"
	}
	return next.Status.String()
}

// Stop ends dispatch of the current Run, as if its context had ended.
func (c *Crawler) Stop() { c.stopDispatch() }

func (c *Crawler) stopDispatch() {
	c.mu.Lock()
	stop := c.stopFunc
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Stats returns a snapshot of the crawl's counters; safe to call at any time.
func (c *Crawler) Stats() Stats {
	s := c.stats.snapshot()
	c.mu.Lock()
	started, ended := c.started, c.ended
	s.Started = started
	c.mu.Unlock()
	if ended.IsZero() {
		ended = c.now()
	}
	if !s.Started.IsZero() {
		s.Elapsed = ended.Sub(s.Started)
	}
	s.Frontier = c.frontier.Stats()
	return s
}

func parseURL(raw string) (*url.URL, error) { return url.Parse(raw) }
