package process

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os/exec"
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

// ProtocolError is an external processor's line that is not an answer:
// Mistake says why, in words ("its answers carry no \"id\"").
type ProtocolError struct {
	Processor, Mistake string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("processor %s: %s; see docs/processors.md", e.Processor, e.Mistake)
}

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

type breaker int

const (
	closed breaker = iota
	open
	halfOpen
)

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

// Request is one line sent to an external processor.
type Request struct {
	ID          uint64              `json:"id"`
	URL         string              `json:"url"`
	Status      int                 `json:"status"`
	ContentType string              `json:"content_type,omitempty"`
	Header      map[string][]string `json:"header,omitempty"`
	Title       string              `json:"title,omitempty"`
	Links       []string            `json:"links,omitempty"`
	SimHash     string              `json:"simhash,omitempty"` // 16 hex digits
	Body        string              `json:"body,omitempty"`    // UTF-8 HTML
}

// Answer is one line an external processor writes back. Annotation
// values are any JSON: strings, numbers, booleans, null, arrays, objects.
type Answer struct {
	ID          uint64                     `json:"id"`
	Annotations map[string]json.RawMessage `json:"annotations,omitempty"`
	Links       []string                   `json:"links,omitempty"`
	SkipLinks   bool                       `json:"skip_links,omitempty"`
	Error       string                     `json:"error,omitempty"`
}

// reply is what the reader hands the page waiting for an answer.
type reply struct {
	a   Answer
	err error // a *ProtocolError, or ErrBroken
}

// verdict is the Verdict of a's annotations, links and skip_links.
func (a Answer) verdict() Verdict {
	v := Verdict{Links: a.Links, SkipLinks: a.SkipLinks}
	for k, raw := range a.Annotations {
		var s string
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' && json.Unmarshal(t, &s) == nil {
			if v.Annotations == nil {
				v.Annotations = map[string]string{}
			}
			v.Annotations[k] = s
			continue
		}
		if v.Values == nil {
			v.Values = map[string]json.RawMessage{}
		}
		v.Values[k] = raw
	}
	return v
}

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

// admit says whether a page may go to the child: always while the
// breaker is closed; once it is open, only one page, the probe, when
// its cool-down is over.
func (e *Exec) admit() (probe bool, err error) {
	e.bmu.Lock()
	defer e.bmu.Unlock()
	switch {
	case e.state == closed:
		return false, nil
	case e.state == open && !time.Now().Before(e.until):
		e.state = halfOpen
		return true, nil
	}
	return false, fmt.Errorf("%w: %s", ErrBroken, e.why)
}

// probed settles the breaker after the probe: an answer closes it; a
// failure other than a protocol error (which the reader has already
// counted) opens it again.
func (e *Exec) probed(err error) {
	e.bmu.Lock()
	defer e.bmu.Unlock()
	if e.state != halfOpen {
		return
	}
	if err == nil {
		e.state, e.trips, e.bad = closed, 0, 0
		e.log.Info("processor answers again: pages are sent to it again")
		return
	}
	e.openLocked()
}

func (e *Exec) openLocked() {
	e.state = open
	e.until = time.Now().Add(min(e.cfg.OpenFor<<min(e.trips, 20), e.cfg.OpenMax))
	e.trips++
}

// Broken says whether the processor is taken as broken, and how it
// erred, in words.
func (e *Exec) Broken() (bool, string) {
	e.bmu.Lock()
	defer e.bmu.Unlock()
	if e.state == closed {
		return false, ""
	}
	return true, e.why
}

// answered notes an answer in protocol: the lines out of protocol are no
// longer in a row.
func (e *Exec) answered() {
	e.bmu.Lock()
	e.bad = 0
	e.bmu.Unlock()
}

// misanswered notes a line out of protocol, and says whether the
// processor is taken as broken (the breaker is not closed). The mistake
// is logged once, in words, when the breaker first opens for it.
func (e *Exec) misanswered(perr *ProtocolError) (broken bool) {
	var opened bool
	e.bmu.Lock()
	e.bad++
	switch {
	case e.state == halfOpen:
		opened = true
	case e.state == closed && e.bad >= e.cfg.BreakAfter:
		opened = true
	}
	if opened {
		e.why = perr.Mistake
		e.openLocked()
	}
	say := opened && !e.said[perr.Mistake]
	if say {
		e.said[perr.Mistake] = true
	}
	wait := time.Until(e.until).Round(time.Second)
	broken = e.state != closed
	e.bmu.Unlock()
	if say {
		e.log.Error(perr.Error(), "then", fmt.Sprintf("pages go on without it; it is tried again with one page in %v", wait))
	}
	if opened && e.cfg.OnBroken != nil {
		e.cfg.OnBroken(perr)
	}
	return broken
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

// child is one running child process and the goroutines that serve it:
// a writer (lines → stdin), a reader (stdout → pending), a logger
// (stderr → log) and a waiter, which closes done once the process has
// exited and the others have ended.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan []byte
	done  chan struct{}
	err   error // why it exited; read after done

	mu      sync.Mutex
	pending map[uint64]chan reply
}

func (e *Exec) start() (*child, error) {
	cmd := exec.Command(e.cfg.Command[0], e.cfg.Command[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{
		cmd: cmd, stdin: stdin,
		lines:   make(chan []byte, e.cfg.InFlight),
		done:    make(chan struct{}),
		pending: map[uint64]chan reply{},
	}
	quit := make(chan struct{}) // ends the writer
	var readers, writer sync.WaitGroup
	writer.Go(func() {
		for {
			select {
			case l := <-c.lines:
				if _, err := stdin.Write(l); err != nil {
					return // the reader sees the child go
				}
			case <-quit:
				return
			}
		}
	})
	readers.Go(func() { e.read(c, stdout) })
	readers.Go(func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			e.log.Info("external processor says", "line", sc.Text())
		}
	})
	go func() { // waiter: owns the others
		// Wait closes the pipes, so it comes after the readers saw EOF:
		// the child exited (or closed them).
		readers.Wait()
		err := cmd.Wait()
		close(quit)
		writer.Wait()
		c.err = err
		close(c.done)
	}()
	return c, nil
}

// read delivers the child's answers until its stdout closes. A line that
// is not an answer is a protocol error, which fails a page at once rather
// than at its timeout: the page whose id it carries; for a JSON object
// without an id, the oldest page in flight (the one it most likely
// answers; it is not taken as its answer, docs/decisions.md). A line that
// is not JSON fails no page: it may be stray output between answers.
// BreakAfter of them with no answer in between take the processor as
// broken; while it is, a line out of protocol fails every page in flight.
func (e *Exec) read(c *child, stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := readLine(r, e.cfg.MaxLine)
		if len(bytes.TrimSpace(line)) > 0 {
			a, mistake := parseAnswer(line)
			switch {
			case mistake == "":
				e.answered()
				if ch := c.take(a.ID); ch != nil {
					ch <- reply{a: a.Answer}
				}
			default:
				perr := &ProtocolError{Processor: e.name, Mistake: mistake}
				e.log.Debug("external processor wrote a line that is not an answer", "line", truncate(line, 200), "mistake", mistake)
				ch := c.take(a.ID)
				if ch == nil && a.object {
					ch = c.takeOldest()
				}
				if ch != nil {
					ch <- reply{err: perr}
				}
				if e.misanswered(perr) {
					for _, ch := range c.takeAll() {
						ch <- reply{err: fmt.Errorf("%w: %s", ErrBroken, mistake)}
					}
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				e.log.Warn("external processor output unreadable", "err", err)
				c.kill()
				io.Copy(io.Discard, stdout) // until the process is gone
			}
			return
		}
	}
}

// parsed is one line read from a child.
type parsed struct {
	Answer
	object bool // a JSON object
}

// parseAnswer reads one answer line. A line out of protocol has a
// mistake, in words (and the id it carries, if any).
func parseAnswer(line []byte) (parsed, string) {
	var a Answer
	err := json.Unmarshal(line, &a)
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field == "id":
		return parsed{object: true}, fmt.Sprintf(`the "id" of its answers is a JSON %s, not the request's number`, te.Value)
	case errors.As(err, &te) && te.Field != "":
		var id struct {
			ID uint64 `json:"id"`
		}
		json.Unmarshal(line, &id)
		if id.ID == 0 {
			return parsed{object: true}, `its answers carry no "id"`
		}
		return parsed{Answer{ID: id.ID}, true}, fmt.Sprintf("the %q of its answers is a JSON %s, not what the protocol says", te.Field, te.Value)
	case err != nil:
		return parsed{}, "its answers are not JSON objects, one a line"
	case a.ID == 0:
		return parsed{object: true}, `its answers carry no "id"`
	}
	return parsed{a, true}, ""
}

// readLine reads one line of at most max bytes (without its newline).
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		part, isPrefix, err := r.ReadLine()
		line = append(line, part...)
		if len(line) > max {
			return nil, fmt.Errorf("answer line over %d bytes", max)
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

func (c *child) register(id uint64) chan reply {
	ch := make(chan reply, 1)
	c.mu.Lock()
	c.pending[id] = ch
	c.mu.Unlock()
	return ch
}

func (c *child) unregister(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// take removes and returns the waiter of id; nil if it gave up.
func (c *child) take(id uint64) chan reply {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.pending[id]
	delete(c.pending, id)
	return ch
}

// takeOldest removes and returns the waiter of the oldest request in
// flight (ids grow); nil if none waits.
func (c *child) takeOldest() chan reply {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return nil
	}
	oldest := uint64(math.MaxUint64)
	for id := range c.pending {
		oldest = min(oldest, id)
	}
	ch := c.pending[oldest]
	delete(c.pending, oldest)
	return ch
}

// takeAll removes and returns every waiter.
func (c *child) takeAll() []chan reply {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]chan reply, 0, len(c.pending))
	for id, ch := range c.pending {
		out = append(out, ch)
		delete(c.pending, id)
	}
	return out
}

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *child) kill() {
	if c.cmd.Process != nil {
		c.cmd.Process.Kill()
	}
}

// stop closes stdin (a well-behaved child exits at EOF), waits up to two
// seconds, then kills the child, and waits for it.
func (c *child) stop() {
	c.stdin.Close()
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-c.done:
		return
	case <-t.C:
	}
	c.kill()
	<-c.done
}
