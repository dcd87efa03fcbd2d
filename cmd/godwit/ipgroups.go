package main

import (
	"context"
	"slices"
	"strings"

	"github.com/godwit-crawler/godwit/internal/admin"
)

var _ admin.IPBackend = (*backend)(nil)

// IPGroups is the API's view of the IP budget: the frontier's groups
// and, in a cluster crawl, the slots of each address every node holds
// (docs/admin.md, "IP groups").
func (b *backend) IPGroups(context.Context) (admin.IPGroups, error) {
	s := b.frontier.IPSummary()
	out := admin.IPGroups{Enabled: s.On, Concurrency: s.Concurrency, DelayMS: s.Delay.Milliseconds(),
		Full: s.Full, Waiting: s.Waiting, Waits: s.Waits}
	byKey := map[string]int{}
	for _, g := range b.frontier.IPGroups() {
		byKey[g.Key] = len(out.Groups)
		out.Groups = append(out.Groups, admin.IPGroup{Address: g.Key, Hosts: g.Hosts, InFlight: g.InFlight,
			Limit: g.Limit, Full: g.Full, Waiting: g.Parked, Waits: g.Waits, NextStart: g.NextStart})
	}
	if b.cluster == nil {
		return out, nil
	}
	out.Node = b.cluster.Node()
	// Addresses only other nodes use are listed too (no hosts here):
	// the bucket is the crawl's.
	for _, v := range b.cluster.IPSlots() {
		i, ok := byKey[v.Key]
		if !ok {
			i = len(out.Groups)
			out.Groups = append(out.Groups, admin.IPGroup{Address: v.Key})
		}
		g := &out.Groups[i]
		for node, n := range v.Holders {
			g.Slots = append(g.Slots, admin.IPSlots{Node: node, Slots: n})
		}
		slices.SortFunc(g.Slots, func(a, b admin.IPSlots) int { return strings.Compare(a.Node, b.Node) })
		g.WantedBy = v.Wanters
	}
	return out, nil
}
