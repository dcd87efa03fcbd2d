package frontier

import (
	"fmt"
	"testing"

	"github.com/godwit-crawler/godwit/internal/cluster"
)

// TestShardAgreesWithCluster pins the frontier's key prefix to cluster
// mode's partition: a node routes a link to the owner of
// cluster.Shard(host, P), and that owner's store keys begin with
// shardOf(host). They must never disagree.
func TestShardAgreesWithCluster(t *testing.T) {
	if Shards != cluster.DefaultShards {
		t.Fatalf("frontier.Shards = %d, cluster.DefaultShards = %d", Shards, cluster.DefaultShards)
	}
	hosts := []string{"", "example.com", "xn--bcher-kva.example", "a.b.c.d.example.org", "127.0.0.1", "[::1]"}
	for i := range 5000 {
		hosts = append(hosts, fmt.Sprintf("h%d.fake.test", i))
	}
	for _, h := range hosts {
		if got, want := cluster.Shard(h, Shards), int(shardOf(h)); got != want {
			t.Fatalf("cluster.Shard(%q) = %d, frontier shardOf = %d", h, got, want)
		}
	}
}
