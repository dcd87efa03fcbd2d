// Package frontier schedules godwit's URLs: a queue per host (the
// Mercator back queues) ordered by priority band, a heap of hosts ordered
// by the time each may next be touched, and the URL seen-set, all kept in
// a Pebble store (package kv) so that a crawl survives kill -9.
//
// Each host's queue is served by band: band 0 holds revisits (with
// Options.Recrawl), then the discovery bands, by OPIC importance, depth
// and sitemap priority (importance.go), or by depth alone with
// Options.BreadthFirst. With Recrawl every fetch updates the URL's change
// estimate and sets its next visit in a due-time index (recrawl.go);
// due URLs return to their hosts' queues and share each host's leases
// with discovery as the revisit share says.
//
// Invariants, which the tests check:
//   - a host has at most one outstanding lease, so it never sees two
//     requests from godwit at once;
//   - a host is not handed out before its ready time, which Complete sets to
//     the end of the last exchange plus the host's gap (see
//     politeness.Policy.HostGap), or later when the server asked to wait,
//     after failures, or while robots.txt is unreachable; an outcome that
//     sent no request leaves it as is;
//   - a URL key is in a host's queue at most once: Add of a seen key only
//     takes up a shorter path, cash and sitemap hints, and Complete of an
//     unknown or finished lease is a no-op;
//   - with Options.Resolve, hosts on one address (IPv4; IPv6 by /64)
//     share an IP budget: at most Options.IPConcurrency leases out to it,
//     and lease starts to it Options.IPDelay apart and that long after
//     the first byte of each answer from it (ipgroups.go); with
//     Options.IPWire, from when each request went on the wire (Wrote),
//     none starting while another's request is not yet on it; and in
//     cluster mode at most IPBudget.Limit leases out to it (SetIPBudget:
//     the slots of the address's budget this node holds); a Visit counts
//     as a lease there, or takes the held lease's slot (visit.go);
//     IPGroups and IPSummary are read-only views of the groups for the
//     operator (ipview.go: limit, full, hosts held back and how often);
//   - Next reports crawl.ErrExhausted only when nothing is queued, nothing
//     is due for a revisit, no lease is outstanding and no host is out
//     being resolved.
//
// In cluster mode a frontier opened with Options.Partial holds the
// shards a node owns (shard.go): it applies each shard's log with AddAt
// and ApplyOutcome, each event exactly once (the shard's applied position
// is stored in the same batch; ApplyOutcome does not wait for an fsync,
// the log being what the shard is rebuilt from), leases only the hosts of the shards
// SetShard made its own, and moves a shard to another node with
// ExportShard and ImportShard. DropShard forgets a shard; DropUnowned,
// at a node's start, every shard it does not own (and rebuilds the
// seen-set filter). Keys of a dropped shard stay in the filter until
// then, and are left out of its false-positive measure.
//
// Every key of a host's state starts with the host's shard (shard.Of),
// and the store records the partition it follows (partition.go): Open
// moves the keys of a store written before hosts were sharded by site
// (2026-11-27: www. hosts changed shard) and refuses a Partial store of
// that kind.
//
// Files: frontier.go (Open, Close, the state's types), add.go (Add),
// lease.go (Next and the ready heap), complete.go (Complete), visit.go
// (browser sub-requests under a host's slot), operator.go (Host, Hosts,
// URL, Control), recrawl*.go (revisit scheduling, picking, calibration),
// ipgroups.go, importance.go, cash.go, shard.go (cluster mode),
// partition.go (the store's partition and its migration), bloom.go
// (the seen-set filter), keys.go, records.go and codec.go (the stored
// keys and values), outcome.go (outcome events).
//
// docs/frontier.md describes the design and docs/formats.md the stored
// records. A Frontier is safe for concurrent use; it starts no goroutines.
// Close saves the seen-set filter and closes the store.
package frontier
