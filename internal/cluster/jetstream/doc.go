// Package jetstream runs godwit's cluster mode on NATS JetStream
// (../shared/design/cluster.md, docs/cluster.md): an embedded nats-server
// (Server), and a Node that joins a crawl.
//
// A Node, made by Open, owns these JetStream objects of crawl C:
//
//   - streams godwit_C_0 … godwit_C_{S-1}: shard p's events live in
//     stream p mod S on subjects godwit.C.{links,outcomes,control}.p,
//     file storage, limits retention, MaxBytes with DiscardNew
//     (backpressure), MaxAge as a safety net;
//   - KV bucket godwit_C_control: "crawl" (the crawl record, written
//     once), "leader" (the leader lease, per-key TTL), "assignment" (the
//     shard→node map, written by the leader with compare-and-set);
//   - KV bucket godwit_C_members: one key per node, per-key TTL;
//   - KV bucket godwit_C_leases: "p.<p>" per owned shard, per-key TTL,
//     whose revision at creation is the shard's epoch;
//   - KV bucket godwit_C_ipslots (IPSlots, when fetching directly): the
//     per-IP budget across nodes, "s.<address>.<i>" per slot held and
//     "w.<address>.<node>" per node asking for one, and "t.<address>",
//     the address's start hold (SpaceStarts: ip_delay across nodes; the
//     one node that may start requests to it, the latest wire time of
//     the requests before, and the nodes queued for it), per-key TTL.
//
// Timing: keys are renewed every TTL/5; a lease counts as owned (Owns)
// until TTL×2/3 after the renewal that last confirmed it was *sent*, on
// the monotonic clock, while the server keeps it TTL after that renewal
// *arrived*: a node that stops hearing from JetStream stops fetching at
// least TTL/3 before any other node can claim the shard. Outcome
// publishes are fenced by the expected last sequence of the shard's
// outcome subject, and a new owner's first act is a claim on that
// subject, so a zombie's next outcome is refused.
//
// Concurrency: Run is the node's one long-lived goroutine; Owns, Owned,
// PublishLinks, PublishOutcome, PublishControl, Read, Purge and Release
// are safe to call from other goroutines meanwhile. Notify callbacks
// come from Run's goroutine. Leave is for after Run returns; Close
// releases the codec. The *nats.Conn stays the caller's to close.
// IPSlots.View, safe beside IPSlots.Run, reads without a round trip what
// the node knows of the slot bucket from its watch (each address's
// slots by holder, its wanters, and its start hold's holder and queue),
// for the operator. IPSlots' frontier methods (Limit, Want, Freed,
// StartAt, WantStart, Started, Wrote) are called under the frontier's
// lock and only take IPSlots' own; IPSlots calls the frontier (IPRoom,
// IPUse, IPWaits) only without it. The start hold relies on the
// frontier asking StartAt and telling Started under one hold of its
// lock: IPSlots takes that lock once (IPWaits) after it stopped
// allowing starts, and then knows every start allowed before is counted.
//
// The package needs nats-server ≥ 2.11 (per-message TTL on KV keys); it
// is tested against an embedded v2.15.2.
package jetstream
