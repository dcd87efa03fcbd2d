package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	js "github.com/nats-io/nats.go/jetstream"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

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
