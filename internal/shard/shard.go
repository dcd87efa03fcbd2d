// Package shard is the partition of hosts into shards that the frontier
// and cluster mode share: a host's shard is xxhash64(Site(host)) mod P,
// where Site is the host without a leading "www.". The frontier's store
// keys begin with their host's shard, and a cluster node routes a link to
// the owner of its host's shard without asking anyone; both call Of, so
// they cannot disagree.
//
// Sharding by site rather than by host name keeps the two names of a
// www. pair (example.com and www.example.com) in one shard, so one
// process (one node of a cluster) crawls both and can learn that they
// are one site (crawl/aliases_www.go). Partition names this function;
// stores and cluster crawls record it, since a host's shard must never
// change under a running crawl.
//
// Of and Site are pure and safe for concurrent use.
package shard

import (
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Default is P when a crawl does not choose one, and the frontier's
// (frontier.Shards).
const Default = 1024

// Partition names the partition Of computes, as a frontier store and a
// cluster crawl record it: "site", hosts by Site. Versions before
// 2026-11-27 sharded by the host name itself ("host", recorded as
// nothing), which splits www. pairs.
const Partition = "site"

// Of is the shard of host among p: xxhash64(Site(host)) mod p. It panics
// if p is not positive.
func Of(host string, p int) int {
	if p <= 0 {
		panic("shard: Of with p <= 0")
	}
	return int(xxhash.Sum64String(Site(host)) % uint64(p))
}

// Site is the key host is sharded by: host without its leading "www."
// labels, each removed while what follows has a dot in it
// ("www.example.com:8080" → "example.com:8080"; "www.localhost" and
// "www.com" are kept). Every www. pair the crawl learns
// (crawl.wwwPartner: one "www." added or removed) has one Site.
func Site(host string) string {
	for {
		rest, ok := strings.CutPrefix(host, "www.")
		if !ok {
			return host
		}
		name, _, _ := strings.Cut(rest, ":")
		if !strings.Contains(name, ".") {
			return host
		}
		host = rest
	}
}
