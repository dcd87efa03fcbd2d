package process

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
	Logger  *slog.Logger
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
	if cfg.InFlight < 0 || cfg.Timeout < 0 || cfg.KillAfter < 0 || cfg.BackoffMin < 0 || cfg.BackoffMax < cfg.BackoffMin || cfg.MaxLine < 0 {
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

// Answer is one line an external processor writes back.
type Answer struct {
	ID          uint64            `json:"id"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Links       []string          `json:"links,omitempty"`
	SkipLinks   bool              `json:"skip_links,omitempty"`
	Error       string            `json:"error,omitempty"`
}

// errChildGone: the child died with the page in flight.
var errChildGone = errors.New("child exited")

// Process implements Processor: it sends p to the child and waits for
// the answer, within the timeout. A page in flight when the child dies
// is sent once more, to the restarted child, if time remains.
func (e *Exec) Process(ctx context.Context, p *Page) (Verdict, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	select {
	case e.sem <- struct{}{}:
		defer func() { <-e.sem }()
	case <-ctx.Done():
		return Verdict{}, e.timedOut(ctx, "waiting for a slot")
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
		return Verdict{Annotations: a.Annotations, Links: a.Links, SkipLinks: a.SkipLinks}, nil
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
	case a := <-ch:
		return a, nil
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
	pending map[uint64]chan Answer
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
		pending: map[uint64]chan Answer{},
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

// read delivers the child's answers until its stdout closes; a line that
// is not an answer is logged and dropped (its page times out).
func (e *Exec) read(c *child, stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := readLine(r, e.cfg.MaxLine)
		if len(line) > 0 {
			var a Answer
			if jerr := json.Unmarshal(line, &a); jerr != nil || a.ID == 0 {
				e.log.Warn("external processor wrote a line that is not an answer", "line", truncate(line, 200), "err", jerr)
			} else if ch := c.take(a.ID); ch != nil {
				ch <- a
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

func (c *child) register(id uint64) chan Answer {
	ch := make(chan Answer, 1)
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
func (c *child) take(id uint64) chan Answer {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.pending[id]
	delete(c.pending, id)
	return ch
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
