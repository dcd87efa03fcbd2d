package jetstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"
)

// A crawl's JetStream objects (its streams and buckets) are made by the
// node that created the crawl and found by the others.
//
// On a clustered JetStream, identical creations of one stream that
// arrive together can all go unanswered although the stream is made:
// three nodes opening a crawl at once on a just-formed three-server
// cluster each waited out the request timeout (5 s) on nearly every one
// of the crawl's streams, retrying in step and meeting again on the
// next; opening took 26 s to well over a minute. So a node looks before
// it makes (a lookup is a read, not a RAFT proposal), waits only
// briefly for the answer to a creation (when it does not come, the next
// lookup tells whether the object was made anyway), and a node that did
// not create the crawl gives the creator time to make each object
// before making it itself (docs/cluster.md).

// object is one JetStream object of the crawl, backed by a stream.
type object[T any] struct {
	what   string // for logs: "stream godwit_c_3"
	stream string // the backing stream's name
	// fits reports whether an existing object's stream is as this node
	// would make it; when not, make updates it.
	fits func(js.StreamConfig) bool
	// open returns a handle on the existing object backed by s.
	open func(context.Context, js.Stream) (T, error)
	// make creates the object, or updates it to this node's settings.
	make func(context.Context) (T, error)
}

// maker finds and makes a node's objects.
type maker struct {
	js      js.JetStream
	timeout time.Duration // bounds each request
	log     *slog.Logger
	// patience is how long the node waits for the crawl's creator to
	// make a missing object before making it itself (a time.Duration):
	// 0 for the creator (and before the creator is known). Once it has
	// run out, the node makes whatever else is missing at once.
	patience atomic.Int64
}

// firstTimeout is how long the answer to a lookup or a creation is
// first awaited. An uncontended creation of a replicated stream is
// answered in tens of milliseconds; a lookup of a stream being made goes
// unanswered until the stream has a leader. Each unanswered request
// doubles it, up to the request timeout.
const firstTimeout = time.Second

// ensure returns o, found or made, retrying until ctx ends on errors
// that may go away by themselves.
func ensure[T any](ctx context.Context, m *maker, o object[T]) (T, error) {
	var zero T
	timeout := min(firstTimeout, m.timeout)
	patience := time.Duration(m.patience.Load())
	waitUntil := time.Now().Add(patience)
	wait := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		s, err := withTimeout(ctx, timeout, func(ctx context.Context) (js.Stream, error) { return m.js.Stream(ctx, o.stream) })
		switch {
		case err == nil && o.fits(s.CachedInfo().Config):
			return retryLogged(ctx, m.timeout, m.log, o.what, func(ctx context.Context) (T, error) { return o.open(ctx, s) })
		case err == nil:
			return retryLogged(ctx, m.timeout, m.log, o.what, o.make)
		case errors.Is(err, js.ErrStreamNotFound):
			if patience > 0 && time.Now().Before(waitUntil) {
				err = errWaitingForCreator
				break
			}
			if patience > 0 {
				m.log.Warn("cluster: the crawl's creator has not made what it needs; this node makes it", "object", o.what, "waited", patience)
				m.patience.Store(0)
				patience = 0
			}
			var v T
			v, err = withTimeout(ctx, timeout, o.make)
			if err == nil {
				return v, nil
			}
			if !transient(err) {
				return zero, err
			}
		case !transient(err):
			return zero, err
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
			timeout = min(2*timeout, m.timeout)
		}
		if !errors.Is(err, errWaitingForCreator) && (attempt == 3 || attempt%10 == 0) {
			m.log.Warn("cluster: JetStream does not answer yet; trying again", "waiting_for", o.what, "attempts", attempt, "err", err)
		}
		// Jitter keeps nodes that met on one object from meeting again.
		if serr := sleep(ctx, wait/2+rand.N(wait)); serr != nil {
			return zero, fmt.Errorf("%w (last error: %w)", serr, err)
		}
		wait = min(2*wait, time.Second)
	}
}

// errWaitingForCreator marks a round of ensure that waited for the
// crawl's creator.
var errWaitingForCreator = errors.New("waiting for the crawl's creator")

// withTimeout calls f with a context that ends after timeout.
func withTimeout[T any](ctx context.Context, timeout time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return f(ctx)
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
