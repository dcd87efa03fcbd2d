package jetstream

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

// Config configures a Node. The zero value of a field means its default
// (Default); Validate checks the result.
type Config struct {
	// Crawl names the crawl: its streams, buckets and subjects. Letters,
	// digits, '-' and '_'.
	Crawl string
	// Node is this node's ID, unique in the crawl and stable across
	// restarts. Letters, digits, '-' and '_'.
	Node string
	// Capacity weighs this node's share of shards (cluster.Member).
	Capacity int

	Shards   int // P, fixed when the crawl is created; default cluster.DefaultShards
	Streams  int // S: shard p lives in stream p mod S; default 16
	Replicas int // copies of every stream and bucket: 3 on a 3-server cluster; default 1

	// StreamMaxBytes bounds each stream; a full stream refuses publishes
	// (DiscardNew), which publishers treat as backpressure. Default
	// 256 MiB: the server reserves it per stream when the stream is made,
	// so Streams × StreamMaxBytes must fit its storage limit (see
	// DefaultStreamMaxBytes).
	StreamMaxBytes int64
	// StreamMaxAge is the safety net that drops events a snapshot never
	// purged; default 7 days.
	StreamMaxAge time.Duration

	// MemberTTL, LeaderTTL and LeaseTTL are how long a member key, the
	// leader key and a shard lease live after their last renewal.
	// Whole seconds (the server's unit); default 15 s each. Keys are
	// renewed every TTL/5; a lease whose renewal is not confirmed for
	// TTL×2/3 is dropped by its owner (see Node.Owns).
	MemberTTL, LeaderTTL, LeaseTTL time.Duration
	// Handoff is how long a shard the assignment moved away stays leased
	// (not fetched: Owns is false) for the owner to flush and snapshot it
	// and call Release; 0 releases it at once.
	Handoff time.Duration
	// RequestTimeout bounds each request to JetStream; default 5 s.
	RequestTimeout time.Duration
	// StartGrace is how long the live members must stay the same before
	// the leader writes a crawl's first assignment, so that nodes started
	// together share the shards from the start instead of the first node
	// taking them all and handing most of them over as the others
	// register (a handover costs the new owner the hosts' trap state,
	// learned in memory); members that keep changing delay it at most
	// five graces. Later assignments are written at once. Default 2 s;
	// negative writes the first assignment at once.
	StartGrace time.Duration

	// Settings are the crawl's settings, stored when the crawl is
	// created. A node whose Settings Compatible refuses cannot join.
	Settings []byte
	// Compatible reports why stored settings and this node's differ in a
	// way that matters (nil when they do not); nil means bytes.Equal.
	Compatible func(stored, mine []byte) error

	// Notify is told of each change of the shards this node owns. It is
	// called from Run's goroutine and must not block: hand the change
	// to your own goroutine. Owns is the authority; Notify can be a
	// tick late.
	Notify func(Change)
	// Logger receives the node's log; nil discards it.
	Logger *slog.Logger
}

// Default fills the zero fields of c.
func (c *Config) Default() {
	if c.Shards == 0 {
		c.Shards = cluster.DefaultShards
	}
	if c.Streams == 0 {
		c.Streams = 16
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.StreamMaxBytes == 0 {
		c.StreamMaxBytes = DefaultStreamMaxBytes
	}
	if c.StreamMaxAge == 0 {
		c.StreamMaxAge = 7 * 24 * time.Hour
	}
	for _, d := range []*time.Duration{&c.MemberTTL, &c.LeaderTTL, &c.LeaseTTL} {
		if *d == 0 {
			*d = 15 * time.Second
		}
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = 5 * time.Second
	}
	if c.StartGrace == 0 {
		c.StartGrace = 2 * time.Second
	}
	if c.Compatible == nil {
		c.Compatible = func(stored, mine []byte) error {
			if !bytes.Equal(stored, mine) {
				return errors.New("the settings differ")
			}
			return nil
		}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Validate reports a setting that cannot work.
func (c Config) Validate() error {
	if !nameRE.MatchString(c.Crawl) {
		return fmt.Errorf("jetstream: crawl name %q: want 1-64 letters, digits, '-' or '_'", c.Crawl)
	}
	if !nameRE.MatchString(c.Node) {
		return fmt.Errorf("jetstream: node ID %q: want 1-64 letters, digits, '-' or '_'", c.Node)
	}
	if c.Shards <= 0 || c.Streams <= 0 || c.Streams > c.Shards {
		return fmt.Errorf("jetstream: %d shards in %d streams: want 0 < streams ≤ shards", c.Shards, c.Streams)
	}
	if c.Replicas < 1 || c.Replicas > 5 {
		return fmt.Errorf("jetstream: %d replicas: want 1 to 5", c.Replicas)
	}
	for name, d := range map[string]time.Duration{"member": c.MemberTTL, "leader": c.LeaderTTL, "lease": c.LeaseTTL} {
		if d < 2*time.Second || d%time.Second != 0 {
			return fmt.Errorf("jetstream: %s TTL %v: want whole seconds, at least 2 s", name, d)
		}
	}
	if c.RequestTimeout <= 0 || c.Handoff < 0 || c.StreamMaxBytes <= 0 || c.StreamMaxAge <= 0 {
		return errors.New("jetstream: request timeout, stream limits must be positive and handoff not negative")
	}
	return nil
}

// tick is how often the node renews its keys: a fifth of the shortest TTL.
func (c Config) tick() time.Duration { return min(c.MemberTTL, c.LeaderTTL, c.LeaseTTL) / 5 }

// margin is how long a lease counts as held after the renewal that last
// confirmed it was sent: TTL×2/3, so that the server's TTL, counted from
// the renewal's arrival, leaves another node at least TTL/3 after the
// owner stopped (5 s with the default 15 s).
func (c Config) margin() time.Duration { return c.LeaseTTL * 2 / 3 }

// Names of the crawl's JetStream objects (docs/cluster.md).

// StreamName is the name of stream i of crawl.
func StreamName(crawl string, i int) string { return fmt.Sprintf("godwit_%s_%d", crawl, i) }

// Subject is the subject of shard p's events of kind k.
func Subject(crawl string, k cluster.Kind, p int) string {
	return fmt.Sprintf("godwit.%s.%s.%d", crawl, k.Token(), p)
}

// shardFilter matches every event subject of shard p.
func shardFilter(crawl string, p int) string { return fmt.Sprintf("godwit.%s.*.%d", crawl, p) }

func bucketName(crawl, what string) string { return "godwit_" + crawl + "_" + what }

func leaseKey(p int) string { return fmt.Sprintf("p.%d", p) }

// Keys of the control bucket.
const (
	keyCrawl      = "crawl"
	keyLeader     = "leader"
	keyAssignment = "assignment"
)

// DefaultStreamMaxBytes bounds each of a crawl's streams: 16 of them
// reserve 4 GiB of the server's JetStream storage, which a server on a
// disk with 6 GB free holds (its default limit is 75% of the free
// space). A shard's log is cut at each snapshot (every 2,000 events by
// default), so a stream of 64 shards holds about 128,000 events of a few
// hundred bytes between snapshots; a full stream is backpressure, not
// loss.
const DefaultStreamMaxBytes = 256 << 20
