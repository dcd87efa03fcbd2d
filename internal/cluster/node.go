package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/dedup"
	"github.com/godwit-crawler/godwit/internal/shard"
)

// ShardLog is each shard's ordered, replicated log, as a Node uses it;
// package jetstream implements it over JetStream streams. Positions are
// increasing within a shard's log (not necessarily consecutive: shards
// share streams).
type ShardLog interface {
	// Append adds e to shard e.Shard's log and returns its position. A
	// KindOutcome event is fenced: it is refused with ErrFenced unless
	// the shard's last KindOutcome event is at expect (0: there is none),
	// so that of two nodes that both believe they own a shard only one
	// can write its outcomes.
	Append(ctx context.Context, e Event, expect uint64) (uint64, error)
	// Last returns the position of the last event of shard p's log and of
	// its last KindOutcome event (0: none).
	Last(ctx context.Context, p int) (last, lastOutcome uint64, err error)
	// Read calls fn with each event of shard p's log after position
	// from, in order, until ctx ends (Read then returns nil) or fn fails.
	Read(ctx context.Context, p int, from uint64, fn func(seq uint64, e Event) error) error
	// Claim opens epoch on shard p: a fenced KindOutcome event with no
	// payload, expecting the shard's last KindOutcome event at
	// lastOutcome, after which a former owner's outcomes are refused. It
	// returns the claim's position. A log whose owners claim as they
	// take a shard's lease (package jetstream) returns that claim's
	// position, or ErrFenced when the node does not hold epoch.
	Claim(ctx context.Context, p int, epoch, lastOutcome uint64) (uint64, error)
}

// ErrFenced is ShardLog.Append's refusal of an outcome written by a node
// that no longer owns the shard.
var ErrFenced = errors.New("cluster: fenced: another node writes this shard's outcomes")

// Shards is a node's local state of the shards it owns:
// internal/frontier's Frontier opened with Options.Partial.
type Shards interface {
	Next(ctx context.Context) (crawl.Lease, error)
	// Complete ends a lease locally: a Node gives back, with Requeue and
	// no request made, a lease of a shard it may not fetch from now.
	Complete(ctx context.Context, l crawl.Lease, out crawl.Outcome) error
	Stats() crawl.FrontierStats
	SetShard(p uint16, own bool) error
	AddAt(ctx context.Context, links []crawl.Link, at crawl.Position) (int, error)
	ApplyOutcome(ctx context.Context, t crawl.Task, out crawl.Outcome, at crawl.Position) error
	Applied(p uint16) (uint64, error)
	DropShard(p uint16) error
	// ExportShard writes a snapshot of shard p and returns the log
	// position it includes; ImportShard replaces shard p's state with one.
	ExportShard(p uint16, w io.Writer) (uint64, error)
	ImportShard(p uint16, r io.Reader) (uint64, error)
}

// Snapshots keeps shard snapshots, so that shard logs can be cut short
// (package jetstream implements it over an object store and the crawl's
// control bucket). A snapshot at position seq is the state of the shard
// after applying its log up to seq; Save cuts the log up to seq.
//
// Stamp and Save are fenced by epoch, like outcomes: after a node
// stamped shard p at its epoch, a node of an earlier epoch can no longer
// save a snapshot of p, so it cannot cut the log under the new owner,
// which reads it from the latest snapshot on.
type Snapshots interface {
	// Stamp records that the owner of epoch takes shard p over, and
	// returns the position of the shard's latest snapshot (0: none) and
	// a way to read it. It returns ErrFenced when a later epoch stamped
	// the shard.
	Stamp(ctx context.Context, p int, epoch uint64) (seq uint64, open func(context.Context) (io.ReadCloser, error), err error)
	// Save stores data, a snapshot of shard p at position seq taken by
	// the owner of epoch, as the shard's latest, and cuts the shard's log
	// up to seq. A snapshot older than the latest is not stored (nil);
	// ErrFenced when a later epoch stamped the shard.
	Save(ctx context.Context, p int, epoch, seq uint64, data []byte) error
}

// NodeConfig configures a Node. Every field but Logger is required.
type NodeConfig struct {
	Name   string
	Shards Shards
	Log    ShardLog
	// EncodeOutcome and DecodeOutcome are the outcome payload's codec
	// (frontier.EncodeOutcome and frontier.DecodeOutcome).
	EncodeOutcome func(crawl.Task, crawl.Outcome) []byte
	DecodeOutcome func([]byte) (crawl.Task, crawl.Outcome, error)
	// Owns, when set, is the authority on whether this node may fetch
	// from shard p now (jetstream.Node.Owns: the lease is confirmed
	// recently enough); a lease of a shard it says no to is not handed
	// out, even before the shard is Lost.
	Owns func(p int) bool
	// Revoked, when set, tells whether Owns says no to shard p because
	// the assignment moved it away (jetstream.Node.Revoked): a handover,
	// which a node joining or leaving causes, rather than a lease not
	// confirmed, which is worth a warning.
	Revoked func(p int) bool
	// Snapshots, when set, stores a snapshot of each shard the node owns
	// after SnapshotEvents events of its log (default 2,000) and when the
	// node hands the shard over, and restores a shard from its latest
	// snapshot when it is ahead of the node's own state.
	Snapshots      Snapshots
	SnapshotEvents int
	Logger         *slog.Logger
}

// snapshotTimeout bounds the saving or loading of one snapshot (a
// handover or a takeover waits for it; when the store does not answer,
// the log is read instead, or kept).
const snapshotTimeout = 20 * time.Second

// DefaultSnapshotEvents is how many events of a shard's log a node
// applies between two snapshots of the shard.
const DefaultSnapshotEvents = 2000

// FlushInterval bounds how long a discovered link waits in a Node before
// it is appended to its shard's log when no outcome asks for it sooner.
const FlushInterval = 200 * time.Millisecond

// maxLinksPerEvent splits a shard's pending links into events of at most
// this many.
const maxLinksPerEvent = 500

// A Node is one crawler node's part of a cluster crawl, and the
// crawl.Frontier its workers use. It owns shards (Acquire, Release,
// Lose): for each it reads the shard's log and applies every event to its
// Shards in log order, and it leases the hosts of a shard only once it
// has caught up with the log and claimed the shard with a fenced claim
// event. Links the workers discover go to their shards' logs in batches
// (grouped by shard, several pages per batch); a page's outcome goes to
// its shard's log, fenced, after the page's links, and Complete returns
// once the outcome is applied. So every change is in a log before it is
// in any node's state, and a shard's next owner rebuilds it by reading
// the log: a node's death costs only the fetches whose outcomes it had
// not appended.
//
// Run must be running (it flushes links on a timer); Close stops the
// shards' readers. A Node is safe for concurrent use.
type Node struct {
	cfg NodeConfig
	log *slog.Logger

	base   context.Context // the readers' parent; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the readers

	mu      sync.Mutex
	owned   map[int]*owned
	changed chan struct{} // closed and replaced when a shard's reader moves
	// held maps the ID of each lease out to its host: a browser request
	// to that host is made under the lease (Visit), even while its shard
	// is being handed over.
	held map[uint64]string

	lmu     sync.Mutex
	pending map[int][]crawl.Link
	gen     uint64 // Add calls so far
	// sent holds the keys of the links this node has added: Add counts
	// a link as new when its key is not in it (see Add).
	sent    *dedup.Bloom
	flushMu sync.Mutex
	flushed uint64 // gen up to which links are in their logs
}

// owned is a shard the node owns or is taking over.
type owned struct {
	epoch   uint64
	cancel  context.CancelFunc
	done    chan struct{} // closed when the reader returned
	err     error         // why the reader stopped, when it failed
	applied uint64        // the reader's position
	lastOut uint64        // the last KindOutcome position seen or written
	active  bool          // claimed: its hosts are leased
	lost    bool
	// suspended: Owns said no; its hosts are not leased until it says
	// yes again (Run checks).
	suspended bool
	leases    int        // leases out
	pub       sync.Mutex // serializes fenced appends
	// events counts the events applied since the last snapshot;
	// snapping is set while one is taken.
	events   int
	snapping bool
}

var (
	_ crawl.Frontier = (*Node)(nil)
	_ crawl.Visitor  = (*Node)(nil)
)

// NewNode returns a Node owning no shard. It starts nothing.
func NewNode(cfg NodeConfig) (*Node, error) {
	if cfg.Name == "" || cfg.Shards == nil || cfg.Log == nil || cfg.EncodeOutcome == nil || cfg.DecodeOutcome == nil {
		return nil, errors.New("cluster: node: incomplete configuration")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.SnapshotEvents <= 0 {
		cfg.SnapshotEvents = DefaultSnapshotEvents
	}
	base, cancel := context.WithCancel(context.Background())
	return &Node{
		cfg: cfg, log: log.With("node", cfg.Name),
		base: base, cancel: cancel,
		owned:   map[int]*owned{},
		held:    map[uint64]string{},
		changed: make(chan struct{}),
		pending: map[int][]crawl.Link{},
		sent:    dedup.NewBloom(sentExpected, 10),
	}, nil
}

// Run appends pending links every FlushInterval until ctx ends.
func (n *Node) Run(ctx context.Context) error {
	tick := time.NewTicker(FlushInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := n.flush(ctx); err != nil && ctx.Err() == nil {
				n.log.Warn("links not appended yet; retrying", "err", err)
			}
			n.resume()
		}
	}
}

// resume leases again the hosts of suspended shards whose lease is
// confirmed again.
func (n *Node) resume() {
	if n.cfg.Owns == nil {
		return
	}
	// The shard is leased again under n.mu, as it is suspended (Next):
	// a suspension and a resumption must not cross (a shard left
	// suspended in the frontier but not marked so would never resume),
	// nor may a shard lost meanwhile be leased again.
	n.mu.Lock()
	defer n.mu.Unlock()
	for p, o := range n.owned {
		if !o.suspended || !o.active || o.lost || !n.cfg.Owns(p) {
			continue
		}
		if err := n.cfg.Shards.SetShard(uint16(p), true); err != nil {
			n.log.Error("resuming a shard", "shard", p, "err", err)
			continue
		}
		o.suspended = false
		n.log.Info("shard resumed: its lease is confirmed again", "shard", p)
	}
}

// Close stops reading every shard's log and waits for the readers. It
// does not release the shards: their leases expire.
func (n *Node) Close() error {
	n.cancel()
	n.wg.Wait()
	return nil
}

// broadcast wakes every waiter. n.mu must be held.
func (n *Node) broadcast() {
	close(n.changed)
	n.changed = make(chan struct{})
}

// wait blocks until cond (called with n.mu held) is true, the shard's
// reader stops, or ctx ends.
func (n *Node) wait(ctx context.Context, o *owned, cond func() bool) error {
	n.mu.Lock()
	for !cond() {
		select {
		case <-o.done:
			err := o.err
			n.mu.Unlock()
			if err == nil {
				err = errors.New("cluster: the shard's reader stopped")
			}
			return err
		default:
		}
		ch := n.changed
		n.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		case <-o.done:
		}
		n.mu.Lock()
	}
	n.mu.Unlock()
	return nil
}

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
			t, out, derr := n.cfg.DecodeOutcome(e.Payload)
			if derr != nil {
				// Written by a node of another version, or damaged: it
				// cannot be applied, and stopping here would stop the shard.
				n.log.Error("outcome event skipped", "shard", p, "seq", seq, "err", derr)
				_, err = n.cfg.Shards.AddAt(ctx, nil, at)
			} else {
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

// sentExpected sizes the filter of keys a node has added; it grows
// past it (dedup.Bloom is scalable), at about 1.25 bytes per key.
const sentExpected = 1 << 20

// Add queues links for their shards' logs; they are appended within
// FlushInterval, or before the outcome of the lease the worker completes
// next.
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
func (n *Node) Add(_ context.Context, links []crawl.Link) (int, error) {
	n.lmu.Lock()
	added := 0
	for _, l := range links {
		p := shard.Of(l.Host, DefaultShards)
		n.pending[p] = append(n.pending[p], l)
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

// Flush appends every link added so far to its shard's log.
func (n *Node) Flush(ctx context.Context) error { return n.flush(ctx) }

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

// Complete appends the links added so far and then the lease's outcome
// to its shard's log, and returns once the outcome is applied. When the
// shard was lost, or the append is fenced (another node owns the shard),
// the outcome is discarded and the shard given up.
func (n *Node) Complete(ctx context.Context, l crawl.Lease, out crawl.Outcome) error {
	p := shard.Of(l.Task.Host, DefaultShards)
	n.mu.Lock()
	o := n.owned[p]
	delete(n.held, l.ID) // its page's browser requests are over
	n.mu.Unlock()
	if o == nil {
		return nil
	}
	defer func() {
		n.mu.Lock()
		o.leases--
		n.broadcast()
		n.mu.Unlock()
	}()
	if err := n.flush(ctx); err != nil {
		return err
	}
	payload := n.cfg.EncodeOutcome(l.Task, out)
	o.pub.Lock()
	n.mu.Lock()
	lost, expect := o.lost, o.lastOut
	n.mu.Unlock()
	if lost {
		o.pub.Unlock()
		return nil
	}
	seq, err := n.cfg.Log.Append(ctx, Event{Kind: KindOutcome, Shard: p, Epoch: o.epoch, Payload: payload}, expect)
	if err == nil {
		n.mu.Lock()
		o.lastOut = max(o.lastOut, seq)
		n.mu.Unlock()
	}
	o.pub.Unlock()
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
	pending, gen := len(n.pending), n.gen
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
