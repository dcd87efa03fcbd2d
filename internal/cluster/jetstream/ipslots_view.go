package jetstream

import (
	"slices"
	"strings"
	"time"
)

// The operator's view of the slot bucket (docs/admin.md, "IP groups"):
// what IPSlots knows, from its own takes and the bucket's watch, of
// every address some node holds or wants slots of, or holds or queues
// for the start hold of. Read-only: it
// changes nothing and sends nothing.

// IPSlotView is one address's slots as this node sees them.
type IPSlotView struct {
	// Key is the address as the frontier groups it (IPv4 address,
	// IPv6 /64 prefix).
	Key string
	// Holders counts the slots each node holds, by node ID, as the
	// bucket's watch last showed them (this node's own: those it may
	// count now). A slot whose Create was refused before the watch
	// showed its holder counts under "?".
	Holders map[string]int
	// Wanters are the nodes whose want key is recent (this node's own
	// included while it has one written), sorted.
	Wanters []string
	// Here is how many of the slots this node holds and may count now;
	// Share is its fair share while the address is contended.
	Here, Share int
	// Starter is the node holding the address's start hold (the one
	// that may start requests to it, SpaceStarts), "" when none does;
	// StartQueue, the nodes queued for it, first first. As the watch
	// last showed the record.
	Starter    string
	StartQueue []string
}

// View lists the addresses with slots held or wanted, sorted by key.
func (s *IPSlots) View() []IPSlotView {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]IPSlotView, 0, len(s.addrs))
	for part, a := range s.addrs {
		v := IPSlotView{Key: a.key, Holders: map[string]int{}, Here: a.usable(now), Share: s.share(a, now)}
		if v.Key == "" {
			v.Key = addrKey(part)
		}
		for _, node := range a.taken {
			if node != s.node {
				v.Holders[node]++
			}
		}
		if v.Here > 0 {
			v.Holders[s.node] = v.Here
		}
		for node, at := range a.wants {
			if now.Sub(at) < s.ttl {
				v.Wanters = append(v.Wanters, node)
			}
		}
		if !a.wantPut.IsZero() && now.Sub(a.wantPut) < s.ttl {
			v.Wanters = append(v.Wanters, s.node)
		}
		if !a.recGone {
			v.Starter, v.StartQueue = a.rec.Holder, slices.Clone(a.rec.Queue)
		}
		if len(v.Holders) == 0 && len(v.Wanters) == 0 && v.Starter == "" && len(v.StartQueue) == 0 {
			continue // known only from a key gone since
		}
		slices.Sort(v.Wanters)
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b IPSlotView) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// addrKey is the group key an address part of the bucket's keys spells
// (addrPart's inverse: an IPv4 address has no '-', an IPv6 prefix no
// '_').
func addrKey(part string) string {
	return strings.NewReplacer("-", ".", "_", ":").Replace(part)
}
