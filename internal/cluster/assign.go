package cluster

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Member is a live node as the assignment sees it.
type Member struct {
	ID string
	// Capacity weighs the node's share of shards against the others';
	// zero or less counts as 1, so equal nodes need not set it.
	Capacity int
}

func (m Member) weight() int64 { return int64(max(m.Capacity, 1)) }

// Assignment maps each shard to the node that owns it: Owners[p] is the
// owner of shard p, or "" when no node does. Its length is P.
type Assignment struct {
	Owners []string
}

// Shards lists the shards node owns, in increasing order.
func (a Assignment) Shards(node string) []int {
	var s []int
	for p, o := range a.Owners {
		if o == node {
			s = append(s, p)
		}
	}
	return s
}

// Counts is the number of shards each node owns.
func (a Assignment) Counts() map[string]int {
	c := map[string]int{}
	for _, o := range a.Owners {
		if o != "" {
			c[o]++
		}
	}
	return c
}

// Moved counts the shards that had an owner in a and have another one
// in b: the handoffs that going from a to b costs. Shards gaining their
// first owner do not count.
func (a Assignment) Moved(b Assignment) int {
	n := 0
	for p, o := range a.Owners {
		if o != "" && p < len(b.Owners) && b.Owners[p] != o {
			n++
		}
	}
	return n
}

// Equal reports whether a and b give every shard the same owner.
func (a Assignment) Equal(b Assignment) bool { return slices.Equal(a.Owners, b.Owners) }

// assignmentJSON is the stored form: the nodes once, and each shard's
// owner as an index into them (-1: none). 1024 shards take ~3 KB.
type assignmentJSON struct {
	Nodes  []string `json:"nodes"`
	Owners []int    `json:"owners"`
}

// MarshalJSON encodes a as {"nodes":[...],"owners":[i,...]}.
func (a Assignment) MarshalJSON() ([]byte, error) {
	var j assignmentJSON
	index := map[string]int{}
	j.Owners = make([]int, len(a.Owners))
	for p, o := range a.Owners {
		if o == "" {
			j.Owners[p] = -1
			continue
		}
		i, ok := index[o]
		if !ok {
			i = len(j.Nodes)
			index[o] = i
			j.Nodes = append(j.Nodes, o)
		}
		j.Owners[p] = i
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (a *Assignment) UnmarshalJSON(b []byte) error {
	var j assignmentJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("cluster: assignment: %w", err)
	}
	owners := make([]string, len(j.Owners))
	for p, i := range j.Owners {
		switch {
		case i == -1:
		case i >= 0 && i < len(j.Nodes) && j.Nodes[i] != "":
			owners[p] = j.Nodes[i]
		default:
			return fmt.Errorf("cluster: assignment: shard %d has owner index %d of %d nodes", p, i, len(j.Nodes))
		}
	}
	a.Owners = owners
	return nil
}

// Assign computes the assignment of p shards to members that follows prev.
//
// It is load-bounded: each member's quota is its capacity's share of p,
// rounded down or up (with equal capacities, ⌊p/n⌋ or ⌈p/n⌉), and the
// rounding favours the members that own more than their share rounded
// down already. It is sticky: a shard's owner keeps it while under
// quota, so a stable membership moves nothing, adding a node moves about p/(n+1) shards (those the new node's
// quota takes from the others), and removing one moves only its shards.
// Shards left without an owner go, in increasing order, to the first
// member under quota in the shard's rendezvous order (highest
// xxhash64(node, shard) first), which spreads them evenly and
// independently of the order of events.
//
// The result depends only on prev's owners, the set of members and p,
// never on the order of members; a member listed twice counts once (its
// largest capacity wins). With no members, no shard has
// an owner. A prev of another length than p is ignored.
func Assign(prev Assignment, members []Member, p int) Assignment {
	next := Assignment{Owners: make([]string, p)}
	ms := slices.Clone(members)
	slices.SortFunc(ms, func(a, b Member) int {
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return cmp.Compare(b.weight(), a.weight())
	})
	ms = slices.CompactFunc(ms, func(a, b Member) bool { return a.ID == b.ID })
	ms = slices.DeleteFunc(ms, func(m Member) bool { return m.ID == "" })
	if len(ms) == 0 || p <= 0 {
		return next
	}
	held := map[string]int{}
	if len(prev.Owners) == p {
		held = prev.Counts()
	}
	quota := quotas(ms, held, p)

	count := make(map[string]int, len(ms))
	if len(prev.Owners) == p {
		for s, o := range prev.Owners {
			if q, live := quota[o]; live && count[o] < q {
				next.Owners[s] = o
				count[o]++
			}
		}
	}
	order := make([]rank, len(ms))
	for s := range next.Owners {
		if next.Owners[s] != "" {
			continue
		}
		for i, m := range ms {
			order[i] = rank{m.ID, rendezvous(m.ID, s)}
		}
		slices.SortFunc(order, func(a, b rank) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			return cmp.Compare(a.id, b.id)
		})
		for _, r := range order {
			if count[r.id] < quota[r.id] {
				next.Owners[s] = r.id
				count[r.id]++
				break
			}
		}
	}
	return next
}

type rank struct {
	id    string
	score uint64
}

// quotas splits p among ms in proportion to their weights by the largest
// remainder method: each gets ⌊p·w/W⌋, and the shards left over go one
// each to the largest remainders, then to those holding the most beyond
// their ⌊p·w/W⌋ now (so a settled assignment is a fixed point; comparing
// what they hold would not be, with unequal weights), then by ID.
func quotas(ms []Member, held map[string]int, p int) map[string]int {
	var total int64
	for _, m := range ms {
		total += m.weight()
	}
	type share struct {
		id     string
		rem    int64
		excess int // shards held beyond ⌊p·w/W⌋
	}
	q := make(map[string]int, len(ms))
	shares := make([]share, len(ms))
	left := p
	for i, m := range ms {
		n := int64(p) * m.weight()
		q[m.ID] = int(n / total)
		left -= q[m.ID]
		shares[i] = share{m.ID, n % total, held[m.ID] - q[m.ID]}
	}
	slices.SortFunc(shares, func(a, b share) int {
		if c := cmp.Compare(b.rem, a.rem); c != 0 {
			return c
		}
		if c := cmp.Compare(b.excess, a.excess); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	for i := 0; i < left; i++ {
		q[shares[i].id]++
	}
	return q
}

// rendezvous is the score of node for shard s: xxhash64 of the node ID, a
// zero byte and the shard as 4 big-endian bytes.
func rendezvous(node string, s int) uint64 {
	var d xxhash.Digest
	d.Reset()
	d.WriteString(node)
	var b [5]byte
	binary.BigEndian.PutUint32(b[1:], uint32(s))
	d.Write(b[:])
	return d.Sum64()
}
