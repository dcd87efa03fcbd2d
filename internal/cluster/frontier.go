package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/dedup"
	"github.com/godwit-crawler/godwit/internal/shard"
)

// sentExpected sizes the filter of keys a node has added; it grows
// past it (dedup.Bloom is scalable), at about 1.25 bytes per key.
const sentExpected = 1 << 20

// Add queues links for their shards' logs; they are appended within
// FlushInterval, or before the outcome of the lease the worker completes
// next. When ctx is marked with the lease whose page found them
// (crawl.WithLease), the links to hosts of the lease's own shard are
// kept with the lease instead and go in its outcome event (Complete):
// no other outcome waits for them, and they are in the log exactly when
// the page is.
//
// It reports how many links are new as far as this node can tell: those
// whose key it has not added before (a filter of the keys it added).
// The seen-set that decides is the shard owner's, which applies the
// links later, on whichever node; waiting for it would cost a round trip
// per page. A host's links are mostly to the host itself, whose shard
// the node fetching its pages owns, so the count is close to the single
// node's; a link another node found first counts as new once on each
// node that finds it, and a key the filter mistakes for added (about 1%)
// does not count. The crawl reads the count to see whether a page's URL
// template still yields new URLs (genuine pagination does; a trap's
// template stops), so it must not be 0 for links that are new.
func (n *Node) Add(ctx context.Context, links []crawl.Link) (int, error) {
	own, id := -1, uint64(0)
	if lid, host, ok := crawl.LeaseOf(ctx); ok {
		own, id = shard.Of(host, DefaultShards), lid
	}
	n.lmu.Lock()
	added := 0
	for _, l := range links {
		p := shard.Of(l.Host, DefaultShards)
		if p == own {
			n.own[id] = append(n.own[id], l)
		} else {
			n.pending[p] = append(n.pending[p], l)
		}
		h := dedup.Hash([]byte(l.Key))
		if !n.sent.MayContainHash(h) {
			n.sent.AddHash(h)
			added++
		}
	}
	n.gen++
	n.lmu.Unlock()
	return added, nil
}

// Flush appends every link added so far to its shard's log, those kept
// for the outcome of a lease not completed yet included.
func (n *Node) Flush(ctx context.Context) error {
	n.lmu.Lock()
	for id, links := range n.own {
		for _, l := range links {
			p := shard.Of(l.Host, DefaultShards)
			n.pending[p] = append(n.pending[p], l)
		}
		delete(n.own, id)
		n.gen++
	}
	n.lmu.Unlock()
	return n.flush(ctx)
}

// takeOwn takes the links kept for lease id's outcome event.
func (n *Node) takeOwn(id uint64) []crawl.Link {
	n.lmu.Lock()
	defer n.lmu.Unlock()
	links := n.own[id]
	delete(n.own, id)
	return links
}

// putBack queues links of shard p, taken for an outcome event that was
// not appended, for the next flush.
func (n *Node) putBack(p int, links []crawl.Link) {
	if len(links) == 0 {
		return
	}
	n.lmu.Lock()
	n.pending[p] = append(n.pending[p], links...)
	n.gen++
	n.lmu.Unlock()
}

// flush appends every link added before it was called. Concurrent
// callers share appends: one whose links another flush took waits for it.
func (n *Node) flush(ctx context.Context) error {
	n.lmu.Lock()
	want := n.gen
	n.lmu.Unlock()
	n.flushMu.Lock()
	defer n.flushMu.Unlock()
	if n.flushed >= want {
		return nil
	}
	n.lmu.Lock()
	batch, gen := n.pending, n.gen
	n.pending = map[int][]crawl.Link{}
	n.lmu.Unlock()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for p, links := range batch {
		for len(links) > 0 {
			k := min(len(links), maxLinksPerEvent)
			e := Event{Kind: KindLinks, Shard: p, Links: links[:k]}
			links = links[k:]
			g.Go(func() error {
				_, err := n.cfg.Log.Append(gctx, e, 0)
				return err
			})
		}
	}
	if err := g.Wait(); err != nil {
		// Put the links back: the next flush tries them again (a link
		// appended twice is applied once).
		n.lmu.Lock()
		for p, links := range batch {
			n.pending[p] = append(links, n.pending[p]...)
		}
		n.lmu.Unlock()
		return fmt.Errorf("cluster: links: %w", err)
	}
	n.flushed = gen
	return nil
}

// Next leases a URL of an owned shard's host.
func (n *Node) Next(ctx context.Context) (crawl.Lease, error) {
	for {
		l, err := n.cfg.Shards.Next(ctx)
		if err != nil {
			return l, err
		}
		p := shard.Of(l.Task.Host, DefaultShards)
		n.mu.Lock()
		o := n.owned[p]
		ok := o != nil && o.active && !o.lost
		suspend := ok && n.cfg.Owns != nil && !n.cfg.Owns(p)
		if ok && !suspend {
			o.leases++
			n.held[l.ID] = l.Task.Host
		}
		if suspend && !o.suspended {
			// The lease is not confirmed now: no fetch from the shard
			// until it is (Run resumes it) or the shard is lost.
			if err := n.cfg.Shards.SetShard(uint16(p), false); err != nil {
				n.mu.Unlock()
				return crawl.Lease{}, err
			}
			o.suspended = true
			if n.cfg.Revoked != nil && n.cfg.Revoked(p) {
				// A handover under way: expected whenever a node joins
				// or leaves, no cause for alarm.
				n.log.Debug("shard suspended: it is being handed over", "shard", p)
			} else {
				n.log.Warn("shard suspended: its lease is not confirmed", "shard", p)
			}
		}
		n.mu.Unlock()
		if ok && !suspend {
			return l, nil
		}
		// Not to be fetched now (suspended, being released or lost, or
		// not yet claimed): the lease goes back unused, so the host is
		// not left leased in the local state.
		if err := n.cfg.Shards.Complete(ctx, l, crawl.Outcome{Disposition: crawl.Requeue}); err != nil {
			return crawl.Lease{}, err
		}
	}
}

// Wrote is crawl.WireReporter's, passed on to the local frontier (its
// IP budget spaces starts by when requests went on the wire).
func (n *Node) Wrote(id uint64, host string, at time.Time) {
	if w, ok := n.cfg.Shards.(crawl.WireReporter); ok {
		w.Wrote(id, host, at)
	}
}

// Complete appends the links added so far and then the lease's outcome
// to its shard's log, the page's links to its own shard in the outcome
// event (see Add), and returns once the outcome is applied. When the
// shard was lost, or the append is fenced (another node owns the shard),
// the outcome is discarded and the shard given up.
func (n *Node) Complete(ctx context.Context, l crawl.Lease, out crawl.Outcome) error {
	p := shard.Of(l.Task.Host, DefaultShards)
	own := n.takeOwn(l.ID) // the page's links to its own shard
	n.mu.Lock()
	o := n.owned[p]
	delete(n.held, l.ID) // its page's browser requests are over
	n.mu.Unlock()
	if o == nil {
		n.putBack(p, own)
		return nil
	}
	defer func() {
		n.mu.Lock()
		o.leases--
		n.broadcast()
		n.mu.Unlock()
	}()
	if len(own) > maxLinksPerEvent {
		n.putBack(p, own[maxLinksPerEvent:]) // appended by the flush below
		own = own[:maxLinksPerEvent]
	}
	if err := n.flush(ctx); err != nil {
		n.putBack(p, own)
		return err
	}
	payload := n.cfg.EncodeOutcome(l.Task, out)
	o.pub.Lock()
	n.mu.Lock()
	lost, expect := o.lost, o.lastOut
	n.mu.Unlock()
	if lost {
		o.pub.Unlock()
		n.putBack(p, own)
		return nil
	}
	seq, err := n.cfg.Log.Append(ctx, Event{Kind: KindOutcome, Shard: p, Epoch: o.epoch, Links: own, Payload: payload}, expect)
	if err == nil {
		n.mu.Lock()
		o.lastOut = max(o.lastOut, seq)
		n.mu.Unlock()
	}
	o.pub.Unlock()
	if err != nil {
		// Not in the log: the links go as a links event, whoever owns
		// the shard now (a link appended twice is applied once).
		n.putBack(p, own)
	}
	if errors.Is(err, ErrFenced) {
		n.log.Warn("outcome fenced: another node owns the shard", "shard", p, "url", l.Task.URL)
		return n.Lose(p)
	}
	if err != nil {
		return err
	}
	return n.wait(ctx, o, func() bool { return o.applied >= seq || o.lost })
}

// Stats are the local frontier's: the shards this node owns.
func (n *Node) Stats() crawl.FrontierStats { return n.cfg.Shards.Stats() }

// Quiet reports whether the node has nothing left to do for the crawl
// as far as it can see now: no link waiting to be appended or being
// appended, no lease out, nothing queued in its Shards, and every shard
// it owns claimed, not suspended and caught up with its log's last event
// (asked of the log, one request per shard, only when the rest holds).
// Shards is how many shards it owns so; a crawl is over when its nodes'
// Shards add up to every shard, each quiet, with nothing appended to any
// log in between (see package jetstream's end check).
func (n *Node) Quiet(ctx context.Context) (shards int, quiet bool, err error) {
	n.lmu.Lock()
	pending, gen := len(n.pending)+len(n.own), n.gen
	n.lmu.Unlock()
	if pending > 0 || !n.flushMu.TryLock() {
		return 0, false, nil
	}
	flushed := n.flushed >= gen
	n.flushMu.Unlock()
	if !flushed {
		return 0, false, nil
	}
	if s := n.cfg.Shards.Stats(); s.Queued > 0 || s.InFlight > 0 {
		return 0, false, nil
	}
	type at struct {
		p       int
		applied uint64
	}
	var mine []at
	n.mu.Lock()
	for p, o := range n.owned {
		if !o.active || o.lost || o.suspended || o.leases > 0 {
			n.mu.Unlock()
			return 0, false, nil
		}
		mine = append(mine, at{p, o.applied})
	}
	n.mu.Unlock()
	behind := false
	var bmu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for _, s := range mine {
		g.Go(func() error {
			last, _, err := n.cfg.Log.Last(gctx, s.p)
			if err != nil {
				return err
			}
			if last > s.applied {
				bmu.Lock()
				behind = true
				bmu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, false, fmt.Errorf("cluster: shard log: %w", err)
	}
	if behind {
		return 0, false, nil
	}
	return len(mine), true, nil
}

// Visit holds the politeness slot of host for a browser's sub-request
// (crawl.Visitor) when this node owns the host's shard and its frontier
// can (frontier.Frontier.Visit), or when host is the host of the lease
// held, which this node holds until it completes it, its shard being
// handed over or not (a graceful handover waits for the leases out); a
// host of a shard another node owns, or one not confirmed now, is
// refused with crawl.ErrNotOwned: its politeness is kept by its owner,
// which this node cannot hold. The visit's timing is kept in this node's
// frontier only (it is not in the shard's log): a node taking the shard
// over waits one gap anyway.
func (n *Node) Visit(ctx context.Context, host string, held uint64, heldEnd time.Time) (crawl.Visit, error) {
	v, ok := n.cfg.Shards.(crawl.Visitor)
	if !ok {
		return crawl.Visit{}, crawl.ErrNotOwned
	}
	p := shard.Of(host, DefaultShards)
	n.mu.Lock()
	o := n.owned[p]
	underLease := held != 0 && n.held[held] == host && o != nil && !o.lost
	owns := underLease || o != nil && o.active && !o.lost && !o.suspended && (n.cfg.Owns == nil || n.cfg.Owns(p))
	n.mu.Unlock()
	if !owns {
		return crawl.Visit{}, crawl.ErrNotOwned
	}
	return v.Visit(ctx, host, held, heldEnd)
}
