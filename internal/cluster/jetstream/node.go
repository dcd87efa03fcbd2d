package jetstream

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"

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
	// assignment existed yet, and since when (Config.StartGrace).
	firstMembers string
	firstSince   time.Time
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

func (n *Node) heartbeat(ctx context.Context) {
	n.mu.Lock()
	v, err := json.Marshal(memberValue{Capacity: n.cfg.Capacity, Stats: n.stats})
	n.mu.Unlock()
	if err == nil {
		_, err = n.kvPut(ctx, bucketName(n.cfg.Crawl, "members"), n.cfg.Node, v, n.cfg.MemberTTL, nil)
	}
	if err != nil && ctx.Err() == nil {
		n.log.Warn("cluster: member key not renewed", "err", err)
	}
}

// lead renews the leader key or campaigns for it, and as leader writes
// the assignment the members call for.
func (n *Node) lead(ctx context.Context) {
	n.mu.Lock()
	rev := n.leaderRev
	n.mu.Unlock()
	sent := time.Now()
	var next uint64
	var err error
	lost := false // the key is certainly not ours (any more)
	if rev != 0 {
		next, err = n.kvPut(ctx, bucketName(n.cfg.Crawl, "control"), keyLeader, []byte(n.cfg.Node), n.cfg.LeaderTTL, &rev)
		if lost = wrongSeq(err); lost {
			n.log.Info("cluster: lost the leadership")
		}
	} else {
		cctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
		next, err = n.control.Create(cctx, keyLeader, []byte(n.cfg.Node), js.KeyTTL(n.cfg.LeaderTTL))
		cancel()
		if err == nil {
			n.log.Info("cluster: elected leader", "revision", next)
		}
	}
	n.mu.Lock()
	switch {
	case err == nil:
		n.leaderDeadline = sent.Add(n.cfg.LeaderTTL * 2 / 3)
		n.leaderRev = next
	case lost || !time.Now().Before(n.leaderDeadline):
		// A renewal that merely timed out keeps the revision: the next
		// one may still succeed.
		n.leaderRev = 0
	}
	leader := n.leaderRev != 0
	n.mu.Unlock()
	if leader {
		if err := n.rebalance(ctx); err != nil && ctx.Err() == nil {
			n.log.Warn("cluster: assignment not written", "err", err)
		}
	}
}

// rebalance computes the assignment from the live members and writes it
// with compare-and-set when it changed.
func (n *Node) rebalance(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	members, err := n.Members(ctx)
	if err != nil {
		return err
	}
	if len(members) == 0 {
		return nil
	}
	ms := make([]cluster.Member, len(members))
	for i, m := range members {
		ms[i] = cluster.Member{ID: m.ID, Capacity: m.Capacity}
	}
	var prev cluster.Assignment
	var rev uint64
	e, err := n.control.Get(ctx, keyAssignment)
	switch {
	case err == nil:
		rev = e.Revision()
		if err := prev.UnmarshalJSON(e.Value()); err != nil {
			return err
		}
	case errors.Is(err, js.ErrKeyNotFound):
	default:
		return err
	}
	if rev == 0 && !n.membersSettled(ms) {
		return nil
	}
	next := cluster.Assign(prev, ms, n.cfg.Shards)
	if rev != 0 && next.Equal(prev) {
		return nil
	}
	b, err := next.MarshalJSON()
	if err != nil {
		return err
	}
	if rev == 0 {
		_, err = n.control.Create(ctx, keyAssignment, b)
	} else {
		_, err = n.control.Update(ctx, keyAssignment, b, rev)
	}
	if err != nil {
		return err
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	n.log.Info("cluster: new assignment", "members", strings.Join(ids, ","), "moved", prev.Moved(next))
	return nil
}

// membersSettled reports whether the members ms have been the same for
// Config.StartGrace, as seen by this leader's successive looks.
func (n *Node) membersSettled(ms []cluster.Member) bool {
	if n.cfg.StartGrace < 0 {
		return true
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	slices.Sort(ids)
	key := strings.Join(ids, ",")
	now := time.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	if key != n.firstMembers || n.firstSince.IsZero() {
		n.firstMembers, n.firstSince = key, now
		n.log.Info("cluster: waiting for the members to settle before the first assignment", "members", key, "grace", n.cfg.StartGrace)
		return false
	}
	return now.Sub(n.firstSince) >= n.cfg.StartGrace
}

// renew renews every lease held, revoked ones included (a handoff keeps
// its lease), with one asynchronous publish each, and drops the leases
// whose renewal was refused or has not been confirmed in time.
func (n *Node) renew(ctx context.Context) {
	type pending struct {
		p    int
		rev  uint64
		sent time.Time
		f    js.PubAckFuture
	}
	n.mu.Lock()
	shards := make([]int, 0, len(n.held))
	revs := make([]uint64, 0, len(n.held))
	for p, l := range n.held {
		shards = append(shards, p)
		revs = append(revs, l.rev)
	}
	n.mu.Unlock()
	subject := "$KV." + bucketName(n.cfg.Crawl, "leases") + "."
	var ps []pending
	for i, p := range shards {
		m := nats.NewMsg(subject + leaseKey(p))
		m.Data = []byte(n.cfg.Node)
		sent := time.Now()
		f, err := n.js.PublishMsgAsync(m, js.WithMsgTTL(n.cfg.LeaseTTL), js.WithExpectLastSequencePerSubject(revs[i]))
		if err != nil {
			n.log.Warn("cluster: lease renewal not sent", "shard", p, "err", err)
			continue
		}
		ps = append(ps, pending{p, revs[i], sent, f})
	}
	timeout := time.NewTimer(n.cfg.RequestTimeout)
	defer timeout.Stop()
	var lost []Change
	for _, r := range ps {
		select {
		case ack := <-r.f.Ok():
			n.mu.Lock()
			if l := n.held[r.p]; l != nil && l.rev == r.rev {
				l.rev = ack.Sequence
				l.deadline = r.sent.Add(n.cfg.margin())
			}
			n.mu.Unlock()
		case err := <-r.f.Err():
			if wrongSeq(err) {
				if c, ok := n.drop(r.p, r.rev, fmt.Errorf("%w: renewal refused: %w", ErrFenced, err)); ok {
					lost = append(lost, c)
				}
			}
		case <-timeout.C:
		case <-ctx.Done():
		}
	}
	now := time.Now()
	n.mu.Lock()
	for p, l := range n.held {
		if !now.Before(l.deadline) {
			delete(n.held, p)
			lost = append(lost, Change{Kind: Lost, Shard: p, Epoch: l.epoch, At: l.deadline, Err: ErrLeaseExpired})
		}
	}
	n.mu.Unlock()
	for _, c := range lost {
		n.notify(c)
	}
}

// drop forgets shard p's lease if it is still at revision rev (any
// revision when rev is 0) and returns the Lost change to report.
func (n *Node) drop(p int, rev uint64, err error) (Change, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.held[p]
	if l == nil || rev != 0 && l.rev != rev {
		return Change{}, false
	}
	delete(n.held, p)
	return Change{Kind: Lost, Shard: p, Epoch: l.epoch, At: time.Now(), Err: err}, true
}

// reconcile claims the shards assigned to this node that it does not
// hold, revokes those assigned elsewhere, and releases revoked shards
// whose handoff time is over.
func (n *Node) reconcile(ctx context.Context) {
	now := time.Now()
	var claim, release []int
	var revoked []Change
	n.mu.Lock()
	mine := map[int]bool{}
	for p, o := range n.assignment.Owners {
		if o == n.cfg.Node {
			mine[p] = true
			if n.held[p] == nil {
				claim = append(claim, p)
			}
		}
	}
	for p, l := range n.held {
		if !mine[p] && l.revoked.IsZero() {
			l.revoked = now
			revoked = append(revoked, Change{Kind: Revoked, Shard: p, Epoch: l.epoch, At: now})
		}
		if !l.revoked.IsZero() && now.Sub(l.revoked) >= n.cfg.Handoff {
			release = append(release, p)
		}
	}
	n.mu.Unlock()
	slices.SortFunc(revoked, func(a, b Change) int { return cmp.Compare(a.Shard, b.Shard) })
	for _, c := range revoked {
		n.notify(c)
	}
	for _, p := range release {
		if err := n.Release(ctx, p); err != nil && ctx.Err() == nil {
			n.log.Warn("cluster: release failed; the lease will expire", "shard", p, "err", err)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for _, p := range claim {
		g.Go(func() error {
			if err := n.claim(gctx, p); err != nil && !errors.Is(err, js.ErrKeyExists) && gctx.Err() == nil {
				n.log.Warn("cluster: claim failed", "shard", p, "err", err)
			}
			return nil
		})
	}
	_ = g.Wait()
}

// claim takes shard p's lease if it is free, then fences the previous
// owner: it appends a claim (an outcome event with no payload) to the
// shard's outcome subject, expecting the subject's last sequence, so any
// outcome the previous owner publishes after it is refused.
func (n *Node) claim(ctx context.Context, p int) error {
	sent := time.Now()
	cctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	rev, err := n.leases.Create(cctx, leaseKey(p), []byte(n.cfg.Node), js.KeyTTL(n.cfg.LeaseTTL))
	cancel()
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.held[p] = &lease{epoch: rev, rev: rev, deadline: sent.Add(n.cfg.margin())}
	n.mu.Unlock()
	seq, err := n.fence(ctx, p, rev)
	if err != nil {
		n.drop(p, 0, err)
		cctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
		defer cancel()
		_ = n.leases.Delete(cctx, leaseKey(p), js.LastRevision(rev))
		return fmt.Errorf("jetstream: claim of shard %d: %w", p, err)
	}
	n.mu.Lock()
	l := n.held[p]
	if l != nil && l.epoch == rev {
		l.fenceSeq = seq
		l.claimed = true
	}
	n.mu.Unlock()
	if l == nil {
		return nil
	}
	n.notify(Change{Kind: Acquired, Shard: p, Epoch: rev})
	return nil
}

// fence appends the claim of epoch to shard p's outcome subject.
func (n *Node) fence(ctx context.Context, p int, epoch uint64) (uint64, error) {
	msg, err := n.codec.Encode(nil, cluster.Event{Kind: cluster.KindOutcome, Shard: p, Epoch: epoch})
	if err != nil {
		return 0, err
	}
	subject := Subject(n.cfg.Crawl, cluster.KindOutcome, p)
	for range 5 {
		last, err := n.lastOnSubject(ctx, p, subject)
		if err != nil {
			return 0, err
		}
		cctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
		ack, err := n.js.PublishMsg(cctx, &nats.Msg{Subject: subject, Data: msg}, js.WithExpectLastSequencePerSubject(last))
		cancel()
		if err == nil {
			return ack.Sequence, nil
		}
		if !wrongSeq(err) {
			return 0, err
		}
		// The previous owner published in between: read again.
	}
	return 0, errors.New("jetstream: the shard's outcome subject keeps moving")
}

// lastOnSubject is the stream sequence of the last message on subject
// (0 when there is none) and that message's event.
func (n *Node) lastOnSubject(ctx context.Context, p int, subject string) (uint64, error) {
	seq, _, err := n.lastEvent(ctx, p, subject)
	return seq, err
}

func (n *Node) lastEvent(ctx context.Context, p int, subject string) (uint64, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	m, err := n.stream(p).GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, js.ErrMsgNotFound) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	return m.Sequence, m.Data, nil
}

func (n *Node) stream(p int) js.Stream { return n.streams[p%n.cfg.Streams] }

// Release hands shard p back: the node stops owning it at once and
// deletes its lease (by revision), so the next owner can claim it without
// waiting for the TTL. Call it after a Revoked change, once the shard's
// outcomes are flushed and it is snapshotted.
func (n *Node) Release(ctx context.Context, p int) error {
	return n.release(ctx, p, func(*lease) bool { return true })
}

// release is Release, of the lease held only if which accepts it.
func (n *Node) release(ctx context.Context, p int, which func(*lease) bool) error {
	n.mu.Lock()
	l := n.held[p]
	if l == nil || !which(l) {
		n.mu.Unlock()
		return nil
	}
	delete(n.held, p)
	n.mu.Unlock()
	rev := l.rev
	for range 3 {
		cctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
		err := n.leases.Delete(cctx, leaseKey(p), js.LastRevision(rev))
		if err == nil || !errors.Is(err, js.ErrKeyExists) && !wrongSeq(err) {
			cancel()
			return err
		}
		// A renewal landed after rev was read: delete our latest write,
		// never another node's.
		e, gerr := n.leases.Get(cctx, leaseKey(p))
		cancel()
		if gerr != nil || string(e.Value()) != n.cfg.Node {
			return nil
		}
		rev = e.Revision()
	}
	return fmt.Errorf("jetstream: release of shard %d: revision keeps moving", p)
}

// Holds reports whether the node holds shard p's lease at epoch, its
// claim written (revoked or not).
func (n *Node) Holds(p int, epoch uint64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.held[p]
	return l != nil && l.claimed && l.epoch == epoch
}

// ReleaseAt is Release when the node holds shard p's lease at epoch, and
// does nothing otherwise (the lease was lost, or is held at a later
// epoch).
func (n *Node) ReleaseAt(ctx context.Context, p int, epoch uint64) error {
	return n.release(ctx, p, func(l *lease) bool { return l.epoch == epoch })
}

// Leave hands everything back when the node stops for good (call it
// after Run returns): releases its shards, deletes its member key and,
// if it leads, the leader key, so the others rebalance at once.
func (n *Node) Leave(ctx context.Context) error {
	n.mu.Lock()
	var shards []int
	for p := range n.held {
		shards = append(shards, p)
	}
	leaderRev := n.leaderRev
	n.leaderRev = 0
	n.mu.Unlock()
	var errs []error
	for _, p := range shards {
		// A lease not deleted expires by itself: the others wait for
		// it, no more.
		if err := n.Release(ctx, p); err != nil {
			n.log.Warn("cluster: a shard's lease not handed back; it will expire", "shard", p, "err", err)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	if err := n.members.Delete(cctx, n.cfg.Node); err != nil {
		errs = append(errs, fmt.Errorf("jetstream: member key: %w", err))
	}
	if leaderRev != 0 {
		if err := n.control.Delete(cctx, keyLeader, js.LastRevision(leaderRev)); err != nil && !wrongSeq(err) {
			errs = append(errs, fmt.Errorf("jetstream: leader key: %w", err))
		}
	}
	return errors.Join(errs...)
}
