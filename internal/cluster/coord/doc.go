// Package coord runs this process's part in a cluster crawl
// (docs/cluster.md): a Session joins the crawl over NATS, makes the
// cluster.Node (the crawler's frontier) follow the shards the
// jetstream.Node holds, shares the crawl's seeds, reports the node's
// status every tick and, while the node leads, runs the end check; it
// writes the node's tally of pages and requests for the crawl's totals.
// ReadStatus and Observe read a cluster crawl's status across its nodes
// from its shared state, and Collector exports it on /metrics.
//
// cmd/godwit assembles a Session from its settings (Join, Start, Stop)
// and prints the status; nothing here parses flags or writes output.
//
// Concurrency: a Session's methods may be called from any goroutine;
// Start runs its goroutines until Stop, which waits for them.
package coord
