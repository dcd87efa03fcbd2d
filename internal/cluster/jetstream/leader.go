package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	js "github.com/nats-io/nats.go/jetstream"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

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
// Config.StartGrace, as seen by this leader's successive looks, or this
// leader has waited maxStartWaits graces since its first look: members
// that keep changing (a node restarting in a loop) must not keep the
// crawl from starting.
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
	if n.firstLook.IsZero() {
		n.firstLook = now
	}
	if now.Sub(n.firstLook) >= maxStartWaits*n.cfg.StartGrace {
		return true
	}
	if key != n.firstMembers || n.firstSince.IsZero() {
		n.firstMembers, n.firstSince = key, now
		n.log.Info("cluster: waiting for the members to settle before the first assignment", "members", key, "grace", n.cfg.StartGrace)
		return false
	}
	return now.Sub(n.firstSince) >= n.cfg.StartGrace
}

// maxStartWaits bounds the wait for settled members: the first
// assignment is written at the latest this many start graces after the
// leader's first look.
const maxStartWaits = 5
