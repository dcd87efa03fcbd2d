// Package cluster holds godwit's cluster mode apart from the network
// (../shared/design/cluster.md): the sticky load-bounded assignment of
// shards to nodes, the events of a shard's log and their binary encoding,
// and Node, the crawl.Frontier of a cluster node, which turns Add and
// Complete into events of the shards' logs (a shard's links go out in
// events of up to 500, docs/cluster.md "Link batches"; a page's links to
// its own shard in its outcome event) and applies the
// logs of the shards it owns to a local frontier.
//
// Nothing here talks to the network: the JetStream adapter is
// internal/cluster/jetstream; the node's session over both is
// internal/cluster/coord. The partition of hosts into shards is
// internal/shard's Of, which the frontier's keys share. Everything is
// deterministic: shard.Of and Assign give the same answer on every node
// for the same input, which is what lets followers trust a leader's
// assignment and lets any node route a link.
//
// Concurrency: Assign and the Assignment methods are pure. A Codec is
// safe for concurrent use and must be closed. A Node is safe for
// concurrent use.
//
// # Lock order
//
// In the manner of nats-server's locksordering.txt: a lock is taken only
// after those to its left in its chain, never before them.
//
//	Node.flushMu → Node.lmu
//	owned.pub → Node.mu → NodeConfig.Owns, the local frontier's mu
//
// flushMu lets one flush of the pending links run at a time; lmu guards
// the pending links, the links kept for leases' outcome events, their
// generation and the filter of added keys. pub
// is a shard's fenced appends: held across the log's Claim or Append, so
// that a shard's outcomes and claims go out one at a time and in order.
// mu guards the owned shards' state; under it the node asks Owns (the
// session's lease state) and calls the frontier's SetShard. The two
// chains never meet: no goroutine holds flushMu or lmu together with pub
// or mu. No lock is held across a log call but flushMu and pub, which
// exist to serialize those calls; mu is released before every log call
// and every wait.
package cluster
