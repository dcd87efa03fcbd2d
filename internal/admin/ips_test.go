package admin

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"
)

// ipFake is a Backend that keeps IP groups.
type ipFake struct {
	fakeBackend
	groups []IPGroup
	err    error
}

func (f *ipFake) IPGroups(context.Context) (IPGroups, error) {
	return IPGroups{Enabled: true, Concurrency: 2, DelayMS: 250, Node: "n1", Full: 1, Waiting: 3, Waits: 40,
		Groups: slices.Clone(f.groups)}, f.err
}

// TestIPGroupsEndpoint: the groups come sorted (most hosts waiting
// first, then in flight, waits, hosts, address), cut to limit with the
// total kept; a crawl without IP groups answers 404, a bad limit 400.
func TestIPGroupsEndpoint(t *testing.T) {
	ts, _ := newTestServer(t, &fakeBackend{}, Options{})
	if r := do(t, ts, "GET", "/api/ip-groups", ""); r.status != 404 || errorCode(t, r) != "not_found" {
		t.Errorf("a backend without IP groups: %d %s, want 404", r.status, r.body)
	}
	next := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	f := &ipFake{groups: []IPGroup{
		{Address: "10.0.0.4", Hosts: 9},
		{Address: "10.0.0.3", Hosts: 1, InFlight: 1},
		{Address: "10.0.0.1", Hosts: 5, InFlight: 2, Limit: 2, Full: true, Waiting: 3, Waits: 30, NextStart: next,
			Slots: []IPSlots{{Node: "n1", Slots: 2}, {Node: "n2", Slots: 1}}, WantedBy: []string{"n3"}},
		{Address: "10.0.0.2", Hosts: 2, InFlight: 1},
	}}
	ts, _ = newTestServer(t, f, Options{})
	r := do(t, ts, "GET", "/api/ip-groups?limit=3", "")
	var g IPGroups
	if err := json.Unmarshal([]byte(r.body), &g); err != nil || r.status != 200 {
		t.Fatalf("GET /api/ip-groups: %d %s", r.status, r.body)
	}
	var order []string
	for _, x := range g.Groups {
		order = append(order, x.Address)
	}
	if want := []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"}; !slices.Equal(order, want) || g.Total != 4 {
		t.Errorf("groups %v of %d, want %v of 4", order, g.Total, want)
	}
	first := g.Groups[0]
	if !g.Enabled || g.Concurrency != 2 || g.DelayMS != 250 || g.Node != "n1" || g.Waiting != 3 || g.Waits != 40 ||
		!first.NextStart.Equal(next) || len(first.Slots) != 2 || first.Slots[1] != (IPSlots{Node: "n2", Slots: 1}) ||
		!slices.Equal(first.WantedBy, []string{"n3"}) || !first.Full || first.Limit != 2 {
		t.Errorf("GET /api/ip-groups = %s", r.body)
	}
	for _, bad := range []string{"0", "1001", "x"} {
		if r := do(t, ts, "GET", "/api/ip-groups?limit="+bad, ""); r.status != 400 {
			t.Errorf("limit=%s: %d, want 400", bad, r.status)
		}
	}
	f.err = errors.New("frontier closed")
	if r := do(t, ts, "GET", "/api/ip-groups", ""); r.status != 500 {
		t.Errorf("a failing backend: %d %s, want 500", r.status, r.body)
	}
}
