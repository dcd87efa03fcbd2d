package coord

import (
	"context"
	"encoding/json"

	"github.com/godwit-crawler/godwit/internal/cluster/jetstream"
	"github.com/godwit-crawler/godwit/internal/frontier"
)

// IPSlots is the crawl's per-IP slot bucket as this node sees it
// (jetstream.IPSlots.View); nil when the crawl shares no IP budget
// across nodes (fetching through a proxy, or no --ip-concurrency).
func (s *Session) IPSlots() []jetstream.IPSlotView {
	if s.ips == nil {
		return nil
	}
	return s.ips.View()
}

// Node is this node's ID in the crawl.
func (s *Session) Node() string { return s.js.Name() }

// HostOwner names the node the assignment gives host's shard to, and
// that node's admin API address as it last reported it ("" when it
// serves none, or has not reported; node "" while the shard has no
// owner).
func (s *Session) HostOwner(ctx context.Context, host string) (node, adminAddr string, err error) {
	p := int(frontier.ShardOf(host))
	if a := s.js.Assignment(); p < len(a.Owners) {
		node = a.Owners[p]
	}
	if node == "" {
		return "", "", nil
	}
	members, err := s.js.Members(ctx)
	if err != nil {
		return node, "", err
	}
	for _, m := range members {
		if m.ID == node {
			var r Report
			if json.Unmarshal(m.Stats, &r) == nil {
				adminAddr = r.Admin
			}
		}
	}
	return node, adminAddr, nil
}

// Admin is this node's admin API address, once SetAdmin recorded it.
func (s *Session) Admin() string {
	a, _ := s.admin.Load().(string)
	return a
}
