package jetstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

// ShardLog is the node's shard logs as a cluster.Node reads and writes
// them: links published by any node, outcomes fenced by this node's own
// lease (PublishOutcome), claims made when the lease is taken (claim).
func (n *Node) ShardLog() cluster.ShardLog { return shardLog{n} }

type shardLog struct{ n *Node }

var _ cluster.ShardLog = shardLog{}

// Append publishes e. Links return position 0 (a cluster.Node needs no
// position for them); an outcome is fenced by this node's lease, not by
// expect: PublishOutcome tracks the shard's last outcome itself.
func (l shardLog) Append(ctx context.Context, e cluster.Event, _ uint64) (uint64, error) {
	switch {
	case e.Kind == cluster.KindLinks:
		msg, err := l.n.codec.Encode(nil, e)
		if err != nil {
			return 0, err
		}
		return 0, l.n.PublishLinks(ctx, e.Shard, msg)
	case e.Kind == cluster.KindOutcome && len(e.Payload) > 0:
		seq, err := l.n.publishOutcome(ctx, e.Shard, e.Links, e.Payload)
		if errors.Is(err, ErrFenced) || errors.Is(err, ErrNotOwner) {
			return 0, fmt.Errorf("%w (%w)", cluster.ErrFenced, err)
		}
		return seq, err
	case e.Kind == cluster.KindControl:
		return 0, l.n.PublishControl(ctx, e.Shard, e.Payload)
	}
	return 0, fmt.Errorf("jetstream: append of a %q event: claims are made with the lease", byte(e.Kind))
}

// Claim returns the position of the claim this node made when it took
// shard p's lease at epoch; ErrFenced when it does not hold that lease.
func (l shardLog) Claim(_ context.Context, p int, epoch, _ uint64) (uint64, error) {
	n := l.n
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.held[p]
	if h == nil || h.epoch != epoch || !h.claimed {
		return 0, fmt.Errorf("%w: shard %d is not held at epoch %d", cluster.ErrFenced, p, epoch)
	}
	return h.fenceSeq, nil
}

// Last is the stream sequence of shard p's last event, and of its last
// outcome event. One request when the shard's last event is an outcome
// (a claim or an outcome: what a takeover, which asks just after its
// claim, and a quiet shard mostly find), two otherwise; it asked each
// of the three subjects before (2026-11-27).
func (l shardLog) Last(ctx context.Context, p int) (last, lastOutcome uint64, err error) {
	n := l.n
	outcomes := Subject(n.cfg.Crawl, cluster.KindOutcome, p)
	m, err := retry(ctx, n.cfg.RequestTimeout, func(ctx context.Context) (lastMsg, error) {
		return n.lastMsg(ctx, p, shardFilter(n.cfg.Crawl, p))
	})
	if err != nil {
		return 0, 0, fmt.Errorf("jetstream: last event of shard %d: %w", p, err)
	}
	if m.seq == 0 || m.subject == outcomes {
		return m.seq, m.seq, nil
	}
	lastOutcome, err = retry(ctx, n.cfg.RequestTimeout, func(ctx context.Context) (uint64, error) {
		return n.lastOnSubject(ctx, p, outcomes)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("jetstream: last outcome of shard %d: %w", p, err)
	}
	return m.seq, lastOutcome, nil
}

// Read delivers shard p's events after position from; it returns nil
// when ctx ends.
func (l shardLog) Read(ctx context.Context, p int, from uint64, fn func(uint64, cluster.Event) error) error {
	err := l.n.Read(ctx, p, from+1, func(m Msg) error { return fn(m.Seq, m.Event) })
	if ctx.Err() != nil {
		return nil
	}
	return err
}
