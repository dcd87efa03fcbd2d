package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	js "github.com/nats-io/nats.go/jetstream"
)

// tallyKey is the control bucket's key of node's tally.
func tallyKey(node string) string { return "tally." + node }

// WriteTally stores this node's tally: what it has done for the crawl
// over all its runs (the caller's JSON: pages, requests). Unlike its
// member key, the tally has no TTL: it stays after the node leaves, dies
// or the crawl ends, so the crawl's totals count every node that took
// part.
func (n *Node) WriteTally(ctx context.Context, tally json.RawMessage) error {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	if _, err := n.control.Put(ctx, tallyKey(n.cfg.Node), tally); err != nil {
		return fmt.Errorf("jetstream: tally: %w", err)
	}
	return nil
}

// Tally returns this node's tally as it last stored it (nil: none yet),
// for a node that starts again to count on from.
func (n *Node) Tally(ctx context.Context) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	e, err := n.control.Get(ctx, tallyKey(n.cfg.Node))
	if errors.Is(err, js.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("jetstream: tally: %w", err)
	}
	return e.Value(), nil
}

// Tallies returns every node's tally, by node ID: the nodes that took
// part in the crawl, live or not. Like Members, it reads the keys from
// the bucket stream's per-subject state.
func (n *Node) Tallies(ctx context.Context) (map[string]json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	bucket := bucketName(n.cfg.Crawl, "control")
	stream, err := n.js.Stream(ctx, "KV_"+bucket)
	if err != nil {
		return nil, fmt.Errorf("jetstream: tallies: %w", err)
	}
	prefix := "$KV." + bucket + "." + tallyKey("")
	info, err := stream.Info(ctx, js.WithSubjectFilter(prefix+">"))
	if err != nil {
		return nil, fmt.Errorf("jetstream: tallies: %w", err)
	}
	tallies := make(map[string]json.RawMessage, len(info.State.Subjects))
	for subject := range info.State.Subjects {
		node := strings.TrimPrefix(subject, prefix)
		e, err := n.control.Get(ctx, tallyKey(node))
		if err != nil {
			continue // deleted
		}
		tallies[node] = e.Value()
	}
	return tallies, nil
}
