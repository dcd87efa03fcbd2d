package jetstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"

	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/crawl"
)

// PublishLinks publishes msg, an encoded KindLinks event (ShardLog's
// Append encodes a cluster.Node's link batches), to shard p's links
// subject. It retries transient failures, a full stream included
// (backpressure), until ctx ends. Any node may publish links for any
// shard.
func (n *Node) PublishLinks(ctx context.Context, p int, msg []byte) error {
	return n.publish(ctx, Subject(n.cfg.Crawl, cluster.KindLinks, p), msg)
}

// PublishControl publishes an operator's command for shard p.
func (n *Node) PublishControl(ctx context.Context, p int, payload []byte) error {
	msg, err := n.codec.Encode(nil, cluster.Event{Kind: cluster.KindControl, Shard: p, Payload: payload})
	if err != nil {
		return err
	}
	return n.publish(ctx, Subject(n.cfg.Crawl, cluster.KindControl, p), msg)
}

func (n *Node) publish(ctx context.Context, subject string, msg []byte) error {
	_, err := retry(ctx, n.cfg.RequestTimeout, func(ctx context.Context) (uint64, error) {
		return n.pubAck(ctx, &nats.Msg{Subject: subject, Data: msg})
	})
	if err != nil {
		return fmt.Errorf("jetstream: publish to %s: %w", subject, err)
	}
	return nil
}

func (n *Node) fenceLock(p int) *sync.Mutex {
	n.mu.Lock()
	defer n.mu.Unlock()
	m := n.fences[p]
	if m == nil {
		m = &sync.Mutex{}
		n.fences[p] = m
	}
	return m
}

// PublishOutcome appends an outcome event with payload to shard p's log,
// as its owner, and returns its stream sequence. It is fenced: it
// expects the outcome subject's last sequence to be the one this node
// last wrote, so once another node has claimed the shard the publish is
// refused, the shard is dropped (a Lost change) and ErrFenced returned.
// It returns ErrNotOwner when the node holds no confirmed lease of p: a
// shard revoked but not yet released still takes the outcomes of the
// fetches that were in flight (the handoff). Transient failures are
// retried while the node owns the shard. Calls for one shard are
// serialized.
func (n *Node) PublishOutcome(ctx context.Context, p int, payload []byte) (uint64, error) {
	return n.publishOutcome(ctx, p, nil, payload)
}

// publishOutcome is PublishOutcome of an outcome event that carries
// links of shard p (cluster.Node puts a page's links to its own shard in
// its outcome event: one message fewer).
func (n *Node) publishOutcome(ctx context.Context, p int, links []crawl.Link, payload []byte) (uint64, error) {
	if len(payload) == 0 {
		return 0, errors.New("jetstream: an outcome needs a payload (an empty one is a claim)")
	}
	mu := n.fenceLock(p)
	mu.Lock()
	defer mu.Unlock()
	epoch, ok := n.mayPublish(p)
	if !ok {
		n.dropUnconfirmed(p, epoch)
		return 0, ErrNotOwner
	}
	n.mu.Lock()
	last := n.held[p].fenceSeq
	n.mu.Unlock()
	seq, err := n.publishFenced(ctx, p, epoch, last, links, payload)
	switch {
	case errors.Is(err, ErrNotOwner):
		n.dropUnconfirmed(p, epoch)
	case err == nil:
		n.mu.Lock()
		if l := n.held[p]; l != nil && l.epoch == epoch {
			l.fenceSeq = seq
		}
		n.mu.Unlock()
	case errors.Is(err, ErrFenced):
		n.mu.Lock()
		l := n.held[p]
		var rev uint64
		if l != nil && l.epoch == epoch {
			rev = l.rev
		}
		n.mu.Unlock()
		if rev != 0 {
			if c, ok := n.drop(p, rev, err); ok {
				n.notify(c)
			}
		}
	}
	return seq, err
}

// dropUnconfirmed drops shard p's lease when it is still claimed at
// epoch and not revoked, and reports it Lost. An outcome refused because
// the lease is not confirmed now (ErrNotOwner: its renewals went
// unanswered past the margin) makes the caller give the shard up, as a
// fenced one does; a lease kept would be confirmed again once the
// cluster answers, held and renewed by a node that no longer uses it,
// and never claimed by another: the shard's URLs would wait for ever.
// Dropped, its key expires and the shard is claimed again, its state
// replayed from the log. A revoked lease is left to the handover, which
// releases it.
func (n *Node) dropUnconfirmed(p int, epoch uint64) {
	n.mu.Lock()
	l := n.held[p]
	var rev uint64
	if l != nil && l.epoch == epoch && l.claimed && l.revoked.IsZero() {
		rev = l.rev
	}
	n.mu.Unlock()
	if rev == 0 {
		return
	}
	if c, ok := n.drop(p, rev, fmt.Errorf("%w: an outcome could not be written", ErrLeaseExpired)); ok {
		n.notify(c)
	}
}

// publishFenced publishes an outcome of epoch on shard p expecting the
// outcome subject's last sequence to be last. A refusal is a fence unless
// the subject's last event is of this epoch: then an earlier attempt
// whose answer was lost did land, and it is adopted (it is this very
// event when the bytes match, otherwise the publish is retried after it).
func (n *Node) publishFenced(ctx context.Context, p int, epoch, last uint64, links []crawl.Link, payload []byte) (uint64, error) {
	msg, err := n.codec.Encode(nil, cluster.Event{Kind: cluster.KindOutcome, Shard: p, Epoch: epoch, Links: links, Payload: payload})
	if err != nil {
		return 0, err
	}
	subject := Subject(n.cfg.Crawl, cluster.KindOutcome, p)
	wait := 50 * time.Millisecond
	for {
		cctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
		seq, err := n.pubAck(cctx, expectLast(&nats.Msg{Subject: subject, Data: msg}, last))
		cancel()
		if err == nil {
			return seq, nil
		}
		if wrongSeq(err) {
			seq, data, gerr := n.lastEvent(ctx, p, subject)
			if gerr != nil {
				return 0, fmt.Errorf("jetstream: outcome of shard %d: %w", p, gerr)
			}
			e, derr := n.codec.Decode(data)
			if derr != nil || e.Epoch != epoch {
				return 0, fmt.Errorf("%w: shard %d at epoch %d, subject's last event is of epoch %d", ErrFenced, p, epoch, e.Epoch)
			}
			if bytes.Equal(data, msg) {
				return seq, nil
			}
			last = seq
			continue
		}
		if !transient(err) {
			return 0, fmt.Errorf("jetstream: outcome of shard %d: %w", p, err)
		}
		if _, ok := n.Owns(p); !ok {
			return 0, ErrNotOwner
		}
		if err := sleep(ctx, wait); err != nil {
			return 0, err
		}
		wait = min(2*wait, time.Second)
	}
}

// Msg is one event of a shard's log as Read delivers it.
type Msg struct {
	Seq   uint64 // stream sequence: what applied_seq records
	Time  time.Time
	Event cluster.Event
}

// Read delivers shard p's events from stream sequence from on (1 or 0:
// from the start), in stream order, to fn, until ctx ends (it then
// returns ctx's error) or fn returns an error (which it returns). It
// reads with an ordered consumer: no acks, and the client recreates it
// from the last delivered sequence if it falls behind or a server goes
// away. When that fails too (the consumer was placed on a server that
// died, or its creation went unanswered while the cluster elected new
// leaders), Read creates a new one after the last event delivered, again
// until it gets one. Run it in the shard owner's goroutine of choice.
func (n *Node) Read(ctx context.Context, p int, from uint64, fn func(Msg) error) error {
	wait := 100 * time.Millisecond
	for {
		next, err := n.read(ctx, p, from, fn)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ferr fnError
		if errors.As(err, &ferr) {
			return ferr.err
		}
		if next > from {
			from, wait = next, 100*time.Millisecond
		}
		n.log.Warn("cluster: shard log reader failed; reading again", "shard", p, "from", from, "err", err)
		if err := sleep(ctx, wait); err != nil {
			return err
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// fnError is an error of Read's fn, which ends Read.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// read is one consumer's part of Read: it returns the sequence to read
// from next (after the last event delivered), and why it stopped.
func (n *Node) read(ctx context.Context, p int, from uint64, fn func(Msg) error) (uint64, error) {
	cfg := js.OrderedConsumerConfig{
		FilterSubjects: []string{shardFilter(n.cfg.Crawl, p)},
		// One attempt when the client recreates the consumer (each
		// bounded to 10 s by the client): its own retries, unbounded by
		// default, ignore ctx, so a reader whose consumer was lost with
		// its server could not be stopped while the cluster had no meta
		// leader, and whoever waited for it to stop (a shard being
		// dropped or handed over) waited as long. Read's loop retries
		// instead, from the last event delivered, until ctx ends.
		MaxResetAttempts: 1,
	}
	if from > 1 {
		cfg.DeliverPolicy = js.DeliverByStartSequencePolicy
		cfg.OptStartSeq = from
	}
	c, err := retry(ctx, n.cfg.RequestTimeout, func(ctx context.Context) (js.Consumer, error) {
		return n.stream(p).OrderedConsumer(ctx, cfg)
	})
	if err != nil {
		return from, fmt.Errorf("jetstream: reader of shard %d: %w", p, err)
	}
	it, err := c.Messages()
	if err != nil {
		return from, fmt.Errorf("jetstream: reader of shard %d: %w", p, err)
	}
	defer it.Stop()
	for {
		m, err := it.Next(js.NextContext(ctx))
		if err != nil {
			return from, fmt.Errorf("jetstream: reader of shard %d: %w", p, err)
		}
		md, err := m.Metadata()
		if err != nil {
			return from, fmt.Errorf("jetstream: reader of shard %d: %w", p, err)
		}
		e, err := n.codec.Decode(m.Data())
		if err != nil {
			// Not a transient failure: reading it again would fail again.
			return from, fnError{fmt.Errorf("jetstream: shard %d, sequence %d: %w", p, md.Sequence.Stream, err)}
		}
		if err := fn(Msg{Seq: md.Sequence.Stream, Time: md.Timestamp, Event: e}); err != nil {
			return from, fnError{err}
		}
		from = md.Sequence.Stream + 1
	}
}

// Purge removes shard p's events up to and including stream sequence
// upTo (a snapshot holds them), leaving the other shards of its stream
// alone.
func (n *Node) Purge(ctx context.Context, p int, upTo uint64) error {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	err := n.stream(p).Purge(ctx, js.WithPurgeSubject(shardFilter(n.cfg.Crawl, p)), js.WithPurgeSequence(upTo+1))
	if err != nil {
		return fmt.Errorf("jetstream: purge of shard %d: %w", p, err)
	}
	return nil
}
