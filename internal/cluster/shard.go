package cluster

import "github.com/cespare/xxhash/v2"

// DefaultShards is P when a crawl does not choose one. It must stay equal
// to internal/frontier's Shards, whose store keys begin with the shard.
const DefaultShards = 1024

// Shard is the shard of host among p: xxhash64(host) mod p. It is the same
// function as the frontier's key prefix, so a node can route a link to the
// owner of its host without asking anyone.
func Shard(host string, p int) int {
	if p <= 0 {
		panic("cluster: Shard with p <= 0")
	}
	return int(xxhash.Sum64String(host) % uint64(p))
}
