package admin

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// clusterFake is a Backend of a cluster node.
type clusterFake struct {
	fakeBackend
	err error
}

func (f *clusterFake) Cluster(context.Context) (ClusterStatus, error) {
	return ClusterStatus{Crawl: "c1", Node: "n1", Leader: "n2", Shards: 4, Seeds: 1,
		Nodes:  []ClusterNode{{ID: "n1", AssignedShards: 2, OwnedShards: 2, Pages: 10}, {ID: "n2", AssignedShards: 2, OwnedShards: 1, Pages: 5}},
		Totals: ClusterTotals{Pages: 15}}, f.err
}

func TestClusterEndpoint(t *testing.T) {
	ts, _ := newTestServer(t, &fakeBackend{}, Options{})
	if r := do(t, ts, "GET", "/api/cluster", ""); r.status != 404 || errorCode(t, r) != "not_found" {
		t.Errorf("a single-node crawl: %d %s, want 404", r.status, r.body)
	}
	f := &clusterFake{}
	ts, _ = newTestServer(t, f, Options{})
	r := do(t, ts, "GET", "/api/cluster", "")
	var st ClusterStatus
	if err := json.Unmarshal([]byte(r.body), &st); err != nil || r.status != 200 {
		t.Fatalf("GET /api/cluster: %d %s", r.status, r.body)
	}
	if st.Crawl != "c1" || len(st.Nodes) != 2 || st.Nodes[1].OwnedShards != 1 || st.Totals.Pages != 15 || st.Done != nil {
		t.Errorf("GET /api/cluster = %+v", st)
	}
	f.err = errors.New("no NATS server answers")
	if r := do(t, ts, "GET", "/api/cluster", ""); r.status != 500 {
		t.Errorf("a failing backend: %d %s, want 500", r.status, r.body)
	}
}
