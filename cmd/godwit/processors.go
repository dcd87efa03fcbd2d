package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/events"
	"github.com/godwit-crawler/godwit/internal/process"
)

// processorSettings are the content processors and the page events
// (docs/processors.md).
type processorSettings struct {
	// Processors, in the order they run: "structured" (the built-in
	// JSON-LD and OpenGraph processor) or "exec:CMD ARGS" (an external
	// processor; the command is split on spaces).
	Processors []string `yaml:"processors"`
	// Budget is how long one processor may take over one page.
	Budget time.Duration `yaml:"timeout"`
	// InFlight bounds the pages in flight to each external processor.
	InFlight int `yaml:"in_flight"`
	// Errors says what a processor taken as broken (answers out of
	// protocol) does to the crawl: "skip" (pages go on without it) or
	// "stop" (the crawl stops, exit status 1).
	Errors string `yaml:"errors"`
	// Events is where page events go: "jsonl:FILE" ("" none).
	Events string `yaml:"events"`
	// EventsMaxSize is the size past which the events file is rotated.
	EventsMaxSize int64 `yaml:"events_max_size"`
}

const defaultProcessorBudget = 10 * time.Second

func (f *crawlFlags) registerProcessors(fs *pflag.FlagSet) {
	flagProcessor.stringArrayVar(fs, &f.s.Process.Processors, nil)
	flagProcessorTimeout.durationVar(fs, &f.s.Process.Budget, defaultProcessorBudget)
	flagProcessorInFlight.intVar(fs, &f.s.Process.InFlight, 8)
	flagProcessorErrors.stringVar(fs, &f.s.Process.Errors, "skip")
	flagEvents.stringVar(fs, &f.s.Process.Events, "")
	flagEventsMaxSize.int64Var(fs, &f.s.Process.EventsMaxSize, 64<<20)
}

func (f *crawlFlags) applyProcessors(fs *pflag.FlagSet, s *crawlSettings) {
	set := func(fl flagInfo, apply func()) {
		if fs.Changed(fl.name) {
			apply()
		}
	}
	set(flagProcessor, func() { s.Process.Processors = f.s.Process.Processors })
	set(flagProcessorTimeout, func() { s.Process.Budget = f.s.Process.Budget })
	set(flagProcessorInFlight, func() { s.Process.InFlight = f.s.Process.InFlight })
	set(flagProcessorErrors, func() { s.Process.Errors = f.s.Process.Errors })
	set(flagEvents, func() { s.Process.Events = f.s.Process.Events })
	set(flagEventsMaxSize, func() { s.Process.EventsMaxSize = f.s.Process.EventsMaxSize })
}

func (p processorSettings) validate() error {
	for _, spec := range p.Processors {
		if _, err := execCommand(spec); err != nil {
			return err
		}
	}
	if p.Errors != "" && p.Errors != "skip" && p.Errors != "stop" {
		return fmt.Errorf("--processor-errors %q: want skip or stop", p.Errors)
	}
	if p.Budget < 0 || p.InFlight < 0 || p.EventsMaxSize < 0 {
		return errors.New("--processor-timeout, --processor-in-flight and --events-max-size must not be negative")
	}
	if p.Events != "" && !strings.HasPrefix(p.Events, "nats://") {
		if _, err := eventsFile(p.Events); err != nil {
			return err
		}
	} else if p.Events != "" {
		if _, _, err := events.ParseNATS(p.Events); err != nil {
			return fmt.Errorf("--events: %w", err)
		}
	}
	return nil
}

// execCommand is the argv of an "exec:" processor spec; nil for a
// built-in one.
func execCommand(spec string) ([]string, error) {
	switch {
	case spec == "structured":
		return nil, nil
	case strings.HasPrefix(spec, "exec:"):
		argv := strings.Fields(strings.TrimPrefix(spec, "exec:"))
		if len(argv) == 0 {
			return nil, fmt.Errorf("--processor %q: no command", spec)
		}
		return argv, nil
	}
	return nil, fmt.Errorf("--processor %q: want structured or exec:CMD ARGS", spec)
}

func eventsFile(spec string) (string, error) {
	path, ok := strings.CutPrefix(spec, "jsonl:")
	if !ok || path == "" {
		return "", fmt.Errorf("--events %q: want jsonl:FILE or nats://HOST:PORT/SUBJECT", spec)
	}
	return path, nil
}

// processors are a crawl's content processors: the runner the workers
// call, and the external ones, whose children start must run.
type processors struct {
	runner *process.Runner // nil: none
	execs  []*process.Exec

	// With --processor-errors stop, broke is closed when the first
	// processor is taken as broken, and brokeErr says which and how.
	brokeOnce sync.Once
	broke     chan struct{}
	brokeErr  error
}

// broken notes that a processor was taken as broken (--processor-errors
// stop).
func (ps *processors) broken(err error) {
	ps.brokeOnce.Do(func() {
		ps.brokeErr = err
		close(ps.broke)
	})
}

// stopped is why the crawl stopped for a broken processor; nil if it did
// not.
func (ps *processors) stopped() error {
	select {
	case <-ps.broke:
		return ps.brokeErr
	default:
		return nil
	}
}

// newProcessors builds the processors s names, then extra (tests' Go
// processors); it starts nothing.
func newProcessors(s crawlSettings, extra []process.Processor, log *slog.Logger) (*processors, error) {
	ps := &processors{broke: make(chan struct{})}
	var onBroken func(error)
	if s.Process.Errors == "stop" {
		onBroken = ps.broken
	}
	budget := s.Process.Budget
	if budget == 0 {
		budget = defaultProcessorBudget
	}
	var list []process.Processor
	names := map[string]int{}
	for _, spec := range s.Process.Processors {
		argv, err := execCommand(spec)
		if err != nil {
			return nil, err
		}
		if argv == nil {
			list = append(list, process.Structured{})
			continue
		}
		// Named after the program, and numbered when it runs twice
		// (two scripts under one interpreter).
		name := "exec:" + filepath.Base(argv[0])
		if names[name]++; names[name] > 1 {
			name += "#" + strconv.Itoa(names[name])
		}
		e, err := process.NewExec(process.ExecConfig{
			Name:     name,
			Command:  argv,
			InFlight: s.Process.InFlight,
			Timeout:  budget,
			Logger:   log,
			OnBroken: onBroken,
		})
		if err != nil {
			return nil, err
		}
		ps.execs = append(ps.execs, e)
		list = append(list, e)
	}
	list = append(list, extra...)
	if len(list) == 0 {
		return ps, nil
	}
	// The runner's budget is a backstop: an exec: processor enforces its
	// own timeout (the same), queueing included.
	r, err := process.NewRunner(list, process.Options{Budget: budget + time.Second, Logger: log})
	if err != nil {
		return nil, err
	}
	ps.runner = r
	return ps, nil
}

// start starts the external processors' children; the returned function
// stops them and returns once they are gone. They outlive ctx's
// cancellation until stopped, so that the pages still in flight when a
// crawl is told to stop are processed.
func (ps *processors) start(ctx context.Context) (stop func()) {
	if len(ps.execs) == 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	for _, e := range ps.execs {
		wg.Go(func() { e.Run(ctx) })
	}
	return func() {
		cancel()
		wg.Wait()
	}
}

// eventsSink is where a crawl's page events go besides the store's index.
type eventsSink interface {
	crawl.Events
	Close() error
}

// openEvents opens the events sink s names; nil for none.
func openEvents(ctx context.Context, s crawlSettings) (eventsSink, error) {
	if s.Process.Events == "" {
		return nil, nil
	}
	if strings.HasPrefix(s.Process.Events, "nats://") {
		st, err := events.OpenStream(ctx, s.Process.Events)
		if err != nil {
			return nil, failure{err}
		}
		return st, nil
	}
	path, err := eventsFile(s.Process.Events)
	if err != nil {
		return nil, err
	}
	f, err := events.Open(events.Config{Path: path, MaxSize: s.Process.EventsMaxSize})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// teeEvents sends each page event to every sink, in order, and stops at
// the first that fails.
type teeEvents []crawl.Events

func (t teeEvents) Page(ctx context.Context, e crawl.PageEvent) error {
	for _, s := range t {
		if err := s.Page(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// brokenProcessors says, one line each, which processors were taken as
// broken and how many pages went on without them.
func (ps *processors) brokenProcessors() []string {
	if ps.runner == nil {
		return nil
	}
	var out []string
	for _, st := range ps.runner.States() {
		if st.Broken || st.Skipped > 0 {
			why := st.Why
			if why == "" {
				why = "it answers again"
			}
			out = append(out, fmt.Sprintf("%s taken as broken (%s): %d pages went on without it", st.Name, why, st.Skipped))
		}
	}
	return out
}
