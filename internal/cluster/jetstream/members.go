package jetstream

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	js "github.com/nats-io/nats.go/jetstream"
)

// MemberKey is a node of the crawl as its member key shows it (not
// cluster.Member, a node as the assignment weighs it).
type MemberKey struct {
	ID       string
	Capacity int
	// Stats are what the node last reported (SetStats, Report).
	Stats json.RawMessage
	// Updated is when the key was last written (the server's clock).
	Updated time.Time
}

// Members lists the crawl's live members (their keys have not
// expired), by ID.
//
// The keys are read from the bucket stream's per-subject state, one
// answer of the server, and not with a KV key listing: a listing is a
// consumer that skips a key rewritten while it runs (the message it was
// to deliver is gone, its successor comes after the listing's end), so a
// member writing its key at that moment (at each renewal, and at each
// status report, Report) was missing from it, and the leader, whose own
// writes run beside its rebalance, took its shards away from itself and
// back a tick later.
func (n *Node) Members(ctx context.Context) ([]MemberKey, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	bucket := bucketName(n.cfg.Crawl, "members")
	stream, err := n.js.Stream(ctx, "KV_"+bucket)
	if err != nil {
		return nil, fmt.Errorf("jetstream: members: %w", err)
	}
	prefix := "$KV." + bucket + "."
	info, err := stream.Info(ctx, js.WithSubjectFilter(prefix+">"))
	if err != nil {
		return nil, fmt.Errorf("jetstream: members: %w", err)
	}
	// The stream's per-subject state can miss a key being rewritten at
	// that instant (seen about once in 200 listings while a member
	// renews): the node's own key and the members of the last listing
	// are asked for by name too, so that a live member, once listed, is
	// never missed (a member joining may be missed once, and is listed
	// at the next call); one whose key is gone (deleted or expired) is
	// not found.
	keys := map[string]bool{n.cfg.Node: true}
	for subject := range info.State.Subjects {
		keys[strings.TrimPrefix(subject, prefix)] = true
	}
	n.mu.Lock()
	for key := range n.lastMembers {
		keys[key] = true
	}
	n.mu.Unlock()
	var ms []MemberKey
	seen := map[string]bool{}
	for key := range keys {
		e, err := n.members.Get(ctx, key)
		if err != nil {
			continue // deleted (Leave), or expired since the state was read
		}
		var v memberValue
		if json.Unmarshal(e.Value(), &v) != nil {
			continue
		}
		ms = append(ms, MemberKey{ID: key, Capacity: v.Capacity, Stats: v.Stats, Updated: e.Created()})
		seen[key] = true
	}
	n.mu.Lock()
	n.lastMembers = seen
	n.mu.Unlock()
	slices.SortFunc(ms, func(a, b MemberKey) int { return strings.Compare(a.ID, b.ID) })
	return ms, nil
}

// Report sets the node's stats (as SetStats) and writes its member key
// now rather than at the next renewal.
func (n *Node) Report(ctx context.Context, stats json.RawMessage) error {
	n.SetStats(stats)
	n.mu.Lock()
	v, err := json.Marshal(memberValue{Capacity: n.cfg.Capacity, Stats: n.stats})
	n.mu.Unlock()
	if err != nil {
		return err
	}
	_, err = n.kvPut(ctx, bucketName(n.cfg.Crawl, "members"), n.cfg.Node, v, n.cfg.MemberTTL, nil)
	return err
}
