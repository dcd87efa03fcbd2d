package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestRecrawlStatus: the recrawl group of GET /api/status is absent
// unless the crawl recrawls, carries every field under its snake_case
// name, and the server derives not_modified_share.
func TestRecrawlStatus(t *testing.T) {
	t.Run("off", func(t *testing.T) {
		ts, _ := newTestServer(t, &fakeBackend{}, Options{})
		if r := do(t, ts, "GET", "/api/status", ""); r.status != 200 || strings.Contains(r.body, "recrawl") {
			t.Errorf("GET /api/status of a one-pass crawl = %d %s, want no recrawl group", r.status, r.body)
		}
	})
	tests := []struct {
		name                  string
		revisits, notModified int64
		want                  float64
	}{
		{"no revisits", 0, 0, 0},
		{"some 304s", 1204, 301, 0.25},
		{"all 304s", 8, 8, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := &RecrawlStatus{Enabled: true, Policy: "optimal", Share: 0.3, RevisitShare: 0.31, Scheduled: 5000,
				DueBacklog: 120, LagSeconds: 4, CapacityPerSecond: 20, BudgetPerSecond: 6, Mu: 0.002, Freshness: 0.82,
				FreshnessChanging: 0.61, ChangingPages: 40,
				Revisits: tt.revisits, NotModified: tt.notModified, Unchanged: tt.notModified,
				NotModifiedShare: 0.5} // whatever the backend says, the server derives it
			ts, _ := newTestServer(t, &fakeBackend{recrawl: rc}, Options{})
			r := do(t, ts, "GET", "/api/status", "")
			var raw struct {
				Recrawl map[string]any `json:"recrawl"`
			}
			if err := json.Unmarshal([]byte(r.body), &raw); err != nil || r.status != 200 {
				t.Fatalf("GET /api/status = %d %s (%v)", r.status, r.body, err)
			}
			want := map[string]any{
				"enabled": true, "policy": "optimal", "share": 0.3, "revisit_share": 0.31, "scheduled": 5000.0,
				"due_backlog": 120.0, "lag_seconds": 4.0, "capacity_per_second": 20.0, "budget_per_second": 6.0,
				"mu": 0.002, "freshness": 0.82, "freshness_changing": 0.61, "changing_pages": 40.0, "revisits": float64(tt.revisits), "not_modified": float64(tt.notModified),
				"unchanged": float64(tt.notModified), "not_modified_share": tt.want,
			}
			for k, v := range want {
				if got, ok := raw.Recrawl[k]; !ok || got != v {
					t.Errorf("recrawl.%s = %v (present %v), want %v", k, got, ok, v)
				}
			}
			if len(raw.Recrawl) != len(want) {
				t.Errorf("recrawl has %d fields, want %d: %v", len(raw.Recrawl), len(want), raw.Recrawl)
			}
			if rc.NotModifiedShare != 0.5 {
				t.Errorf("the server changed the backend's RecrawlStatus")
			}
		})
	}
}

// TestSetRevisitShare: PUT /api/recrawl reaches the backend, which the
// next status shows, and the backend's errors map as elsewhere.
func TestSetRevisitShare(t *testing.T) {
	b := &fakeBackend{recrawl: &RecrawlStatus{Enabled: true, Policy: "optimal", Share: 0.2}}
	ts, _ := newTestServer(t, b, Options{})
	if r := do(t, ts, "PUT", "/api/recrawl", `{"revisit_share":0.45}`); r.status != 204 || r.body != "" {
		t.Fatalf("PUT /api/recrawl = %d %q, want 204 and no body", r.status, r.body)
	}
	if r := do(t, ts, "GET", "/api/status", ""); !strings.Contains(r.body, `"share":0.45,`) {
		t.Errorf("GET /api/status after PUT: %s, want share 0.45", r.body)
	}

	tests := []struct {
		name   string
		err    error
		status int
		code   string
	}{
		{"not recrawling", fmt.Errorf("%w: this crawl does not recrawl", ErrInvalid), 400, "bad_request"},
		{"store failure", errors.New("store: disk on fire"), 500, "internal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &fakeBackend{shareErr: tt.err}
			ts, _ := newTestServer(t, b, Options{})
			r := do(t, ts, "PUT", "/api/recrawl", `{"revisit_share":0.3}`)
			if r.status != tt.status || !strings.Contains(r.body, tt.err.Error()) {
				t.Errorf("PUT /api/recrawl = %d %s, want %d with %q", r.status, r.body, tt.status, tt.err)
			}
			if code := errorCode(t, r); code != tt.code {
				t.Errorf("error code %q, want %q", code, tt.code)
			}
			if got, want := b.Calls(), []string{"SetRevisitShare 0.3"}; !slices.Equal(got, want) {
				t.Errorf("backend calls %q, want %q", got, want)
			}
		})
	}
}

// TestURLChangeEstimate: the estimate's fields, and the derived mean
// interval only when there is a rate.
func TestURLChangeEstimate(t *testing.T) {
	ts, _ := newTestServer(t, &fakeBackend{}, Options{})
	r := do(t, ts, "GET", "/api/urls?url=http://changing.example/", "")
	for _, want := range []string{`"revisit":true`, `"change_rate":0.008333`, `"mean_change_interval_seconds":120,`,
		`"rate_error":0.14`, `"visits":9`, `"changed":6`, `"last_change":"2026-11-21T12:00:00Z"`, `"interval_seconds":90`,
		`"importance":2.3`, `"cash":0.41`, `"history":3.2`, `"band":5`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("GET /api/urls of a changing URL = %s, lacks %s", r.body, want)
		}
	}
	r = do(t, ts, "GET", "/api/urls?url=http://a.example/", "")
	for _, absent := range []string{"mean_change_interval_seconds", "last_change"} {
		if strings.Contains(r.body, absent) {
			t.Errorf("GET /api/urls of a URL without estimate = %s, want no %s", r.body, absent)
		}
	}
}
