package cluster

import (
	"fmt"
	"maps"
	"slices"
)

// A crawl spread over nodes is over when no node has anything left to do
// and nothing is on its way to one. Each node can only see itself, and
// the nodes' views are taken at different times, so the end is decided in
// rounds (package jetstream runs them):
//
//  1. A decider (the leader) reads the last sequence of every stream,
//     then opens round r.
//  2. Every node, once it has read r, reports: whether it is quiet (see
//     Node.Quiet: no link pending, no lease out, nothing queued, every
//     shard it owns caught up with its log), how many shards it owns so,
//     and how many of the crawl's seeds it has queued.
//  3. When every node of the assignment has reported for r or later, the
//     decider checks Ended and reads the streams' last sequences again.
//     The crawl is over when Ended holds and no stream moved.
//
// Why that is enough: every report was computed after the first reading
// of the streams. If no event was appended between the two readings, no
// node published a link, an outcome or a claim while the reports were
// taken, so each report saw the final content of its shards' logs, and
// the shards changed no owner (taking a shard appends a claim). Reports
// that are all quiet, from owners whose shards add up to every shard,
// then cover every URL of the crawl: none is queued, leased or pending.

// EndReport is what a node reports in a round of the end check.
type EndReport struct {
	// Round is the last round the node had read when it computed the
	// report (0: none yet).
	Round uint64 `json:"round"`
	// Quiet and Shards are Node.Quiet's answer.
	Quiet  bool `json:"quiet"`
	Shards int  `json:"shards"`
	// Seeds is how many of the crawl's seeds the node has queued.
	Seeds int `json:"seeds"`
}

// Ended reports whether the reports, all of round r or later, show a
// crawl with nothing left to do: one report from each node the
// assignment names, and none from another, each quiet and aware of every
// one of the crawl's seeds (there is at least one), owning shards that
// add up to every shard of a, each shard owned. It returns why not
// otherwise, for the log.
func Ended(r uint64, reports map[string]EndReport, a Assignment, seeds int) (bool, string) {
	if seeds == 0 {
		return false, "the crawl has no seed yet"
	}
	counts := a.Counts()
	if n := len(a.Owners) - sum(counts); n > 0 {
		return false, fmt.Sprintf("%d shards have no owner", n)
	}
	shards := 0
	for _, id := range slices.Sorted(maps.Keys(reports)) {
		rep := reports[id]
		switch {
		case counts[id] == 0:
			return false, fmt.Sprintf("node %s has no shard in the assignment", id)
		case rep.Round < r:
			return false, fmt.Sprintf("node %s has not reported for round %d", id, r)
		case !rep.Quiet:
			return false, fmt.Sprintf("node %s is busy", id)
		case rep.Seeds < seeds:
			return false, fmt.Sprintf("node %s has queued %d of the %d seeds", id, rep.Seeds, seeds)
		}
		shards += rep.Shards
	}
	for id := range counts {
		if _, ok := reports[id]; !ok {
			return false, fmt.Sprintf("node %s has not reported", id)
		}
	}
	if shards != len(a.Owners) {
		return false, fmt.Sprintf("the nodes own %d of the %d shards", shards, len(a.Owners))
	}
	return true, ""
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
