// Package lifecycle assembles a long-running command from components,
// each started beside its stop, in the manner of Prometheus' run.Group
// (github.com/oklog/run): a command lists its components in start order,
// and however it ends, after a failure to start one or after its work,
// the components started are stopped once each, in reverse order.
//
//	var g lifecycle.Group
//	defer g.Stop()
//	var fr *frontier.Frontier
//	if err := g.Start(ctx, "frontier", func(context.Context) (lifecycle.Stop, error) {
//		var err error
//		fr, err = frontier.Open(opts)
//		return fr.Close, err
//	}); err != nil {
//		return err // what was started before it is stopped already
//	}
//
// Adding a component is one entry; its stop is written where it starts.
// Unlike run.Group, whose actors all run until the first returns, a
// Group's components are started one after another, each able to use
// the ones before it, and stop when the command says so: a crawl's
// components are stores and servers around one piece of work (the
// crawl's run), not peers.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Stop undoes a component's start. It is called once.
type Stop func() error

// StartFunc starts a component and returns how to stop it (nil: nothing
// to undo). A component that fails to start returns an error, and has
// undone whatever it did itself.
type StartFunc func(ctx context.Context) (Stop, error)

// A Group is the components of a command, in the order they started.
// Its zero value is ready to use. It is safe for concurrent use, though
// commands start their components from one goroutine.
type Group struct {
	mu      sync.Mutex
	started []component
	stopped bool
	err     error // Stop's result, once stopped
}

type component struct {
	name string
	stop Stop
}

// Start starts a component named name. When start fails, the components
// started before it are stopped (in reverse order) and the error, named
// after the component, is returned joined with theirs; the Group is then
// stopped. Starting after Stop is an error.
func (g *Group) Start(ctx context.Context, name string, start StartFunc) error {
	g.mu.Lock()
	stopped := g.stopped
	g.mu.Unlock()
	if stopped {
		return fmt.Errorf("%s: not started: the command is stopping", name)
	}
	stop, err := start(ctx)
	if err != nil {
		return errors.Join(err, g.Stop())
	}
	g.mu.Lock()
	g.started = append(g.started, component{name, stop})
	g.mu.Unlock()
	return nil
}

// Add adds a component that needs no start, only a stop: something the
// command made itself whose end belongs in the shutdown order.
func (g *Group) Add(name string, stop Stop) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.started = append(g.started, component{name, stop})
}

// Stop stops every component started, last first, once each; later
// calls return the first call's result. A stop's error is named after
// its component and does not keep the others from stopping.
func (g *Group) Stop() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return g.err
	}
	g.stopped = true
	var errs []error
	for i := len(g.started) - 1; i >= 0; i-- {
		c := g.started[i]
		if c.stop == nil {
			continue
		}
		if err := c.stop(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	g.started = nil
	g.err = errors.Join(errs...)
	return g.err
}
