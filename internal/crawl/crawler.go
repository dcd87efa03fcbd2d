package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// Deps are the adapters a Crawler drives. Logger and Now are optional.
type Deps struct {
	Frontier Frontier
	Fetcher  Fetcher
	Archive  Archive
	Logger   *slog.Logger
	Now      func() time.Time
}

// Crawler runs the worker loop over a frontier.
type Crawler struct {
	cfg      Config
	frontier Frontier
	fetcher  Fetcher
	archive  Archive
	log      *slog.Logger
	now      func() time.Time
	scope    *scope
	traps    *traps // spider-trap defences (traps.go)
	canon    *urlnorm.Canonicalizer
	stats    counters
	budget   atomic.Int64        // pages reserved against MaxPages
	parseMem *semaphore.Weighted // bytes of large pages being decoded and parsed (ParseMemory)

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
	return &Crawler{
		cfg:      cfg,
		frontier: d.Frontier,
		fetcher:  d.Fetcher,
		archive:  d.Archive,
		log:      d.Logger,
		now:      d.Now,
		scope:    newScope(cfg),
		traps:    newTraps(cfg.Traps, d.Logger),
		canon:    urlnorm.NewCanonicalizer(cfg.URL),
		parseMem: semaphore.NewWeighted(cfg.ParseMemory),
	}, nil
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
		var l Link
		c.fillLink(&l, u)
		links = append(links, l)
	}
	n, err := c.frontier.Add(ctx, links)
	c.stats.queued.Add(int64(n))
	return n, err
}

// Run crawls until the frontier is exhausted, the page budget is spent, or
// ctx ends. After ctx ends no new lease is taken; fetches in flight may
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
		if len(links) > 0 {
			n, err := c.frontier.Add(persist, links)
			if err != nil {
				return err
			}
			c.stats.queued.Add(int64(n))
		}
		if err := c.frontier.Complete(persist, l, out); err != nil {
			return err
		}
		if perr != nil {
			return perr
		}
	}
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
