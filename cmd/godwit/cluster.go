package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/cluster/coord"
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

func (f *crawlFlags) registerCluster(fs *pflag.FlagSet) {
	flagCluster.stringVar(fs, &f.s.Cluster.URL, "")
	flagCrawl.stringVar(fs, &f.s.Cluster.Crawl, "")
	flagNode.stringVar(fs, &f.s.Cluster.Node, "")
	flagClusterReplicas.intVar(fs, &f.s.Cluster.Replicas, 1)
	flagClusterTTL.durationVar(fs, &f.s.Cluster.TTL, 15*time.Second)
	flagClusterSnapshotEvents.intVar(fs, &f.s.Cluster.SnapshotEvents, cluster.DefaultSnapshotEvents)
}

func (f *crawlFlags) applyCluster(fs *pflag.FlagSet, s *crawlSettings) {
	set := func(fl flagInfo, apply func()) {
		if fs.Changed(fl.name) {
			apply()
		}
	}
	set(flagCluster, func() { s.Cluster.URL = f.s.Cluster.URL })
	set(flagCrawl, func() { s.Cluster.Crawl = f.s.Cluster.Crawl })
	set(flagNode, func() { s.Cluster.Node = f.s.Cluster.Node })
	set(flagClusterReplicas, func() { s.Cluster.Replicas = f.s.Cluster.Replicas })
	set(flagClusterTTL, func() { s.Cluster.TTL = f.s.Cluster.TTL })
	set(flagClusterSnapshotEvents, func() { s.Cluster.SnapshotEvents = f.s.Cluster.SnapshotEvents })
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

// joinCluster joins the cluster crawl s.Cluster names with fr, a
// Partial frontier, as the state of the shards this node will own; shard
// snapshots go to ws's bucket when there is one.
func joinCluster(ctx context.Context, s crawlSettings, fr *frontier.Frontier, ws *upload.Spool, log *slog.Logger) (*coord.Session, error) {
	cfg := coord.Config{
		URL: s.Cluster.URL, Crawl: s.Cluster.Crawl, Node: s.Cluster.Node,
		Replicas: s.Cluster.Replicas, TTL: s.Cluster.TTL, SnapshotEvents: s.Cluster.SnapshotEvents,
		Handoff:  s.Timeout + 5*time.Second,
		Ends:     !s.Continuous,
		Settings: sharedSettings(s),
		Logger:   log,
	}
	if ws != nil {
		cfg.Bucket = ws.Bucket()
	}
	cn, err := coord.Join(ctx, cfg, fr)
	if err != nil {
		if ce := (coord.ConfigError{}); errors.As(err, &ce) {
			return nil, err
		}
		return nil, failure{err}
	}
	return cn, nil
}
