package coord

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/blob"
	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/cluster/jetstream"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/frontier"
)

// Config says which cluster crawl a Session joins, and how.
type Config struct {
	// URL lists the NATS servers, nats://HOST:PORT[,nats://…].
	URL string
	// Crawl names the crawl; Node is this node's ID in it, stable across
	// restarts.
	Crawl, Node string
	// Replicas of each stream and bucket (0: 1).
	Replicas int
	// TTL of membership, leader and shard leases (0: 15 s). The node
	// reports its status every TTL/5.
	TTL time.Duration
	// SnapshotEvents is how many events of a shard's log its owner
	// applies between two snapshots (0: cluster.DefaultSnapshotEvents).
	SnapshotEvents int
	// Handoff is how long a revoked shard stays leased while its fetches
	// in flight end and their outcomes go out.
	Handoff time.Duration
	// Ends says whether the crawl can end (not a continuous one): only
	// then does the node take part in the end check.
	Ends bool
	// Settings are the crawl-defining settings, one "key: value" line
	// each: the crawl record stores them when it creates the crawl, and a
	// joining node's must match the record's (Compatible).
	Settings []byte
	// Bucket keeps shard snapshots under "snapshots/"; nil keeps them in
	// the crawl's JetStream object store.
	Bucket *blob.Bucket
	Logger *slog.Logger
}

// ConfigError is an error of a Session's configuration (settings that
// differ from the crawl's, a bad node configuration) rather than one of
// running it.
type ConfigError struct{ error }

func (e ConfigError) Unwrap() error { return e.error }

// Session is this process's membership in a cluster crawl: the NATS
// connection, the jetstream.Node (membership, leases, logs) and the
// cluster.Node the crawler uses as its frontier.
type Session struct {
	nc   *nats.Conn
	js   *jetstream.Node
	node *cluster.Node
	ips  *jetstream.IPSlots // the per-IP budget, when fetching directly
	log  *slog.Logger
	// tick is how often the node reports its status and, as leader,
	// takes a step of the end check.
	tick time.Duration
	ends bool
	// admin is this node's admin API address, for the status pages.
	admin atomic.Value // string: set once the admin server listens

	seedsQueued atomic.Int64  // of the crawl's seeds, those this node has queued
	seedsSynced chan struct{} // closed once this node's own seeds are in the crawl's list
	started     time.Time
	// before is this node's tally of its earlier runs; crawler is this
	// run's, once started (its counts are added to before).
	before  Tally
	crawler *crawl.Crawler

	changes changeQueue
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// changeQueue hands jetstream.Node's changes (its Notify must not block)
// to the goroutine that applies them, in order.
type changeQueue struct {
	mu     sync.Mutex
	items  []jetstream.Change
	signal chan struct{}
}

func (q *changeQueue) push(c jetstream.Change) {
	q.mu.Lock()
	q.items = append(q.items, c)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *changeQueue) pop() []jetstream.Change {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// s3Blobs keeps shard snapshots in an object store bucket, under prefix.
type s3Blobs struct {
	bucket *blob.Bucket
	prefix string
}

func (b s3Blobs) Put(ctx context.Context, name string, data []byte) error {
	_, err := b.bucket.Put(ctx, b.prefix+name, bytes.NewReader(data), int64(len(data)))
	return err
}

func (b s3Blobs) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	return b.bucket.Get(ctx, b.prefix+name)
}

func (b s3Blobs) Delete(ctx context.Context, name string) error {
	return b.bucket.Delete(ctx, b.prefix+name)
}

// Join connects to the crawl c names (creating it, with c.Settings, if
// it does not exist) with fr, a Partial frontier, as the state of the
// shards this node will own. Its errors are ConfigErrors when the
// configuration is at fault.
func Join(ctx context.Context, c Config, fr *frontier.Frontier) (*Session, error) {
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	nc, err := nats.Connect(c.URL, nats.Name("godwit "+c.Crawl+"/"+c.Node), nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond), nats.Timeout(5*time.Second))
	if err != nil {
		return nil, fmt.Errorf("cluster: %s: %w", c.URL, err)
	}
	ttl := c.TTL
	if ttl == 0 {
		ttl = 15 * time.Second
	}
	s := &Session{nc: nc, log: log.With("node", c.Node), tick: ttl / 5, ends: c.Ends,
		seedsSynced: make(chan struct{}), started: time.Now()}
	s.changes.signal = make(chan struct{}, 1)
	jn, err := jetstream.Open(ctx, nc, jetstream.Config{
		Crawl: c.Crawl, Node: c.Node, Replicas: max(c.Replicas, 1),
		MemberTTL: ttl, LeaderTTL: ttl, LeaseTTL: ttl,
		// A revoked shard stays leased while its fetches in flight end
		// and their outcomes go out; Release hands it over sooner.
		Handoff:    c.Handoff,
		Settings:   c.Settings,
		Compatible: Compatible,
		Notify:     s.changes.push,
		Logger:     log,
	})
	if err != nil {
		nc.Close()
		if errors.Is(err, jetstream.ErrConflict) {
			return nil, ConfigError{fmt.Errorf("cluster: this node's settings differ from crawl %q's: %w", c.Crawl, err)}
		}
		return nil, err
	}
	s.js = jn
	fail := func(err error) (*Session, error) {
		jn.Close()
		nc.Close()
		return nil, err
	}
	if b, err := jn.Tally(ctx); err != nil {
		return fail(err)
	} else if b != nil {
		_ = json.Unmarshal(b, &s.before) // an unreadable tally counts from zero
	}
	// Shard snapshots go to the object store with the WARC files, or,
	// without one, to the crawl's JetStream object store.
	var blobs jetstream.Blobs
	if c.Bucket != nil {
		blobs = s3Blobs{c.Bucket, "snapshots/"}
	} else if blobs, err = jn.ObjectStore(ctx); err != nil {
		return fail(err)
	}
	// What the store kept of shards this node held before it stopped is
	// not its own now: read again from their snapshots and logs if it
	// takes them again (frontier.DropUnowned).
	if n, err := fr.DropUnowned(); err != nil {
		return fail(err)
	} else if n > 0 {
		log.Info("cluster: dropped this node's earlier state of shards it may not own now", "shards", n)
	}
	s.node, err = cluster.NewNode(cluster.NodeConfig{
		Name: c.Node, Shards: fr, Log: jn.ShardLog(),
		EncodeOutcome: frontier.EncodeOutcome, DecodeOutcome: frontier.DecodeOutcome,
		Owns:           func(p int) bool { _, ok := jn.Owns(p); return ok },
		Revoked:        jn.Revoked,
		Snapshots:      jn.Snapshots(blobs),
		SnapshotEvents: c.SnapshotEvents,
		Logger:         log,
	})
	if err != nil {
		return fail(ConfigError{err})
	}
	// The per-IP budget holds across the nodes: each address's slots
	// are keys of the crawl's bucket (jetstream.IPSlots).
	if n, on := fr.IPConcurrency(); on && n > 0 {
		if s.ips, err = jn.IPSlots(ctx, fr, n); err != nil {
			return fail(err)
		}
		s.ips.SpaceStarts(fr.IPDelay()) // and the IP delay, on addresses nodes share
		var _ frontier.IPStarts = s.ips
		fr.SetIPBudget(s.ips)
	}
	return s, nil
}

// Frontier is the frontier the crawler uses: the shards this node owns,
// links to others' sent to their logs.
func (s *Session) Frontier() crawl.Frontier { return s.node }

// SetAdmin records this node's admin API address for the status pages,
// once the admin server listens.
func (s *Session) SetAdmin(addr string) { s.admin.Store(addr) }

// Status reads the cluster crawl's status as this node sees it
// (ReadStatus).
func (s *Session) Status(ctx context.Context) (admin.ClusterStatus, error) {
	return ReadStatus(ctx, s.js, s.js.Name())
}

// Collector exports the cluster crawl's status on /metrics (Collector).
func (s *Session) Collector() prometheus.Collector { return Collector(s.js) }

// Start runs the node's membership, its shards' logs and the crawl's
// shared seeds until Stop: seeds given here are added to the crawl's
// list, and the seeds any node adds widen c's scope. The node reports
// its status every tick; finish is called once the crawl is over (every
// node idle: see cluster.Ended), which a continuous crawl never is.
func (s *Session) Start(seeds []string, c *crawl.Crawler, finish func()) {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.crawler = c
	s.wg.Go(func() {
		if err := s.js.Run(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("cluster membership stopped", "err", err)
		}
	})
	s.wg.Go(func() { s.node.Run(ctx) })
	if s.ips != nil {
		s.wg.Go(func() { _ = s.ips.Run(ctx) })
	}
	s.wg.Go(func() { s.applyChanges(ctx) })
	s.wg.Go(func() { s.syncSeeds(ctx, seeds, c) })
	s.wg.Go(func() { s.report(ctx, c, finish) })
	s.wg.Go(func() { s.keepTally(ctx) })
}

// Stop ends the node's part in the crawl after the crawler stopped: the
// links still pending go out, the node leaves (its shards' leases are
// deleted, so the others take them over at once), and the logs' readers
// stop.
func (s *Session) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := s.node.Flush(ctx)
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
	// The crawler has stopped: its counts are final.
	if s.crawler != nil {
		err = errors.Join(err, s.writeTally(ctx, s.tally()))
	}
	err = errors.Join(err, s.js.Leave(ctx), s.node.Close())
	s.js.Close()
	s.nc.Close()
	return err
}

// applyChanges makes the cluster.Node follow the shards jetstream.Node
// holds: an acquired shard is caught up and claimed, a revoked one handed
// over, a lost one dropped. Each shard's changes are applied in order
// (an Acquired of a new epoch may follow a Lost of the old one), different
// shards' at once, up to 64 at a time (a node joining or leaving moves
// hundreds of shards; a slow takeover must not hold up the others).
func (s *Session) applyChanges(ctx context.Context) {
	var (
		mu      sync.Mutex
		queues  = map[int][]jetstream.Change{}
		running sync.WaitGroup
		slots   = make(chan struct{}, 64)
	)
	defer running.Wait()
	drain := func(p int) { // one goroutine per shard with changes waiting, while they wait
		for {
			mu.Lock()
			q := queues[p]
			if len(q) == 0 {
				delete(queues, p)
				mu.Unlock()
				return
			}
			ch := q[0]
			queues[p] = q[1:]
			mu.Unlock()
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			s.apply(ctx, ch)
			<-slots
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.changes.signal:
		}
		for _, ch := range s.changes.pop() {
			mu.Lock()
			_, busy := queues[ch.Shard] // a drainer runs while its key is there
			queues[ch.Shard] = append(queues[ch.Shard], ch)
			mu.Unlock()
			if !busy {
				running.Go(func() { drain(ch.Shard) })
			}
		}
	}
}

// apply applies one change of a shard's hold. Changes are applied in
// order but may be applied late (many shards change at once when nodes
// join or NATS elects leaders): a change of an epoch the node no longer
// holds is stale and skipped, so that it cannot undo a newer hold (take
// over, hand back or drop the shard the node holds now).
func (s *Session) apply(ctx context.Context, ch jetstream.Change) {
	switch ch.Kind {
	case jetstream.Acquired:
		if !s.js.Holds(ch.Shard, ch.Epoch) {
			return // lost or handed over since
		}
		if err := s.node.Acquire(ctx, ch.Shard, ch.Epoch); err != nil && ctx.Err() == nil {
			// Handing the lease back lets the shard be claimed again (by
			// this node at its next reconciliation, or another).
			s.log.Warn("shard not taken over; handing its lease back", "shard", ch.Shard, "err", err)
			if err := s.js.ReleaseAt(ctx, ch.Shard, ch.Epoch); err != nil {
				s.log.Warn("releasing a shard's lease", "shard", ch.Shard, "err", err)
			}
		}
	case jetstream.Revoked:
		if epoch, ok := s.node.Epoch(ch.Shard); ok && epoch != ch.Epoch {
			return
		}
		if err := s.node.Release(ctx, ch.Shard); err != nil && ctx.Err() == nil {
			s.log.Warn("shard not handed over cleanly; its lease will expire", "shard", ch.Shard, "err", err)
			return
		}
		if err := s.js.ReleaseAt(ctx, ch.Shard, ch.Epoch); err != nil && ctx.Err() == nil {
			s.log.Warn("releasing a shard's lease", "shard", ch.Shard, "err", err)
		}
	case jetstream.Lost:
		if epoch, ok := s.node.Epoch(ch.Shard); ok && epoch > ch.Epoch {
			return
		}
		s.log.Info("cluster: shard lost; its fetches in flight will be done again by its next owner", "shard", ch.Shard, "err", ch.Err)
		if err := s.node.Lose(ch.Shard); err != nil {
			s.log.Warn("dropping a lost shard", "shard", ch.Shard, "err", err)
		}
	}
}

// syncSeeds adds this node's seeds to the crawl's list, then keeps the
// crawler's scope up to date with every node's seeds. Seeds new to the
// list make a finished crawl run again.
func (s *Session) syncSeeds(ctx context.Context, mine []string, c *crawl.Crawler) {
	known := map[string]bool{}
	// Polled often: a node must know the seeds before it judges the
	// links of their sites' pages (the owner of a seed widens its scope
	// when it fetches it; see crawl's seedScope).
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	synced := false
	for {
		var all []string
		var err error
		if !synced && len(mine) > 0 {
			var added bool
			all, added, err = s.js.AddSeeds(ctx, mine)
			if err == nil && added {
				err = s.js.Reopen(ctx)
			}
		} else {
			all, err = s.js.Seeds(ctx)
		}
		if err != nil && ctx.Err() == nil {
			s.log.Warn("reading the crawl's seeds", "err", err)
		}
		var fresh []string
		for _, u := range all {
			if !known[u] {
				fresh = append(fresh, u)
			}
		}
		if len(fresh) > 0 {
			// Queued again on purpose: the links reach the seeds' shards
			// whoever owns them; a seen one is a no-op there.
			if _, aerr := c.AddSeeds(ctx, fresh); aerr != nil {
				if ctx.Err() == nil {
					s.log.Warn("adding the crawl's seeds", "err", aerr)
				}
			} else {
				for _, u := range fresh {
					known[u] = true
				}
				s.seedsQueued.Store(int64(len(known)))
			}
		}
		if !synced && err == nil {
			synced = true
			close(s.seedsSynced)
		}
		if !synced && ctx.Err() == nil {
			continue // try the seeds again at once after a failure
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
