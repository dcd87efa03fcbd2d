// Package shard is the partition of hosts into shards that the frontier
// and cluster mode share: a host's shard is xxhash64(host) mod P. The
// frontier's store keys begin with their host's shard, and a cluster node
// routes a link to the owner of its host's shard without asking anyone;
// both call Of, so they cannot disagree.
//
// Of is pure and safe for concurrent use.
package shard

import "github.com/cespare/xxhash/v2"

// Default is P when a crawl does not choose one, and the frontier's
// (frontier.Shards).
const Default = 1024

// Of is the shard of host among p: xxhash64(host) mod p. It panics if p
// is not positive.
func Of(host string, p int) int {
	if p <= 0 {
		panic("shard: Of with p <= 0")
	}
	return int(xxhash.Sum64String(host) % uint64(p))
}
