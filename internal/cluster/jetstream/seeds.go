package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	js "github.com/nats-io/nats.go/jetstream"
)

// keySeeds is the control bucket's list of the crawl's seeds: every node
// widens its scope to each of them, whichever node they were given to.
const keySeeds = "seeds"

// AddSeeds adds seeds to the crawl's list (compare-and-set, so that
// nodes adding seeds at once lose none) and returns the whole list, and
// whether any of seeds was new to it.
func (n *Node) AddSeeds(ctx context.Context, seeds []string) (all []string, added bool, err error) {
	for {
		all, rev, err := n.seeds(ctx)
		if err != nil {
			return nil, false, err
		}
		merged := slices.Clone(all)
		for _, s := range seeds {
			if !slices.Contains(merged, s) {
				merged = append(merged, s)
			}
		}
		if len(merged) == len(all) {
			return all, false, nil
		}
		b, err := json.Marshal(merged)
		if err != nil {
			return nil, false, err
		}
		cctx, cancel := context.WithTimeout(ctx, n.cfg.RequestTimeout)
		if rev == 0 {
			_, err = n.control.Create(cctx, keySeeds, b)
		} else {
			_, err = n.control.Update(cctx, keySeeds, b, rev)
		}
		cancel()
		switch {
		case err == nil:
			return merged, true, nil
		case errors.Is(err, js.ErrKeyExists) || wrongSeq(err):
			continue // another node added seeds meanwhile
		case ctx.Err() != nil:
			return nil, false, ctx.Err()
		case transient(err):
			continue
		}
		return nil, false, fmt.Errorf("jetstream: seeds: %w", err)
	}
}

// Seeds returns the crawl's seeds.
func (n *Node) Seeds(ctx context.Context) ([]string, error) {
	all, _, err := n.seeds(ctx)
	return all, err
}

func (n *Node) seeds(ctx context.Context) ([]string, uint64, error) {
	e, err := retry(ctx, n.cfg.RequestTimeout, func(ctx context.Context) (js.KeyValueEntry, error) {
		e, err := n.control.Get(ctx, keySeeds)
		if errors.Is(err, js.ErrKeyNotFound) {
			return nil, nil
		}
		return e, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("jetstream: seeds: %w", err)
	}
	if e == nil {
		return nil, 0, nil
	}
	var all []string
	if err := json.Unmarshal(e.Value(), &all); err != nil {
		return nil, 0, fmt.Errorf("jetstream: seeds: %w", err)
	}
	return all, e.Revision(), nil
}
