package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

// ChangeKind says how this node's hold on a shard changed.
type ChangeKind int

const (
	// Acquired: the node holds the shard's lease at Epoch and its claim
	// is in the shard's log; restore the shard, read its log from
	// applied_seq+1 and start fetching.
	Acquired ChangeKind = iota + 1
	// Revoked: the assignment moved the shard away. Stop fetching it,
	// flush its outcomes and snapshot it, then call Release (or let
	// Config.Handoff pass). The lease is kept meanwhile, so the next
	// owner cannot start before the handoff.
	Revoked
	// Lost: the lease was not confirmed in time, or a publish was fenced.
	// Stop fetching at once: another node may take the shard soon.
	Lost
)

func (k ChangeKind) String() string {
	switch k {
	case Acquired:
		return "acquired"
	case Revoked:
		return "revoked"
	case Lost:
		return "lost"
	}
	return "unknown"
}

// Change is a change of this node's hold on a shard.
type Change struct {
	Kind  ChangeKind
	Shard int
	Epoch uint64    // the lease's epoch: its revision when claimed
	At    time.Time // when the change took effect on this node
	Err   error     // why a shard was lost
}

// Errors of shard ownership.
var (
	ErrNotOwner     = errors.New("jetstream: this node does not own the shard")
	ErrFenced       = errors.New("jetstream: fenced: another node claimed the shard")
	ErrLeaseExpired = errors.New("jetstream: lease renewal not confirmed in time")
)

// Node is one crawler node's membership in a crawl: it keeps its member
// key alive, campaigns for and serves as the leader that writes the
// assignment, claims and renews the leases of the shards assigned to it,
// and publishes and reads the shards' logs.
//
// Run does the periodic work; Owns, PublishOutcome, PublishLinks, Read,
// Release and Purge may be called from any goroutine while it runs.
// After Run returns, Leave hands everything back.
type Node struct {
	cfg   Config
	nc    *nats.Conn
	js    js.JetStream
	log   *slog.Logger
	codec *cluster.Codec

	control, members, leases js.KeyValue
	streams                  []js.Stream
	settings                 []byte // the crawl's, as stored when it was created
	maker                    *maker // finds and makes the crawl's JetStream objects

	mu             sync.Mutex
	held           map[int]*lease
	fences         map[int]*sync.Mutex // serialize each shard's outcome publishes
	leaderRev      uint64              // revision of our leader key; 0 when not leader
	leaderDeadline time.Time
	assignment     cluster.Assignment
	stats          json.RawMessage
	lastMembers    map[string]bool // the keys Members found last (members.go)
	// firstMembers and firstSince: the members the leader saw while no
	// assignment existed yet, and since when (Config.StartGrace);
	// firstLook: when it first looked.
	firstMembers string
	firstSince   time.Time
	firstLook    time.Time // the leader's first look at the members
}

// lease is a shard lease this node holds.
type lease struct {
	epoch    uint64    // revision when claimed
	rev      uint64    // revision of the last confirmed write
	deadline time.Time // (monotonic) the shard counts as owned before it
	revoked  time.Time // non-zero once the assignment moved the shard away
	claimed  bool      // the claim is in the shard's log: the shard may be used
	fenceSeq uint64    // stream sequence of the last outcome event on the shard's subject
}

// usable reports whether the shard may be fetched at now: claimed, not
// revoked, and confirmed recently enough.
func (l *lease) usable(now time.Time) bool {
	return l != nil && l.claimed && l.revoked.IsZero() && now.Before(l.deadline)
}

// Close releases the node's codec. It does not touch the connection.
func (n *Node) Close() error {
	if n.codec != nil { // nil in an observer
		n.codec.Close()
	}
	return nil
}

// CrawlSettings are the crawl's settings as stored when it was created
// (which Compatible accepted for this node's).
func (n *Node) CrawlSettings() []byte { return slices.Clone(n.settings) }

// Codec is the node's event codec, which its ShardLog encodes events with.
func (n *Node) Codec() *cluster.Codec { return n.codec }

// Owns reports whether this node may fetch shard p's hosts now, and the
// epoch of its lease. It is computed at each call from the node's
// monotonic clock: it turns false TTL×2/3 after the last confirmed
// renewal was sent, even if Run is stalled, and at once when the shard is
// revoked, released or fenced. Check it before every fetch.
func (n *Node) Owns(p int) (epoch uint64, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.held[p]
	if !l.usable(time.Now()) {
		return 0, false
	}
	return l.epoch, true
}

// mayPublish reports whether this node may publish shard p's outcomes:
// as Owns, but also while the shard is revoked and not yet released,
// for the fetches that were in flight when it was revoked. The epoch is
// that of the lease held, if any, even when it may not.
func (n *Node) mayPublish(p int) (epoch uint64, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.held[p]
	if l == nil {
		return 0, false
	}
	return l.epoch, l.claimed && time.Now().Before(l.deadline)
}

// Revoked reports whether the assignment moved shard p away from this
// node while it still holds the shard's lease: a handover is under way
// (Owns is false for that reason, not for a lease not confirmed).
func (n *Node) Revoked(p int) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.held[p]
	return l != nil && !l.revoked.IsZero()
}

// Owned lists the shards Owns is true for, in increasing order.
func (n *Node) Owned() []int {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := time.Now()
	var s []int
	for p, l := range n.held {
		if l.usable(now) {
			s = append(s, p)
		}
	}
	slices.Sort(s)
	return s
}

// IsLeader reports whether this node holds the leader key, as last
// confirmed.
func (n *Node) IsLeader() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.leaderRev != 0 && time.Now().Before(n.leaderDeadline)
}

// Assignment is the last assignment this node has seen.
func (n *Node) Assignment() cluster.Assignment {
	n.mu.Lock()
	defer n.mu.Unlock()
	return cluster.Assignment{Owners: slices.Clone(n.assignment.Owners)}
}

// SetStats sets the JSON the node publishes in its member key (pages/s,
// totals: whatever the status pages show).
func (n *Node) SetStats(stats json.RawMessage) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stats = slices.Clone(stats)
}

// memberValue is the value of a node's key in the members bucket.
type memberValue struct {
	Capacity int             `json:"capacity"`
	Stats    json.RawMessage `json:"stats,omitempty"`
}

func (n *Node) notify(c Change) {
	if c.At.IsZero() {
		c.At = time.Now()
	}
	n.log.Debug("cluster: shard "+c.Kind.String(), "shard", c.Shard, "epoch", c.Epoch, "err", c.Err)
	if n.cfg.Notify != nil {
		n.cfg.Notify(c)
	}
}

// Run keeps the node's keys alive and its shards in line with the
// assignment until ctx ends; it returns ctx's error. Every TTL/5 it
// renews its member key, campaigns for or renews the leader key (and, as
// leader, writes a new assignment when the members changed), renews its
// leases, drops those not confirmed in time, and claims, revokes and
// releases shards as the assignment says; a new assignment is acted on
// as soon as it is seen.
func (n *Node) Run(ctx context.Context) error {
	var updates <-chan js.KeyValueEntry
	w, err := n.control.Watch(ctx, keyAssignment)
	if err != nil {
		n.log.Warn("cluster: cannot watch the assignment; polling it", "err", err)
	} else {
		defer func() { _ = w.Stop() }()
		updates = w.Updates()
	}
	t := time.NewTicker(n.cfg.tick())
	defer t.Stop()
	for {
		// The three renewals are independent: one slow bucket (a RAFT
		// leader moving) must not delay the others.
		var wg sync.WaitGroup
		wg.Go(func() { n.heartbeat(ctx) })
		wg.Go(func() { n.lead(ctx) })
		wg.Go(func() { n.renew(ctx) })
		wg.Wait()
		if updates == nil {
			n.pollAssignment(ctx)
		}
		n.reconcile(ctx)
		if err := n.untilTick(ctx, t, &updates); err != nil {
			return err
		}
	}
}

// untilTick acts on each new assignment until the next tick or the end
// of ctx.
func (n *Node) untilTick(ctx context.Context, t *time.Ticker, updates *<-chan js.KeyValueEntry) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		case e, ok := <-*updates:
			if !ok {
				*updates = nil // the watcher is gone: poll at each tick
				return nil
			}
			if e == nil {
				continue // the end of the initial values
			}
			n.setAssignment(e)
			n.reconcile(ctx)
		}
	}
}

func (n *Node) setAssignment(e js.KeyValueEntry) {
	if e.Operation() != js.KeyValuePut {
		return
	}
	var a cluster.Assignment
	if err := a.UnmarshalJSON(e.Value()); err != nil {
		n.log.Error("cluster: unreadable assignment", "err", err)
		return
	}
	if len(a.Owners) != n.cfg.Shards {
		n.log.Error("cluster: assignment of the wrong size", "shards", len(a.Owners), "want", n.cfg.Shards)
		return
	}
	n.mu.Lock()
	n.assignment = a
	n.mu.Unlock()
}

func (n *Node) pollAssignment(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	if e, err := n.control.Get(ctx, keyAssignment); err == nil {
		n.setAssignment(e)
	}
}

// kvPut writes key in bucket with a per-message TTL; with expect, only
// if the key's last revision is *expect.
func (n *Node) kvPut(ctx context.Context, bucket, key string, val []byte, ttl time.Duration, expect *uint64) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	m := nats.NewMsg("$KV." + bucket + "." + key)
	m.Data = val
	opts := []js.PublishOpt{js.WithMsgTTL(ttl)}
	if expect != nil {
		opts = append(opts, js.WithExpectLastSequencePerSubject(*expect))
	}
	ack, err := n.js.PublishMsg(ctx, m, opts...)
	if err != nil {
		return 0, err
	}
	return ack.Sequence, nil
}

// wrongSeq reports a failed compare-and-set: the subject's last sequence
// was not the one expected (10071; 10164 from replicated streams).
func wrongSeq(err error) bool {
	var api *js.APIError
	return errors.As(err, &api) && (api.ErrorCode == js.JSErrCodeStreamWrongLastSequence || api.ErrorCode == js.JSErrCodeStreamWrongLastSequenceConstant)
}
