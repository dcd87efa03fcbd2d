package cluster

import "github.com/godwit-crawler/godwit/internal/shard"

// DefaultShards is P when a crawl does not choose one: the frontier's
// (internal/shard, whose Of is the partition of hosts into shards).
const DefaultShards = shard.Default
