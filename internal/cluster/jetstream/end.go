package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

// Keys of the control bucket for the crawl's end (see cluster.Ended for
// the protocol).
const (
	// keyEndCheck's revision is the number of the end check's current
	// round.
	keyEndCheck = "endcheck"
	// keyDone holds a Done record once the crawl is over.
	keyDone = "done"
)

// Member is a node of the crawl as its member key shows it.
type Member struct {
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
func (n *Node) Members(ctx context.Context) ([]Member, error) {
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
	var ms []Member
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
		ms = append(ms, Member{ID: key, Capacity: v.Capacity, Stats: v.Stats, Updated: e.Created()})
		seen[key] = true
	}
	n.mu.Lock()
	n.lastMembers = seen
	n.mu.Unlock()
	slices.SortFunc(ms, func(a, b Member) int { return strings.Compare(a.ID, b.ID) })
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

// ReadAssignment reads the crawl's assignment (the zero Assignment when
// there is none yet). Assignment, on a running Node, is the one it last
// saw.
func (n *Node) ReadAssignment(ctx context.Context) (cluster.Assignment, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	var a cluster.Assignment
	e, err := n.control.Get(ctx, keyAssignment)
	if errors.Is(err, js.ErrKeyNotFound) {
		return a, nil
	}
	if err != nil {
		return a, fmt.Errorf("jetstream: assignment: %w", err)
	}
	if err := a.UnmarshalJSON(e.Value()); err != nil {
		return a, fmt.Errorf("jetstream: assignment: %w", err)
	}
	return a, nil
}

// StreamsLast returns the last sequence of each of the crawl's streams.
func (n *Node) StreamsLast(ctx context.Context) ([]uint64, error) {
	infos, err := n.StreamsInfo(ctx)
	if err != nil {
		return nil, err
	}
	last := make([]uint64, len(infos))
	for i, si := range infos {
		last[i] = si.State.LastSeq
	}
	return last, nil
}

// StreamsInfo returns the current state of each of the crawl's streams.
func (n *Node) StreamsInfo(ctx context.Context) ([]*js.StreamInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	infos := make([]*js.StreamInfo, len(n.streams))
	for i, s := range n.streams {
		si, err := s.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("jetstream: stream %s: %w", StreamName(n.cfg.Crawl, i), err)
		}
		infos[i] = si
	}
	return infos, nil
}

// StartEndCheck opens a round of the end check: it reads the streams'
// last sequences, then writes the round key, and returns both. Reports of
// this round or a later one were computed after the streams were read.
func (n *Node) StartEndCheck(ctx context.Context) (round uint64, last []uint64, err error) {
	if last, err = n.StreamsLast(ctx); err != nil {
		return 0, nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	round, err = n.control.Put(cctx, keyEndCheck, []byte(n.cfg.Node))
	if err != nil {
		return 0, nil, fmt.Errorf("jetstream: end check: %w", err)
	}
	return round, last, nil
}

// EndRound returns the end check's current round (0: none yet).
func (n *Node) EndRound(ctx context.Context) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	e, err := n.control.Get(ctx, keyEndCheck)
	if errors.Is(err, js.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("jetstream: end check: %w", err)
	}
	return e.Revision(), nil
}

// Done records that the crawl is over.
type Done struct {
	At    time.Time `json:"at"`
	By    string    `json:"by"`    // the node that decided
	Round uint64    `json:"round"` // of the end check
}

// MarkDone records that the crawl is over (the first record stays).
func (n *Node) MarkDone(ctx context.Context, d Done) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	if _, err := n.control.Create(ctx, keyDone, b); err != nil && !errors.Is(err, js.ErrKeyExists) {
		return fmt.Errorf("jetstream: done: %w", err)
	}
	return nil
}

// Done returns the record of the crawl's end, nil while it runs.
func (n *Node) Done(ctx context.Context) (*Done, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	e, err := n.control.Get(ctx, keyDone)
	if errors.Is(err, js.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("jetstream: done: %w", err)
	}
	var d Done
	if err := json.Unmarshal(e.Value(), &d); err != nil {
		return nil, fmt.Errorf("jetstream: done: %w", err)
	}
	return &d, nil
}

// Reopen makes a finished crawl run again (new seeds were added to it).
func (n *Node) Reopen(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	if err := n.control.Delete(ctx, keyDone); err != nil && !errors.Is(err, js.ErrKeyNotFound) {
		return fmt.Errorf("jetstream: reopening: %w", err)
	}
	return nil
}

// Name is this node's ID in the crawl.
func (n *Node) Name() string { return n.cfg.Node }

// ErrNoCrawl is Observe's answer for a crawl the NATS servers do not
// have.
var ErrNoCrawl = errors.New("jetstream: no such crawl")

// Observe opens crawl's buckets and streams to read its status (Members,
// ReadAssignment, Leader, Seeds, Done, StreamsInfo), without joining the
// crawl or creating anything. The Node it returns must not Run.
func Observe(ctx context.Context, nc *nats.Conn, crawl string, timeout time.Duration) (*Node, error) {
	if !nameRE.MatchString(crawl) {
		return nil, fmt.Errorf("jetstream: crawl name %q: want 1-64 letters, digits, '-' or '_'", crawl)
	}
	cfg := Config{Crawl: crawl, Node: "observer", RequestTimeout: timeout}
	cfg.Default()
	j, err := js.New(nc, js.WithDefaultTimeout(cfg.RequestTimeout))
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	n := &Node{cfg: cfg, nc: nc, js: j, log: cfg.Logger}
	cctx, cancel := context.WithTimeout(ctx, cfg.RequestTimeout)
	defer cancel()
	if n.control, err = j.KeyValue(cctx, bucketName(crawl, "control")); err != nil {
		if errors.Is(err, js.ErrBucketNotFound) {
			return nil, fmt.Errorf("%w: %q", ErrNoCrawl, crawl)
		}
		return nil, fmt.Errorf("jetstream: crawl %q: %w", crawl, err)
	}
	e, err := n.control.Get(cctx, keyCrawl)
	if err != nil {
		return nil, fmt.Errorf("jetstream: crawl record: %w", err)
	}
	var rec crawlRecord
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return nil, fmt.Errorf("jetstream: crawl record: %w", err)
	}
	n.cfg.Shards, n.cfg.Streams, n.settings = rec.Shards, rec.Streams, rec.Settings
	if n.members, err = j.KeyValue(cctx, bucketName(crawl, "members")); err != nil {
		return nil, fmt.Errorf("jetstream: crawl %q: members: %w", crawl, err)
	}
	if n.leases, err = j.KeyValue(cctx, bucketName(crawl, "leases")); err != nil {
		return nil, fmt.Errorf("jetstream: crawl %q: leases: %w", crawl, err)
	}
	n.streams = make([]js.Stream, rec.Streams)
	for i := range rec.Streams {
		if n.streams[i], err = j.Stream(cctx, StreamName(crawl, i)); err != nil {
			return nil, fmt.Errorf("jetstream: crawl %q: stream %d: %w", crawl, i, err)
		}
	}
	return n, nil
}

// Shards is the crawl's number of shards, P.
func (n *Node) Shards() int { return n.cfg.Shards }

// Crawl is the crawl's name.
func (n *Node) Crawl() string { return n.cfg.Crawl }

// Leader returns the ID of the crawl's leader ("" while there is none).
func (n *Node) Leader(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	e, err := n.control.Get(ctx, keyLeader)
	if errors.Is(err, js.ErrKeyNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("jetstream: leader: %w", err)
	}
	return string(e.Value()), nil
}
