package process

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// ExecConfig configures an external processor.
type ExecConfig struct {
	// Command is the child's argv: program and arguments.
	Command []string
	// Name names the processor; default "exec:" and the program's base
	// name.
	Name string
	// InFlight bounds the pages sent to the child and not yet answered;
	// a page beyond it waits (within its timeout). Default 8.
	InFlight int
	// Timeout is how long one page may wait for its answer, queueing
	// included; default 10s. After KillAfter timeouts in a row the child
	// is taken for hung, killed and restarted.
	Timeout   time.Duration
	KillAfter int // default 3
	// BackoffMin and BackoffMax bound the wait before restarting a child
	// that died: it doubles from BackoffMin with each death, and starts
	// over once a child has lived a minute. Defaults 100ms and 30s.
	BackoffMin, BackoffMax time.Duration
	// MaxLine bounds one answer line; default 16 MiB.
	MaxLine int
	// BreakAfter lines out of protocol in a row (default 3) take the
	// processor as broken: its circuit breaker opens, and pages go on
	// without it (Process fails at once with ErrBroken) for OpenFor
	// (default 30s, doubling with each trip in a row up to OpenMax,
	// default 10m); then one page is sent as a probe, whose answer closes
	// the breaker, and whose failure opens it again.
	BreakAfter       int
	OpenFor, OpenMax time.Duration
	// OnBroken, when set, is called (from the goroutine reading the
	// child) each time the breaker opens, with a *ProtocolError.
	OnBroken func(error)
	Logger   *slog.Logger
}

// ErrBroken: the processor is taken as broken, and the page went on
// without it.
var ErrBroken = errors.New("process: processor taken as broken")

// Exec is an external processor: a long-lived child process that reads
// one JSON request line per page on stdin and writes one JSON answer line
// per request on stdout, in any order (answers carry the request's id).
// Its stderr goes to the log. The protocol is in docs/processors.md.
type Exec struct {
	cfg  ExecConfig
	name string
	log  *slog.Logger
	sem  chan struct{} // InFlight slots
	next atomic.Uint64 // request ids

	mu      sync.Mutex
	cur     *child        // nil while no child runs
	changed chan struct{} // closed and replaced when cur changes
	stopped bool

	timeouts atomic.Int64 // consecutive

	bmu   sync.Mutex // the breaker; never held with mu
	bad   int        // lines out of protocol in a row
	state breaker
	until time.Time // open: when a probe may go
	trips int       // in a row, for the cool-down
	why   string    // the mistake that opened it
	said  map[string]bool
}

var _ Processor = (*Exec)(nil)

// NewExec checks cfg and returns an Exec; it starts nothing (Run does).
func NewExec(cfg ExecConfig) (*Exec, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, errors.New("process: exec: no command")
	}
	if cfg.InFlight == 0 {
		cfg.InFlight = 8
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.KillAfter == 0 {
		cfg.KillAfter = 3
	}
	if cfg.BackoffMin == 0 {
		cfg.BackoffMin = 100 * time.Millisecond
	}
	if cfg.BackoffMax == 0 {
		cfg.BackoffMax = 30 * time.Second
	}
	if cfg.MaxLine == 0 {
		cfg.MaxLine = 16 << 20
	}
	if cfg.BreakAfter == 0 {
		cfg.BreakAfter = 3
	}
	if cfg.OpenFor == 0 {
		cfg.OpenFor = 30 * time.Second
	}
	if cfg.OpenMax == 0 {
		cfg.OpenMax = 10 * time.Minute
	}
	if cfg.InFlight < 0 || cfg.Timeout < 0 || cfg.KillAfter < 0 || cfg.BackoffMin < 0 || cfg.BackoffMax < cfg.BackoffMin || cfg.MaxLine < 0 ||
		cfg.BreakAfter < 0 || cfg.OpenFor < 0 || cfg.OpenMax < cfg.OpenFor {
		return nil, fmt.Errorf("process: exec %s: negative or inconsistent limits", cfg.Command[0])
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	name := cfg.Name
	if name == "" {
		name = "exec:" + filepath.Base(cfg.Command[0])
	}
	return &Exec{
		cfg:     cfg,
		name:    name,
		log:     cfg.Logger.With("processor", name),
		sem:     make(chan struct{}, cfg.InFlight),
		changed: make(chan struct{}),
		said:    map[string]bool{},
	}, nil
}

// Name implements Processor.
func (e *Exec) Name() string { return e.name }

// errChildGone: the child died with the page in flight.
var errChildGone = errors.New("child exited")

// Process implements Processor: it sends p to the child and waits for
// the answer, within the timeout. A page in flight when the child dies
// is sent once more, to the restarted child, if time remains.
func (e *Exec) Process(ctx context.Context, p *Page) (Verdict, error) {
	probe, err := e.admit()
	if err != nil {
		return Verdict{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	v, err := e.process(ctx, p, probe)
	if probe {
		e.probed(err)
	}
	return v, err
}

func (e *Exec) process(ctx context.Context, p *Page, probe bool) (Verdict, error) {
	select {
	case e.sem <- struct{}{}:
		defer func() { <-e.sem }()
	case <-ctx.Done():
		return Verdict{}, e.timedOut(ctx, "waiting for a slot")
	}
	if broken, why := e.Broken(); broken && !probe { // it broke while the page waited
		return Verdict{}, fmt.Errorf("%w: %s", ErrBroken, why)
	}
	req := Request{
		URL: p.URL, Status: p.Status, ContentType: p.ContentType, Header: p.Header,
		Title: p.Title, Links: p.Links, Body: string(p.Body),
	}
	if p.HasSimHash {
		req.SimHash = fmt.Sprintf("%016x", p.SimHash)
	}
	for attempt := 0; ; attempt++ {
		req.ID = e.next.Add(1)
		line, err := json.Marshal(req)
		if err != nil {
			return Verdict{}, fmt.Errorf("process: %s: %w", e.name, err)
		}
		a, err := e.ask(ctx, req.ID, append(line, '\n'))
		switch {
		case errors.Is(err, errChildGone) && attempt == 0:
			continue
		case err != nil:
			return Verdict{}, err
		case a.Error != "":
			return Verdict{}, fmt.Errorf("process: %s: %s", e.name, a.Error)
		}
		e.timeouts.Store(0)
		return a.verdict(), nil
	}
}

// ask sends one request line to the current child (waiting for one to run)
// and waits for its answer.
func (e *Exec) ask(ctx context.Context, id uint64, line []byte) (Answer, error) {
	var c *child
	for {
		e.mu.Lock()
		cur, changed, stopped := e.cur, e.changed, e.stopped
		e.mu.Unlock()
		if stopped {
			return Answer{}, fmt.Errorf("process: %s: stopped", e.name)
		}
		if cur != nil && !cur.exited() { // Run has not yet seen an exit
			c = cur
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Answer{}, e.timedOut(ctx, "waiting for the child to start")
		}
	}
	ch := c.register(id)
	defer c.unregister(id)
	select {
	case c.lines <- line: // buffered InFlight deep: never waits on a slot holder
	case <-c.done:
		return Answer{}, fmt.Errorf("process: %s: %w", e.name, errChildGone)
	case <-ctx.Done():
		return Answer{}, e.timedOut(ctx, "sending")
	}
	select {
	case r := <-ch:
		return r.a, r.err
	case <-c.done:
		return Answer{}, fmt.Errorf("process: %s: %w", e.name, errChildGone)
	case <-ctx.Done():
		err := e.timedOut(ctx, "waiting for the answer")
		if e.timeouts.Load() >= int64(e.cfg.KillAfter) {
			e.log.Warn("external processor stopped answering: killing it", "timeouts", e.timeouts.Load())
			e.timeouts.Store(0)
			c.kill()
		}
		return Answer{}, err
	}
}

func (e *Exec) timedOut(ctx context.Context, what string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		e.timeouts.Add(1)
	}
	return fmt.Errorf("process: %s: %s: %w", e.name, what, ctx.Err())
}

// Run starts the child and keeps one running until ctx ends, restarting
// it with backoff when it dies. It then closes the child's stdin, waits a
// little for it to exit, and kills it.
func (e *Exec) Run(ctx context.Context) error {
	backoff := e.cfg.BackoffMin
	for {
		began := time.Now()
		c, err := e.start()
		if err != nil {
			e.log.Error("cannot start external processor", "err", err)
		} else {
			e.setChild(c)
			select {
			case <-c.done:
				e.setChild(nil)
				e.log.Warn("external processor exited", "err", c.err, "lived", time.Since(began).Round(time.Millisecond))
			case <-ctx.Done():
				e.mu.Lock()
				e.cur, e.stopped = nil, true
				close(e.changed)
				e.changed = make(chan struct{})
				e.mu.Unlock()
				c.stop()
				return nil
			}
		}
		if time.Since(began) > time.Minute {
			backoff = e.cfg.BackoffMin
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			e.mu.Lock()
			e.stopped = true
			close(e.changed)
			e.changed = make(chan struct{})
			e.mu.Unlock()
			return nil
		}
		backoff = min(2*backoff, e.cfg.BackoffMax)
	}
}

func (e *Exec) setChild(c *child) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cur = c
	close(e.changed)
	e.changed = make(chan struct{})
}
