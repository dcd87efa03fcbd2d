package jetstream

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

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
	m, err := n.lastMsg(ctx, p, subject)
	return m.seq, m.data, err
}

// lastMsg is the last message of shard p's stream on subject, which may
// hold wildcards (the server finds the last message matching it); seq 0
// when there is none.
type lastMsg struct {
	seq     uint64
	subject string
	data    []byte
}

func (n *Node) lastMsg(ctx context.Context, p int, subject string) (lastMsg, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	m, err := n.stream(p).GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, js.ErrMsgNotFound) {
		return lastMsg{}, nil
	}
	if err != nil {
		return lastMsg{}, err
	}
	return lastMsg{m.Sequence, m.Subject, m.Data}, nil
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
