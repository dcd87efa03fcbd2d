package cluster

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/dedup"
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
	// Add applies links without moving any shard's applied position:
	// the links an outcome event carries, applied just before the
	// outcome, which moves it (a crash in between applies them again
	// when the event is read again, as a link batch appended twice is).
	Add(ctx context.Context, links []crawl.Link) (int, error)
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
	// own holds, by lease ID, the links a lease's page found to hosts of
	// the lease's own shard (Add under crawl.WithLease): they go in the
	// lease's outcome event (Complete), one message fewer per page.
	own map[uint64][]crawl.Link
	gen uint64 // Add calls so far
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
		own:     map[uint64][]crawl.Link{},
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
