package admin

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// IPBackend is a crawl's per-IP budget, for GET /api/ip-groups; a
// Backend that does not implement it answers 404 there.
type IPBackend interface {
	// IPGroups reads the IP budget and every IP group now, in any
	// order (the server sorts and cuts them).
	IPGroups(ctx context.Context) (IPGroups, error)
}

// IPGroups is GET /api/ip-groups: the per-IP budget (hosts sharing an
// address share it; IPv6 by /64) and its groups, those holding most
// hosts back first.
type IPGroups struct {
	// Enabled is false when the crawl keeps no IP groups (it fetches
	// through a proxy: the addresses are the proxy's).
	Enabled bool `json:"enabled"`
	// Concurrency is ip_concurrency (0: no bound); DelayMS, ip_delay.
	Concurrency int   `json:"ip_concurrency"`
	DelayMS     int64 `json:"ip_delay_ms"`
	// Node is the node that answered, in a cluster crawl: its groups
	// are its own hosts'; Slots and WantedBy come from the crawl's
	// shared slot bucket.
	Node string `json:"node,omitempty"`
	// Total counts the groups (Groups holds at most limit of them);
	// Full, those with as many requests in flight as their limit.
	Total int `json:"total"`
	Full  int `json:"full"`
	// Waiting counts the hosts held back by their address now; Waits,
	// the times a host ready by its own rules was held back by its
	// address since this process started.
	Waiting int       `json:"waiting"`
	Waits   int64     `json:"waits"`
	Groups  []IPGroup `json:"groups"`
}

// IPGroup is one address (IPv6: /64 prefix) and the hosts on it.
type IPGroup struct {
	Address string `json:"address"`
	// Hosts counts the active hosts resolved to it (in a cluster: this
	// node's); InFlight, the requests out to it from here.
	Hosts    int `json:"hosts"`
	InFlight int `json:"in_flight"`
	// Limit is how many requests may be in flight to it from here now:
	// ip_concurrency, or in a cluster the slots of it this node holds (0
	// with no bound, or no slot); Full, whether InFlight has reached it.
	Limit int  `json:"limit"`
	Full  bool `json:"full"`
	// Waiting counts its hosts ready by their own rules and held back
	// by it now; Waits, the times one was, since the group was formed.
	Waiting int   `json:"waiting"`
	Waits   int64 `json:"waits"`
	// NextStart is the earliest start of its next request (ip_delay
	// after the last start or first byte); absent when none is pending.
	NextStart time.Time `json:"next_start,omitzero"`
	// Slots are the slots of the address each node holds (cluster
	// mode), and WantedBy the nodes asking for more: those that found
	// every slot taken and hold fewer than their share.
	Slots    []IPSlots `json:"slots,omitempty"`
	WantedBy []string  `json:"wanted_by,omitempty"`
	// Starter is the node holding the address's start hold (cluster
	// mode: the one node that may start requests to it), and
	// StartQueue the nodes queued for it, first first.
	Starter    string   `json:"starter,omitempty"`
	StartQueue []string `json:"start_queue,omitempty"`
}

// IPSlots is how many of an address's slots a node holds.
type IPSlots struct {
	Node  string `json:"node"`
	Slots int    `json:"slots"`
}

const (
	defaultIPGroupsLimit = 50
	maxIPGroupsLimit     = 1000
)

// SortIPGroups orders groups as the API lists them: most hosts waiting
// first, then most in flight, most waits, most hosts, then by address.
func SortIPGroups(groups []IPGroup) {
	slices.SortFunc(groups, func(a, b IPGroup) int {
		return cmp.Or(cmp.Compare(b.Waiting, a.Waiting), cmp.Compare(b.InFlight, a.InFlight),
			cmp.Compare(b.Waits, a.Waits), cmp.Compare(b.Hosts, a.Hosts), strings.Compare(a.Address, b.Address))
	})
}

func (s *Server) ipGroups(w http.ResponseWriter, r *http.Request) {
	ib, ok := s.b.(IPBackend)
	if !ok {
		writeError(w, http.StatusNotFound, "this crawl has no IP groups")
		return
	}
	limit := defaultIPGroupsLimit
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxIPGroupsLimit {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit: %q is not a number from 1 to %d", v, maxIPGroupsLimit))
			return
		}
		limit = n
	}
	g, err := ib.IPGroups(r.Context())
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	g.Total = len(g.Groups)
	SortIPGroups(g.Groups)
	if len(g.Groups) > limit {
		g.Groups = g.Groups[:limit]
	}
	if g.Groups == nil {
		g.Groups = []IPGroup{}
	}
	writeJSON(w, http.StatusOK, g)
}
