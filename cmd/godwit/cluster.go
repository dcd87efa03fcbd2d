package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"

	"github.com/godwit-crawler/godwit/internal/blob"
	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/cluster/jetstream"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/frontier"
	"github.com/godwit-crawler/godwit/internal/upload"
)

// clusterSettings join a crawl that runs across several nodes
// (docs/cluster.md). Without a URL the crawl is single-node.
type clusterSettings struct {
	// URL lists the NATS servers, nats://HOST:PORT[,nats://…].
	URL string `yaml:"url"`
	// Crawl names the crawl every node joins; Node is this node's ID in
	// it, stable across restarts.
	Crawl string `yaml:"crawl"`
	Node  string `yaml:"node"`
	// Replicas of each stream and bucket: 3 on a 3-server NATS cluster.
	Replicas int `yaml:"replicas"`
	// TTL of membership, leader and shard leases (whole seconds, ≥ 2 s):
	// a node that dies loses its shards this long after its last renewal.
	TTL time.Duration `yaml:"ttl"`
	// SnapshotEvents is how many events of a shard's log its owner
	// applies between two snapshots of the shard (which cut the log).
	SnapshotEvents int `yaml:"snapshot_events"`
}

// s3Blobs keeps shard snapshots in the crawl's --store bucket, under
// prefix.
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

func (f *crawlFlags) registerCluster(fs *pflag.FlagSet) {
	fs.StringVar(&f.s.Cluster.URL, "cluster", "", "join a cluster crawl through these NATS servers (nats://HOST:PORT[,...]; docs/cluster.md)")
	fs.StringVar(&f.s.Cluster.Crawl, "crawl", "", "with --cluster: the name of the crawl to join or create")
	fs.StringVar(&f.s.Cluster.Node, "node", "", "with --cluster: this node's ID in the crawl, stable across restarts")
	fs.IntVar(&f.s.Cluster.Replicas, "cluster-replicas", 1, "with --cluster: copies of the crawl's streams and buckets (3 on a 3-server NATS cluster)")
	fs.DurationVar(&f.s.Cluster.TTL, "cluster-ttl", 15*time.Second, "with --cluster: lease and membership TTL (whole seconds, at least 2s): a dead node's shards move this long after its last renewal")
	fs.IntVar(&f.s.Cluster.SnapshotEvents, "cluster-snapshot-events", cluster.DefaultSnapshotEvents, "with --cluster: events of a shard's log between two snapshots of the shard, which cut its log")
}

func (f *crawlFlags) applyCluster(fs *pflag.FlagSet, s *crawlSettings) {
	set := func(name string, apply func()) {
		if fs.Changed(name) {
			apply()
		}
	}
	set("cluster", func() { s.Cluster.URL = f.s.Cluster.URL })
	set("crawl", func() { s.Cluster.Crawl = f.s.Cluster.Crawl })
	set("node", func() { s.Cluster.Node = f.s.Cluster.Node })
	set("cluster-replicas", func() { s.Cluster.Replicas = f.s.Cluster.Replicas })
	set("cluster-ttl", func() { s.Cluster.TTL = f.s.Cluster.TTL })
	set("cluster-snapshot-events", func() { s.Cluster.SnapshotEvents = f.s.Cluster.SnapshotEvents })
}

func (c clusterSettings) validate() error {
	if c.URL == "" {
		if c.Crawl != "" || c.Node != "" {
			return errors.New("--crawl and --node need --cluster")
		}
		return nil
	}
	if c.Crawl == "" || c.Node == "" {
		return errors.New("--cluster needs --crawl NAME and --node NODE")
	}
	if c.TTL != 0 && (c.TTL < 2*time.Second || c.TTL%time.Second != 0) {
		return fmt.Errorf("--cluster-ttl %v: want whole seconds, at least 2s", c.TTL)
	}
	if c.SnapshotEvents < 0 {
		return fmt.Errorf("--cluster-snapshot-events %d: want a positive count", c.SnapshotEvents)
	}
	if c.Replicas < 0 || c.Replicas > 5 {
		return fmt.Errorf("--cluster-replicas %d: want 1 to 5", c.Replicas)
	}
	return nil
}

// clusterShared are the settings (config-file keys, and the sections
// whose keys start with these) every node of a cluster crawl must share:
// what is crawled and how politely. The rest (workers, proxy, timeouts,
// WARC naming, the object store) may differ from node to node.
var clusterShared = []string{
	"scope", "max_depth", "delay", "crawl_delay_cap", "ip_concurrency", "ip_delay", "user_agent", "contact",
	"max_body_bytes", "continuous", "order", "recrawl.", "robots.", "adapt.",
	"dedup.", "url.", "include.", "exclude.", "traps.",
}

// sharedSettings is the crawl-defining part of s, one "key: value" line
// per setting: what the crawl record stores and a joining node must
// match.
func sharedSettings(s crawlSettings) []byte {
	n, _ := storedSettings(s)
	var b strings.Builder
	for _, st := range flattenSettings(n) {
		if slices.ContainsFunc(clusterShared, func(p string) bool {
			return st.key == p || strings.HasSuffix(p, ".") && strings.HasPrefix(st.key, p)
		}) {
			fmt.Fprintf(&b, "%s: %s\n", st.key, st.value)
		}
	}
	return []byte(b.String())
}

// compatibleSettings says which shared settings a node would change.
func compatibleSettings(stored, mine []byte) error {
	parse := func(b []byte) map[string]string {
		m := map[string]string{}
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ": "); ok {
				m[k] = v
			}
		}
		return m
	}
	a, b := parse(stored), parse(mine)
	var diffs []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			diffs = append(diffs, fmt.Sprintf("%s is %s in the crawl, %s here", k, v, orNone(w, ok)))
		}
	}
	for k, w := range b {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s is unset in the crawl, %s here", k, w))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	slices.Sort(diffs)
	return errors.New(strings.Join(diffs, "; "))
}

func orNone(v string, ok bool) string {
	if !ok {
		return "unset"
	}
	return v
}

// clusterNode is this process's membership in a cluster crawl: the
// NATS connection, the jetstream.Node (membership, leases, logs) and
// the cluster.Node the crawler uses as its frontier.
type clusterNode struct {
	nc   *nats.Conn
	js   *jetstream.Node
	node *cluster.Node
	log  *slog.Logger
	// tick is how often the node reports its status and, as leader,
	// takes a step of the end check.
	tick time.Duration
	// ends says whether the crawl can end (not a continuous one); admin
	// is this node's admin API address, for the status pages.
	ends  bool
	admin atomic.Value // string: set once the admin server listens

	seedsQueued atomic.Int64  // of the crawl's seeds, those this node has queued
	seedsSynced chan struct{} // closed once this node's own seeds are in the crawl's list
	started     time.Time
	// before is this node's tally of its earlier runs; crawler is this
	// run's, once started (its counts are added to before).
	before  nodeTally
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

// joinCluster connects to the crawl s.Cluster names (creating it, with
// s's shared settings, if it does not exist) with fr, a Partial
// frontier, as the state of the shards this node will own.
func joinCluster(ctx context.Context, s crawlSettings, fr *frontier.Frontier, ws *upload.Spool, log *slog.Logger) (*clusterNode, error) {
	c := s.Cluster
	nc, err := nats.Connect(c.URL, nats.Name("godwit "+c.Crawl+"/"+c.Node), nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond), nats.Timeout(5*time.Second))
	if err != nil {
		return nil, failure{fmt.Errorf("cluster: %s: %w", c.URL, err)}
	}
	ttl := c.TTL
	if ttl == 0 {
		ttl = 15 * time.Second
	}
	cn := &clusterNode{nc: nc, log: log.With("node", c.Node), tick: ttl / 5, ends: !s.Continuous,
		seedsSynced: make(chan struct{}), started: time.Now()}
	cn.changes.signal = make(chan struct{}, 1)
	jn, err := jetstream.Open(ctx, nc, jetstream.Config{
		Crawl: c.Crawl, Node: c.Node, Replicas: max(c.Replicas, 1),
		MemberTTL: ttl, LeaderTTL: ttl, LeaseTTL: ttl,
		// A revoked shard stays leased while its fetches in flight end
		// and their outcomes go out; Release hands it over sooner.
		Handoff:    s.Timeout + 5*time.Second,
		Settings:   sharedSettings(s),
		Compatible: compatibleSettings,
		Notify:     cn.changes.push,
		Logger:     log,
	})
	if err != nil {
		nc.Close()
		if errors.Is(err, jetstream.ErrConflict) {
			return nil, fmt.Errorf("cluster: this node's settings differ from crawl %q's: %w", c.Crawl, err)
		}
		return nil, failure{err}
	}
	cn.js = jn
	if b, err := jn.Tally(ctx); err != nil {
		jn.Close()
		nc.Close()
		return nil, failure{err}
	} else if b != nil {
		_ = json.Unmarshal(b, &cn.before) // an unreadable tally counts from zero
	}
	// Shard snapshots go to the object store with the WARC files, or,
	// without one, to the crawl's JetStream object store.
	var blobs jetstream.Blobs
	if ws != nil {
		blobs = s3Blobs{ws.Bucket(), "snapshots/"}
	} else if blobs, err = jn.ObjectStore(ctx); err != nil {
		jn.Close()
		nc.Close()
		return nil, failure{err}
	}
	// What the store kept of shards this node held before it stopped is
	// not its own now: read again from their snapshots and logs if it
	// takes them again (frontier.DropUnowned).
	if n, err := fr.DropUnowned(); err != nil {
		jn.Close()
		nc.Close()
		return nil, failure{err}
	} else if n > 0 {
		log.Info("cluster: dropped this node's earlier state of shards it may not own now", "shards", n)
	}
	cn.node, err = cluster.NewNode(cluster.NodeConfig{
		Name: c.Node, Shards: fr, Log: jn.ShardLog(),
		EncodeOutcome: frontier.EncodeOutcome, DecodeOutcome: frontier.DecodeOutcome,
		Owns:           func(p int) bool { _, ok := jn.Owns(p); return ok },
		Revoked:        jn.Revoked,
		Snapshots:      jn.Snapshots(blobs),
		SnapshotEvents: c.SnapshotEvents,
		Logger:         log,
	})
	if err != nil {
		jn.Close()
		nc.Close()
		return nil, err
	}
	return cn, nil
}

// start runs the node's membership, its shards' logs and the crawl's
// shared seeds until stop: seeds given here are added to the crawl's list,
// and the seeds any node adds widen c's scope. The node reports its
// status every tick; finish is called once the crawl is over (every
// node idle: see cluster.Ended), which a continuous crawl never is.
func (cn *clusterNode) start(seeds []string, c *crawl.Crawler, finish func()) {
	ctx, cancel := context.WithCancel(context.Background())
	cn.cancel = cancel
	cn.crawler = c
	cn.wg.Go(func() {
		if err := cn.js.Run(ctx); err != nil && ctx.Err() == nil {
			cn.log.Error("cluster membership stopped", "err", err)
		}
	})
	cn.wg.Go(func() { cn.node.Run(ctx) })
	cn.wg.Go(func() { cn.applyChanges(ctx) })
	cn.wg.Go(func() { cn.syncSeeds(ctx, seeds, c) })
	cn.wg.Go(func() { cn.report(ctx, c, finish) })
	cn.wg.Go(func() { cn.keepTally(ctx) })
}

// applyChanges makes the cluster.Node follow the shards jetstream.Node
// holds: an acquired shard is caught up and claimed, a revoked one handed
// over, a lost one dropped. Each shard's changes are applied in order
// (an Acquired of a new epoch may follow a Lost of the old one), different
// shards' at once, up to 64 at a time (a node joining or leaving moves
// hundreds of shards; a slow takeover must not hold up the others).
func (cn *clusterNode) applyChanges(ctx context.Context) {
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
			cn.apply(ctx, ch)
			<-slots
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-cn.changes.signal:
		}
		for _, ch := range cn.changes.pop() {
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
func (cn *clusterNode) apply(ctx context.Context, ch jetstream.Change) {
	switch ch.Kind {
	case jetstream.Acquired:
		if !cn.js.Holds(ch.Shard, ch.Epoch) {
			return // lost or handed over since
		}
		if err := cn.node.Acquire(ctx, ch.Shard, ch.Epoch); err != nil && ctx.Err() == nil {
			// Handing the lease back lets the shard be claimed again (by
			// this node at its next reconciliation, or another).
			cn.log.Warn("shard not taken over; handing its lease back", "shard", ch.Shard, "err", err)
			if err := cn.js.ReleaseAt(ctx, ch.Shard, ch.Epoch); err != nil {
				cn.log.Warn("releasing a shard's lease", "shard", ch.Shard, "err", err)
			}
		}
	case jetstream.Revoked:
		if epoch, ok := cn.node.Epoch(ch.Shard); ok && epoch != ch.Epoch {
			return
		}
		if err := cn.node.Release(ctx, ch.Shard); err != nil && ctx.Err() == nil {
			cn.log.Warn("shard not handed over cleanly; its lease will expire", "shard", ch.Shard, "err", err)
			return
		}
		if err := cn.js.ReleaseAt(ctx, ch.Shard, ch.Epoch); err != nil && ctx.Err() == nil {
			cn.log.Warn("releasing a shard's lease", "shard", ch.Shard, "err", err)
		}
	case jetstream.Lost:
		if epoch, ok := cn.node.Epoch(ch.Shard); ok && epoch > ch.Epoch {
			return
		}
		if err := cn.node.Lose(ch.Shard); err != nil {
			cn.log.Warn("dropping a lost shard", "shard", ch.Shard, "err", err)
		}
	}
}

// syncSeeds adds this node's seeds to the crawl's list, then keeps the
// crawler's scope up to date with every node's seeds. Seeds new to the
// list make a finished crawl run again.
func (cn *clusterNode) syncSeeds(ctx context.Context, mine []string, c *crawl.Crawler) {
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
			all, added, err = cn.js.AddSeeds(ctx, mine)
			if err == nil && added {
				err = cn.js.Reopen(ctx)
			}
		} else {
			all, err = cn.js.Seeds(ctx)
		}
		if err != nil && ctx.Err() == nil {
			cn.log.Warn("reading the crawl's seeds", "err", err)
		}
		var fresh []string
		for _, s := range all {
			if !known[s] {
				fresh = append(fresh, s)
			}
		}
		if len(fresh) > 0 {
			// Queued again on purpose: the links reach the seeds' shards
			// whoever owns them; a seen one is a no-op there.
			if _, aerr := c.AddSeeds(ctx, fresh); aerr != nil {
				if ctx.Err() == nil {
					cn.log.Warn("adding the crawl's seeds", "err", aerr)
				}
			} else {
				for _, s := range fresh {
					known[s] = true
				}
				cn.seedsQueued.Store(int64(len(known)))
			}
		}
		if !synced && err == nil {
			synced = true
			close(cn.seedsSynced)
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

// nodeStats are what a node reports in its member key every tick: the
// cluster's status pages show them, and the end check reads End.
type nodeStats struct {
	Started        time.Time         `json:"started"`
	Pages          int64             `json:"pages"`
	Requests       int64             `json:"requests"`         // every answer: pages, redirects, robots.txt, sitemaps, requisites
	PagesPerSecond float64           `json:"pages_per_second"` // over the last minute
	Queued         int               `json:"queued"`
	InFlight       int               `json:"in_flight"`
	Shards         int               `json:"shards"` // owned and claimed
	Admin          string            `json:"admin,omitempty"`
	End            cluster.EndReport `json:"end"`
}

// report writes this node's status to its member key every tick and,
// while the node leads, decides whether the crawl is over; once it is
// (the crawl's done record is there), it calls finish and returns.
func (cn *clusterNode) report(ctx context.Context, c *crawl.Crawler, finish func()) {
	select {
	case <-cn.seedsSynced: // a node that brings new seeds reopens the crawl first
	case <-ctx.Done():
		return
	}
	tick := time.NewTicker(cn.tick)
	defer tick.Stop()
	var check endCheck
	for {
		if cn.ends {
			d, err := cn.js.Done(ctx)
			if err != nil && ctx.Err() == nil {
				cn.log.Warn("reading whether the crawl is over", "err", err)
			}
			if d != nil {
				cn.log.Info("the cluster crawl is over: every node is idle and every shard caught up",
					"decided_by", d.By, "at", d.At)
				finish()
				return
			}
		}
		st := cn.stats(ctx, c)
		if b, err := json.Marshal(st); err == nil {
			if err := cn.js.Report(ctx, b); err != nil && ctx.Err() == nil {
				cn.log.Warn("cluster: status not reported", "err", err)
			}
		}
		if cn.ends && cn.js.IsLeader() {
			if err := check.step(ctx, cn); err != nil && ctx.Err() == nil {
				cn.log.Warn("cluster: end check", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// nodeTally is what a node has done for the crawl over all its runs,
// kept in the crawl's control bucket (jetstream.Node.WriteTally) after
// the node is gone: the crawl's totals add up every node's.
type nodeTally struct {
	Pages    int64 `json:"pages"`
	Requests int64 `json:"requests"`
}

// requests counts every answer of a run: pages, redirects, robots.txt,
// sitemaps, requisites.
func requests(cs crawl.Stats) int64 {
	return cs.Pages + cs.Redirects + cs.RobotsFetches + cs.SitemapFetches + cs.Requisites
}

// tallyEvery is how often a node's tally is written when it changed: a
// node killed loses what it did since (and its fetches in flight).
const tallyEvery = 250 * time.Millisecond

// keepTally writes the node's tally whenever it changed, every
// tallyEvery, until ctx ends (stop writes the last one).
func (cn *clusterNode) keepTally(ctx context.Context) {
	t := time.NewTicker(tallyEvery)
	defer t.Stop()
	var written nodeTally
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := cn.tally()
		if now == written {
			continue
		}
		if err := cn.writeTally(ctx, now); err != nil {
			if ctx.Err() == nil {
				cn.log.Warn("cluster: tally not written", "err", err)
			}
			continue
		}
		written = now
	}
}

// tally is the node's tally now: its earlier runs' and this one's so far.
func (cn *clusterNode) tally() nodeTally {
	cs := cn.crawler.Stats()
	return nodeTally{Pages: cn.before.Pages + cs.Pages, Requests: cn.before.Requests + requests(cs)}
}

func (cn *clusterNode) writeTally(ctx context.Context, t nodeTally) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return cn.js.WriteTally(ctx, b)
}

// stats are this node's status now. The end check's round is read
// before the node looks at itself, so that the report is newer than the
// round.
func (cn *clusterNode) stats(ctx context.Context, c *crawl.Crawler) nodeStats {
	st := nodeStats{Started: cn.started}
	st.Admin, _ = cn.admin.Load().(string)
	if cn.ends {
		round, err := cn.js.EndRound(ctx)
		if err == nil {
			st.End.Round = round
			st.End.Seeds = int(cn.seedsQueued.Load())
			st.End.Shards, st.End.Quiet, err = cn.node.Quiet(ctx)
		}
		if err != nil && ctx.Err() == nil {
			cn.log.Warn("cluster: end check", "err", err)
			st.End = cluster.EndReport{}
		}
	}
	cs := c.Stats()
	st.Pages = cs.Pages
	st.Requests = requests(cs)
	st.PagesPerSecond = c.Activity().Pages1m
	st.Queued, st.InFlight = cs.Frontier.Queued, cs.Frontier.InFlight
	st.Shards = len(cn.node.Owned())
	return st
}

// endCheck is the leader's side of the end check (cluster.Ended): the
// round it opened, and the streams' last sequences before it.
type endCheck struct {
	round   uint64
	last    []uint64
	started time.Time
	why     string // why the last round found the crawl not over
}

// endCheckPatience is how long a round waits for every node's report
// before it is given up (a new one starts when all are quiet again).
const endCheckPatience = 30 * time.Second

// step advances the end check: it opens a round when every node last
// said it is quiet, and closes it when every node has reported for it,
// marking the crawl done when cluster.Ended holds and no stream moved.
func (e *endCheck) step(ctx context.Context, cn *clusterNode) error {
	members, err := cn.js.Members(ctx)
	if err != nil {
		return err
	}
	reports := make(map[string]cluster.EndReport, len(members))
	allQuiet, allIn := len(members) > 0, true
	for _, m := range members {
		var st nodeStats
		if json.Unmarshal(m.Stats, &st) != nil {
			st = nodeStats{}
		}
		reports[m.ID] = st.End
		allQuiet = allQuiet && st.End.Quiet
		allIn = allIn && st.End.Round >= e.round
	}
	if e.round == 0 {
		if allQuiet {
			e.round, e.last, err = cn.js.StartEndCheck(ctx)
			e.started = time.Now()
		}
		return err
	}
	if !allIn {
		if time.Since(e.started) > endCheckPatience {
			e.round = 0
		}
		return nil
	}
	round, last := e.round, e.last
	e.round = 0
	a, err := cn.js.ReadAssignment(ctx)
	if err != nil {
		return err
	}
	seeds, err := cn.js.Seeds(ctx)
	if err != nil {
		return err
	}
	if ok, why := cluster.Ended(round, reports, a, len(seeds)); !ok {
		e.goesOn(cn, round, why)
		return nil
	}
	now, err := cn.js.StreamsLast(ctx)
	if err != nil {
		return err
	}
	if !slices.Equal(now, last) {
		e.goesOn(cn, round, "events were appended during the round")
		return nil
	}
	cn.log.Info("cluster: the crawl is over", "round", round, "nodes", len(reports))
	return cn.js.MarkDone(ctx, jetstream.Done{At: time.Now().UTC(), By: cn.js.Name(), Round: round})
}

// goesOn logs why a round of nodes all quiet did not end the crawl: at
// Info when the reason is new (an operator wondering why a crawl with
// nothing to fetch does not end sees why), at Debug when it repeats.
func (e *endCheck) goesOn(cn *clusterNode, round uint64, why string) {
	level := slog.LevelDebug
	if why != e.why {
		level = slog.LevelInfo
	}
	e.why = why
	cn.log.Log(context.Background(), level, "cluster: the crawl goes on", "round", round, "because", why)
}

// stop ends the node's part in the crawl after the crawler stopped: the
// links still pending go out, the node leaves (its shards' leases are
// deleted, so the others take them over at once), and the logs' readers
// stop.
func (cn *clusterNode) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := cn.node.Flush(ctx)
	if cn.cancel != nil {
		cn.cancel()
	}
	cn.wg.Wait()
	// The crawler has stopped: its counts are final.
	if cn.crawler != nil {
		err = errors.Join(err, cn.writeTally(ctx, cn.tally()))
	}
	err = errors.Join(err, cn.js.Leave(ctx), cn.node.Close())
	cn.js.Close()
	cn.nc.Close()
	return err
}
