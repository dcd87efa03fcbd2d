// Package cluster holds the pure parts of godwit's cluster mode
// (../shared/design/cluster.md): the sticky load-bounded assignment of shards to nodes, the events of a
// shard's log and their binary encoding, and the Batcher that groups links
// bound for other shards into compressed messages.
//
// Nothing here talks to the network: the JetStream adapter is
// internal/cluster/jetstream; the node's session over both is
// internal/cluster/coord. The partition of hosts into shards is
// internal/shard's Of, which the frontier's keys share. Everything is
// deterministic: shard.Of and Assign give the same answer on every node for the same input, which is what lets
// followers trust a leader's assignment and lets any node route a link.
//
// Concurrency: Assign and the Assignment methods are pure. A Codec
// is safe for concurrent use and must be closed. A Batcher's Add, Flush and
// Run may be called from different goroutines; Run owns the publishing
// goroutines and waits for them before it returns.
package cluster
