package jetstream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/crawl"
)

// TestClusterSurvivesServerLoss runs a node on a 3-server cluster with
// every stream and bucket at R3, shuts down the server leading the
// shard's stream, and checks that every acknowledged event is still read
// back and that the node keeps its shards and can publish.
func TestClusterSurvivesServerLoss(t *testing.T) {
	start := time.Now()
	servers := startCluster(t, 3)
	var urls []string
	for _, s := range servers {
		urls = append(urls, s.ClientURL())
	}
	cfg := testConfig("a")
	cfg.Replicas = 3
	n := startNode(t, connect(t, urls...), cfg)
	waitFor(t, 30*time.Second, "the node to own every shard", func() bool { return len(n.Owned()) == 16 })

	t.Logf("%v: node owns every shard", time.Since(start))
	const p = 3
	codec := n.Codec()
	var want []string
	for i := range 50 {
		u := fmt.Sprintf("https://h%d.example/%d", p, i)
		msg, err := codec.Encode(nil, cluster.Event{Kind: cluster.KindLinks, Shard: p, Links: []crawl.Link{{URL: u, Key: u, Host: "h.example"}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.PublishLinks(t.Context(), p, msg); err != nil {
			t.Fatal(err)
		}
		want = append(want, u)
	}
	info, err := n.stream(p).Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if info.Cluster == nil || len(info.Cluster.Replicas) != 2 {
		t.Fatalf("stream cluster info %+v, want a leader and 2 replicas", info.Cluster)
	}
	i := slices.IndexFunc(servers, func(s *Server) bool { return s.Name() == info.Cluster.Leader })
	if i < 0 {
		t.Fatalf("stream leader %q is none of the servers", info.Cluster.Leader)
	}
	servers[i].Shutdown()
	rest := slices.Delete(slices.Clone(urls), i, i+1)

	t.Logf("%v: stream leader %s shut down", time.Since(start), info.Cluster.Leader)
	rcfg := cfg
	rcfg.Node = "reader"
	reader, err := Open(t.Context(), connect(t, rest...), rcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	var got []string
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	err = reader.Read(ctx, p, 0, func(m Msg) error {
		for _, l := range m.Event.Links {
			got = append(got, l.URL)
		}
		if len(got) == len(want) {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after losing the stream leader: %v (got %d of %d links)", err, len(got), len(want))
	}
	if !slices.Equal(got, want) {
		t.Errorf("read back %d links, want the %d acknowledged, in order", len(got), len(want))
	}
	t.Logf("%v: read back", time.Since(start))
	waitFor(t, 30*time.Second, "an outcome published after the server loss", func() bool {
		for _, q := range n.Owned() {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
			_, err := n.PublishOutcome(ctx, q, []byte("after"))
			cancel()
			if err == nil {
				return true
			}
		}
		return false
	})
}

// TestOpenTogetherOnAFreshCluster opens three nodes at once on a
// just-formed three-server cluster, every stream and bucket at R3, as a
// script starting a crawl on three machines does. Identical creations of
// a stream arriving together lose their answers (ensure.go): each node
// creating every stream made opening take from 26 s to over a minute.
// Judged from what the servers were asked: every log stream and the
// member and lease buckets are created by one node alone, the crawl's
// creator, and the others find them.
func TestOpenTogetherOnAFreshCluster(t *testing.T) {
	servers := startCluster(t, 3)
	var urls []string
	for _, s := range servers {
		urls = append(urls, s.ClientURL())
	}
	// Every request to create or update a stream (each a RAFT proposal),
	// by stream, with the reply inbox that names the connection it came
	// from.
	spy := connect(t, urls...)
	var mu sync.Mutex
	creators := map[string]map[string]bool{}
	sub, err := spy.Subscribe("$JS.API.STREAM.*.*", func(m *nats.Msg) {
		op, stream, _ := strings.Cut(strings.TrimPrefix(m.Subject, "$JS.API.STREAM."), ".")
		if op != "CREATE" && op != "UPDATE" {
			return
		}
		inbox := m.Reply[:strings.LastIndexByte(m.Reply, '.')]
		mu.Lock()
		defer mu.Unlock()
		if creators[stream] == nil {
			creators[stream] = map[string]bool{}
		}
		creators[stream][inbox] = true
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	nodes := make([]*Node, 3)
	for i := range nodes {
		cfg := testConfig(fmt.Sprint("n", i))
		cfg.Streams, cfg.Replicas, cfg.RequestTimeout = 16, 3, 5*time.Second
		nc := connect(t, urls[i])
		wg.Go(func() {
			start := time.Now()
			n, err := Open(ctx, nc, cfg)
			if err != nil {
				t.Errorf("Open(%s): %v", cfg.Node, err)
				return
			}
			t.Logf("%s opened in %v", cfg.Node, time.Since(start).Round(time.Millisecond))
			nodes[i] = n
			t.Cleanup(func() { n.Close() })
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if err := sub.Unsubscribe(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The control bucket is made before the creator is known: by
	// whoever gets there, perhaps several.
	names := []string{"KV_" + bucketName("test", "members"), "KV_" + bucketName("test", "leases")}
	for i := range 16 {
		names = append(names, StreamName("test", i))
	}
	for _, name := range names {
		if got := len(creators[name]); got != 1 {
			t.Errorf("stream %s: created or updated by %d connections, want the crawl's creator alone", name, got)
		}
	}
}
