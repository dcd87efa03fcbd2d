package admin

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// ClusterBackend is a cluster crawl's view of all its nodes, for GET
// /api/cluster; a Backend that does not implement it (a single-node
// crawl) answers 404 there.
type ClusterBackend interface {
	// Cluster reads the crawl's status across its nodes now.
	Cluster(ctx context.Context) (ClusterStatus, error)
}

// ClusterStatus is GET /api/cluster: the crawl across its nodes, as the
// crawl's shared state (the NATS servers) shows it.
type ClusterStatus struct {
	Crawl string `json:"crawl"`
	// Node is the node that answered ("" from `godwit status --cluster`).
	Node   string `json:"node,omitempty"`
	Leader string `json:"leader,omitempty"`
	// Shards is the crawl's number of shards; UnownedShards those the
	// assignment gives no node (briefly, while a node joins or leaves).
	Shards        int `json:"shards"`
	UnownedShards int `json:"unowned_shards"`
	Seeds         int `json:"seeds"`
	// Done is set once the crawl is over (every node idle).
	Done   *ClusterDone  `json:"done,omitempty"`
	Nodes  []ClusterNode `json:"nodes"`
	Totals ClusterTotals `json:"totals"`
	Log    ClusterLog    `json:"log"`
}

// ClusterDone is when and by whom the crawl was found over.
type ClusterDone struct {
	At time.Time `json:"at"`
	By string    `json:"by"`
}

// ClusterNode is one live node of the crawl, as it last reported.
type ClusterNode struct {
	ID string `json:"id"`
	// AssignedShards is the node's share in the assignment; OwnedShards
	// those it has taken over and fetches from.
	AssignedShards int     `json:"assigned_shards"`
	OwnedShards    int     `json:"owned_shards"`
	Pages          int64   `json:"pages"`
	Requests       int64   `json:"requests"`
	PagesPerSecond float64 `json:"pages_per_second"`
	Queued         int     `json:"queued"`
	InFlight       int     `json:"in_flight"`
	// Admin is the node's admin API address, when it serves one.
	Admin   string    `json:"admin,omitempty"`
	Started time.Time `json:"started,omitzero"`
	// Updated is when the node last reported.
	Updated time.Time `json:"updated"`
}

// ClusterTotals add up the nodes' counts. Pages and Requests are the
// crawl's: those of every node that took part (Nodes), over all its
// runs, live, gone or dead, from the tallies the nodes keep in the
// crawl's shared state (a node killed loses what it did since its last
// tally, 250 ms at most, and its fetches in flight). The rest are the
// live nodes'.
type ClusterTotals struct {
	Pages          int64   `json:"pages"`
	Requests       int64   `json:"requests"`
	Nodes          int     `json:"nodes"`
	PagesPerSecond float64 `json:"pages_per_second"`
	Queued         int     `json:"queued"`
	InFlight       int     `json:"in_flight"`
}

// ClusterLog is the size of the crawl's shard logs (all streams):
// Messages and Bytes are the events kept, Appended every event ever
// appended (snapshots cut the logs: the difference).
type ClusterLog struct {
	Streams  int    `json:"streams"`
	Messages uint64 `json:"messages"`
	Bytes    uint64 `json:"bytes"`
	Appended uint64 `json:"appended"`
}

func (s *Server) cluster(w http.ResponseWriter, r *http.Request) {
	cb, ok := s.b.(ClusterBackend)
	if !ok {
		writeError(w, http.StatusNotFound, "not a cluster crawl")
		return
	}
	st, err := cb.Cluster(r.Context())
	if errors.Is(err, ErrNotFound) {
		writeError(w, http.StatusNotFound, "not a cluster crawl")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cluster: "+err.Error())
		return
	}
	if st.Nodes == nil {
		st.Nodes = []ClusterNode{}
	}
	writeJSON(w, http.StatusOK, st)
}
