package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/shard"
)

// Acquire takes shard p, whose lease this node holds at epoch: it reads
// the shard's log from where its Shards left it, and once it has caught
// up, claims the shard (a fenced event: a former owner still writing is
// fenced from then on) and starts leasing its hosts. Acquiring a shard
// the node has is a no-op.
func (n *Node) Acquire(ctx context.Context, p int, epoch uint64) error {
	n.mu.Lock()
	old := n.owned[p]
	n.mu.Unlock()
	if old != nil && !old.lost && old.epoch >= epoch {
		return nil
	}
	if old != nil {
		// An earlier epoch's hold: its lease is gone, and its state may
		// be behind or ahead of the log's (an outcome it could not
		// write). Start again from the log.
		n.abandon(p, old)
		if err := n.cfg.Shards.DropShard(uint16(p)); err != nil {
			return err
		}
	}
	from, err := n.restore(ctx, p, epoch)
	if err != nil {
		return n.notTaken(p, nil, err)
	}
	rctx, cancel := context.WithCancel(n.base)
	o := &owned{epoch: epoch, cancel: cancel, done: make(chan struct{}), applied: from}
	n.mu.Lock()
	n.owned[p] = o
	n.mu.Unlock()
	n.wg.Add(1)
	go n.read(rctx, p, o)

	// The takeover ends when the lease does: a shard lost or moved away
	// meanwhile is given up rather than waited for.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if n.cfg.Owns != nil {
		go func() {
			t := time.NewTicker(500 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					if !n.cfg.Owns(p) {
						stop()
						return
					}
				}
			}
		}()
	}
	for {
		last, lastOut, err := n.cfg.Log.Last(ctx, p)
		if err != nil {
			return n.notTaken(p, o, err)
		}
		if err := n.wait(ctx, o, func() bool { return o.applied >= last }); err != nil {
			return n.notTaken(p, o, err)
		}
		o.pub.Lock()
		seq, err := n.cfg.Log.Claim(ctx, p, epoch, lastOut)
		if err == nil {
			n.mu.Lock()
			o.lastOut = max(o.lastOut, seq)
			n.mu.Unlock()
		}
		o.pub.Unlock()
		if errors.Is(err, ErrFenced) {
			continue // written to since Last: catch up again
		}
		if err != nil {
			return n.notTaken(p, o, err)
		}
		break
	}
	n.mu.Lock()
	o.active = true // before the frontier hands out its hosts: Next checks it
	n.mu.Unlock()
	if err := n.cfg.Shards.SetShard(uint16(p), true); err != nil {
		return n.notTaken(p, o, err)
	}
	n.log.Info("shard acquired", "shard", p, "epoch", epoch, "from", from)
	return nil
}

// notTaken ends a takeover of shard p that failed with err: the reader
// stops (o is nil when none was started) and the shard's state here,
// restored from a snapshot or read from the log so far, is dropped.
// Whoever takes the shard next, this node or another, reads it again;
// kept, it would be counted as queued work of a shard this node does
// not own, and the crawl would never be found over.
func (n *Node) notTaken(p int, o *owned, err error) error {
	if o != nil {
		n.abandon(p, o)
	} else {
		_ = n.cfg.Shards.SetShard(uint16(p), false)
	}
	if derr := n.cfg.Shards.DropShard(uint16(p)); derr != nil {
		err = errors.Join(err, derr)
	}
	return err
}

// restore returns the position from which shard p's log is to be read:
// the node's own, or, when the shard's latest snapshot is ahead of it
// (the log before it may be cut), the snapshot's, after importing it.
// It stamps the shard first, so that no former owner cuts the log from
// then on.
func (n *Node) restore(ctx context.Context, p int, epoch uint64) (uint64, error) {
	from, err := n.cfg.Shards.Applied(uint16(p))
	if err != nil || n.cfg.Snapshots == nil {
		return from, err
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	seq, open, err := n.cfg.Snapshots.Stamp(ctx, p, epoch)
	if err != nil {
		return 0, fmt.Errorf("cluster: shard %d: snapshot: %w", p, err)
	}
	if seq <= from {
		return from, nil
	}
	r, err := open(ctx)
	if err != nil {
		return 0, fmt.Errorf("cluster: shard %d: snapshot at %d: %w", p, seq, err)
	}
	defer r.Close()
	applied, err := n.cfg.Shards.ImportShard(uint16(p), r)
	if err != nil {
		return 0, fmt.Errorf("cluster: shard %d: snapshot at %d: %w", p, seq, err)
	}
	n.log.Info("shard restored from a snapshot", "shard", p, "seq", applied, "own", from)
	return applied, nil
}

// snapshot stores a snapshot of shard p, owned at o.epoch, which cuts
// the shard's log up to the snapshot's position.
func (n *Node) snapshot(ctx context.Context, p int, o *owned) error {
	var buf bytes.Buffer
	seq, err := n.cfg.Shards.ExportShard(uint16(p), &buf)
	if err != nil || seq == 0 {
		return err
	}
	if err := n.cfg.Snapshots.Save(ctx, p, o.epoch, seq, buf.Bytes()); err != nil {
		return fmt.Errorf("cluster: snapshot of shard %d at %d: %w", p, seq, err)
	}
	n.log.Debug("shard snapshot stored", "shard", p, "seq", seq, "bytes", buf.Len())
	return nil
}

// maybeSnapshot starts a snapshot of shard p in the background when
// enough events were applied since the last one. n.mu must be held.
func (n *Node) maybeSnapshot(p int, o *owned) {
	o.events++
	if n.cfg.Snapshots == nil || o.snapping || !o.active || o.lost || o.events < n.cfg.SnapshotEvents {
		return
	}
	o.snapping, o.events = true, 0
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		ctx, cancel := context.WithTimeout(n.base, snapshotTimeout)
		defer cancel()
		if err := n.snapshot(ctx, p, o); err != nil && n.base.Err() == nil {
			n.log.Warn("shard snapshot not stored; the log is kept", "shard", p, "err", err)
		}
		n.mu.Lock()
		o.snapping = false
		n.mu.Unlock()
	}()
}

// errSuperseded stops the reader of a shard another node claimed.
var errSuperseded = errors.New("cluster: a newer owner claimed the shard")

// read applies shard p's log to the node's Shards until ctx ends, or
// until it meets the claim or outcome of a newer epoch: another node owns
// the shard, and this one gives it up.
func (n *Node) read(ctx context.Context, p int, o *owned) {
	defer n.wg.Done()
	err := n.cfg.Log.Read(ctx, p, o.applied, func(seq uint64, e Event) error {
		if e.Kind == KindOutcome && e.Epoch > o.epoch {
			// Checked before anything is applied or learnt from it: a
			// node that took the event's position as its fence would
			// write past the new owner's claim.
			return errSuperseded
		}
		at := crawl.Position{Shard: uint16(p), Seq: seq}
		var err error
		switch {
		case e.Kind == KindLinks:
			_, err = n.cfg.Shards.AddAt(ctx, e.Links, at)
		case e.Kind == KindOutcome && len(e.Payload) > 0:
			for _, l := range e.Links {
				if q := shard.Of(l.Host, DefaultShards); q != p {
					return fmt.Errorf("cluster: shard %d at %d: an outcome carries a link to %s (shard %d)", p, seq, l.Host, q)
				}
			}
			t, out, derr := n.cfg.DecodeOutcome(e.Payload)
			if derr != nil {
				// Written by a node of another version, or damaged: it
				// cannot be applied, and stopping here would stop the shard.
				n.log.Error("outcome event skipped", "shard", p, "seq", seq, "err", derr)
				_, err = n.cfg.Shards.AddAt(ctx, e.Links, at)
				break
			}
			// The page's links first, then its outcome, which moves the
			// applied position: a crash in between applies the links
			// again, never the outcome without them.
			if len(e.Links) > 0 {
				_, err = n.cfg.Shards.Add(ctx, e.Links)
			}
			if err == nil {
				err = n.cfg.Shards.ApplyOutcome(ctx, t, out, at)
			}
		default: // a claim, or a control event (not used yet): only the position moves
			_, err = n.cfg.Shards.AddAt(ctx, nil, at)
		}
		if err != nil {
			return fmt.Errorf("cluster: shard %d at %d: %w", p, seq, err)
		}
		n.mu.Lock()
		o.applied = seq
		if e.Kind == KindOutcome {
			o.lastOut = max(o.lastOut, seq)
		}
		n.maybeSnapshot(p, o)
		n.broadcast()
		n.mu.Unlock()
		return nil
	})
	if errors.Is(err, errSuperseded) {
		n.mu.Lock()
		o.lost = true
		n.mu.Unlock()
		n.log.Warn("shard lost: another node claimed it", "shard", p)
		if serr := n.cfg.Shards.SetShard(uint16(p), false); serr != nil {
			err = serr
		} else if derr := n.cfg.Shards.DropShard(uint16(p)); derr != nil {
			err = derr
		}
	}
	n.mu.Lock()
	if err != nil && ctx.Err() == nil {
		o.err = err
		if !errors.Is(err, errSuperseded) {
			n.log.Error("shard log reader stopped", "shard", p, "err", err)
		}
	}
	if o.lost && n.owned[p] == o {
		delete(n.owned, p)
	}
	close(o.done)
	n.broadcast()
	n.mu.Unlock()
}

// abandon stops reading shard p and forgets it.
func (n *Node) abandon(p int, o *owned) {
	_ = n.cfg.Shards.SetShard(uint16(p), false)
	o.cancel()
	<-o.done
	n.mu.Lock()
	if n.owned[p] == o {
		delete(n.owned, p)
	}
	n.broadcast()
	n.mu.Unlock()
}

// Release hands shard p over: its hosts get no new lease, the leases out
// end (their outcomes are appended), the reader stops and the local state
// of the shard is dropped. The caller then gives up the shard's lease.
func (n *Node) Release(ctx context.Context, p int) error {
	n.mu.Lock()
	o := n.owned[p]
	n.mu.Unlock()
	if o == nil {
		return nil
	}
	n.mu.Lock()
	o.active = false // Next hands out no lease of it from now
	n.mu.Unlock()
	if err := n.cfg.Shards.SetShard(uint16(p), false); err != nil {
		return err
	}
	if err := n.wait(ctx, o, func() bool { return o.leases == 0 }); err != nil {
		return err
	}
	n.abandon(p, o)
	if n.cfg.Snapshots != nil && o.events >= max(1, n.cfg.SnapshotEvents/10) {
		// The next owner starts from it rather than from the whole log
		// (unless the log since the last snapshot is short). Briefly: a
		// node leaving or joining hands hundreds of shards over.
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := n.snapshot(sctx, p, o)
		cancel()
		if err != nil {
			n.log.Warn("no snapshot of the shard handed over; its next owner reads its log", "shard", p, "err", err)
		}
	}
	if err := n.cfg.Shards.DropShard(uint16(p)); err != nil {
		return err
	}
	n.log.Info("shard released", "shard", p)
	return nil
}

// Lose gives shard p up at once: its lease is gone (not renewed in time,
// or an outcome was fenced). No new lease is handed out; the outcomes of
// leases out are discarded (their URLs stay queued in the log, for the
// next owner); the local state is dropped.
func (n *Node) Lose(p int) error {
	n.mu.Lock()
	o := n.owned[p]
	if o != nil {
		o.lost = true
	}
	n.mu.Unlock()
	if o == nil {
		return nil
	}
	n.abandon(p, o)
	n.log.Warn("shard lost", "shard", p)
	return n.cfg.Shards.DropShard(uint16(p))
}

// Epoch returns the epoch at which the node holds shard p (owns it or
// is taking it over); false when it does not.
func (n *Node) Epoch(p int) (uint64, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	o := n.owned[p]
	if o == nil || o.lost {
		return 0, false
	}
	return o.epoch, true
}

// Owned lists the shards the node leases hosts of.
func (n *Node) Owned() []int {
	n.mu.Lock()
	defer n.mu.Unlock()
	var s []int
	for p, o := range n.owned {
		if o.active && !o.lost {
			s = append(s, p)
		}
	}
	return s
}
