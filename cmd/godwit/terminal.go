package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

// terminal is where godwit talks to its operator: log lines, and on an
// interactive terminal a one-line progress display that log lines do not
// garble (each log line clears the progress line, which is then redrawn).
type terminal struct {
	mu   sync.Mutex
	w    io.Writer
	tty  bool
	line string // progress line currently shown
}

func newTerminal(w io.Writer) *terminal {
	t := &terminal{w: w}
	if f, ok := w.(*os.File); ok {
		t.tty = term.IsTerminal(int(f.Fd()))
	}
	return t
}

// Write writes log output, keeping the progress line below it.
func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tty && t.line != "" {
		fmt.Fprint(t.w, "\r\033[K")
	}
	n, err := t.w.Write(p)
	if t.tty && t.line != "" {
		fmt.Fprint(t.w, t.line)
	}
	return n, err
}

func (t *terminal) show(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.line = line
	fmt.Fprint(t.w, "\r\033[K"+line)
}

func (t *terminal) clear() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.line != "" {
		fmt.Fprint(t.w, "\r\033[K")
		t.line = ""
	}
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

func newLogger(t *terminal, level string) (*slog.Logger, error) {
	l, err := parseLevel(level)
	if err != nil {
		return nil, err
	}
	if t.tty && !strings.EqualFold(level, "debug") && l < slog.LevelWarn {
		// The progress line says what info logs would; keep the screen calm.
		l = slog.LevelWarn
	}
	return slog.New(slog.NewTextHandler(t, &slog.HandlerOptions{Level: l})), nil
}

// progress reports the crawl's progress until the returned func is called:
// on a terminal a line redrawn every second, otherwise a log line every 10 s.
func (t *terminal) progress(stats func() crawl.Stats, log *slog.Logger) (stop func()) {
	every := 10 * time.Second
	if t.tty {
		every = time.Second
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		var last int64
		lastAt := time.Now()
		for {
			select {
			case <-done:
				t.clear()
				return
			case now := <-tick.C:
				s := stats()
				rate := float64(s.Pages-last) / now.Sub(lastAt).Seconds()
				last, lastAt = s.Pages, now
				if t.tty {
					t.show(fmt.Sprintf("pages %d  %.1f/s  queued %d  hosts active %d  errors %d",
						s.Pages, rate, s.Frontier.Queued, s.Frontier.Active, s.Errors()))
				} else {
					log.Info("progress", "pages", s.Pages, "pages_per_s", fmt.Sprintf("%.1f", rate),
						"queued", s.Frontier.Queued, "hosts_active", s.Frontier.Active, "errors", s.Errors())
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
