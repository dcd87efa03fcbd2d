package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	js "github.com/nats-io/nats.go/jetstream"
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
