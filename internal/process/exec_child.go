package process

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"sync"
	"time"
)

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
