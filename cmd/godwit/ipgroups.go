package main

import (
	"context"
	"slices"
	"strings"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/cluster/jetstream"
)

var _ admin.IPBackend = (*backend)(nil)

// IPGroups is the API's view of the IP budget: the frontier's groups
// and, in a cluster crawl, the slots of each address every node holds
// (docs/admin.md, "IP groups").
func (b *backend) IPGroups(context.Context) (admin.IPGroups, error) {
	s := b.frontier.IPSummary()
	out := admin.IPGroups{Enabled: s.On, Concurrency: s.Concurrency, DelayMS: s.Delay.Milliseconds(),
		Full: s.Full, Waiting: s.Waiting, Waits: s.Waits}
	for _, g := range b.frontier.IPGroups() {
		out.Groups = append(out.Groups, admin.IPGroup{Address: g.Key, Hosts: g.Hosts, InFlight: g.InFlight,
			Limit: g.Limit, Full: g.Full, Waiting: g.Parked, Waits: g.Waits, NextStart: g.NextStart})
	}
	if b.cluster == nil {
		return out, nil
	}
	out.Node = b.cluster.Node()
	out.Groups = withSlots(out.Groups, b.cluster.IPSlots())
	return out, nil
}

// withSlots adds to groups the slots of each address every node holds,
// the nodes wanting one, and its start hold's holder and queue, as the
// slot bucket's watch shows them;
// addresses only other nodes use are listed too, with no hosts here
// (the bucket is the crawl's).
func withSlots(groups []admin.IPGroup, views []jetstream.IPSlotView) []admin.IPGroup {
	byKey := map[string]int{}
	for i, g := range groups {
		byKey[g.Address] = i
	}
	for _, v := range views {
		i, ok := byKey[v.Key]
		if !ok {
			i = len(groups)
			groups = append(groups, admin.IPGroup{Address: v.Key})
		}
		g := &groups[i]
		for node, n := range v.Holders {
			g.Slots = append(g.Slots, admin.IPSlots{Node: node, Slots: n})
		}
		slices.SortFunc(g.Slots, func(a, b admin.IPSlots) int { return strings.Compare(a.Node, b.Node) })
		g.WantedBy = v.Wanters
		g.Starter, g.StartQueue = v.Starter, v.StartQueue
	}
	return groups
}
