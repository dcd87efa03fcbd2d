package fakeweb

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDupPaths(t *testing.T) {
	tests := []struct {
		n       int
		path    string
		kind    string
		cluster int
		member  int
	}{
		{0, "/d/exact/0", ContentExact, 0, 0},
		{2, "/d/exact/2", ContentExact, 0, 2},
		{3, "/d/near/0/0", ContentNear, 0, 0},
		{8, "/d/near/1/1", ContentNear, 1, 1},
		{14, "/d/near/2/3", ContentNear, 2, 3},
		{15, "/d/distinct/0", ContentDistinct, 0, 0},
		{20, "/d/distinct/5", ContentDistinct, 0, 5},
	}
	for _, tt := range tests {
		kind, c, m := dupKind(tt.n)
		if dupPaths[tt.n] != tt.path || kind != tt.kind || c != tt.cluster || m != tt.member {
			t.Errorf("dup %d = %s, %s %d %d; want %s, %s %d %d", tt.n, dupPaths[tt.n], kind, c, m, tt.path, tt.kind, tt.cluster, tt.member)
		}
		if n, ok := dupIndex(tt.path); !ok || n != tt.n {
			t.Errorf("dupIndex(%q) = %d, %v; want %d", tt.path, n, ok, tt.n)
		}
	}
}

// TestDuplicatesOffServesNothing checks the /d/ paths are 404 without
// Config.Duplicates, and robots.txt has no validators without
// ConditionalRobots (the golden test pins the rest).
func TestDuplicatesOffServesNothing(t *testing.T) {
	w, err := New(Config{Hosts: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range dupPaths {
		rec := httptest.NewRecorder()
		w.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://h0.fake.test"+p, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s without Duplicates = %d, want 404", p, rec.Code)
		}
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "http://h0.fake.test/robots.txt", nil)
	req.Header.Set("If-None-Match", "*")
	w.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || rec.Header().Get("ETag") != "" {
		t.Errorf("GET /robots.txt If-None-Match: * without ConditionalRobots = %d, ETag %q; want 200, none", rec.Code, rec.Header().Get("ETag"))
	}
	if w.ContentLabels() != nil {
		t.Errorf("ContentLabels() without Duplicates = %v, want nil", w.ContentLabels())
	}
	b, err := json.Marshal(w.Report(Judge{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"content_duplicates", "robots_conditional", "robots_not_modified"} {
		if strings.Contains(string(b), k) {
			t.Errorf("report JSON has %q: %s", k, b)
		}
	}
}

// TestDuplicatesTruth checks what the ground truth holds of the
// duplicate pages, and that ContentLabels names exactly those.
func TestDuplicatesTruth(t *testing.T) {
	w, err := New(Config{Hosts: 3, PagesPerHost: 5, Duplicates: true, Hostile: true,
		HostileConfig: HostileConfig{Every: 2, StormHost: -1},
		Robots:        []RobotsKind{RobotsAllow, RobotsServerError, RobotsDisallow}})
	if err != nil {
		t.Fatal(err)
	}
	tr := w.truth(w.Seeds(), 0)
	labelled := map[string]bool{}
	for _, l := range w.ContentLabels() {
		labelled[l.URL] = true
	}
	for host := range 3 {
		for n := range numDup {
			i, ok := w.slot(host, resDup, n)
			if !ok {
				t.Fatalf("h%d %s has no slot", host, dupPaths[n])
			}
			if got := w.slotTarget(i); got != (target{host: host, kind: resDup, n: n}) {
				t.Errorf("slotTarget(slot(h%d %s)) = %+v", host, dupPaths[n], got)
			}
			want := int32(1)
			if host == 1 {
				want = -1 // robots.txt fails
			}
			if tr.pages[i] != want {
				t.Errorf("h%d %s has depth %d, want %d", host, dupPaths[n], tr.pages[i], want)
			}
			if u := "http://" + w.hostName(host) + dupPaths[n]; labelled[u] != (want >= 0) {
				t.Errorf("%s labelled %v, want %v", u, labelled[u], want >= 0)
			}
		}
	}
	if want := 2 * (5 + numDup); tr.reachable != want+2*len(hostilePageList)-1 {
		// h0 and h2 are hostile; h0's /x/landing is on h1, unavailable,
		// and h2's lands on h0.
		t.Errorf("reachable %d, want %d", tr.reachable, want+2*len(hostilePageList)-1)
	}
	// Seeded at a near page, its links lead to distinct pages and home.
	tr = w.truth([]string{"http://h0.fake.test/d/near/1/2"}, 1)
	for _, c := range []struct {
		kind resourceKind
		n    int
		want int32
	}{{resPage, 0, 1}, {resDup, dupDistinctFirst + 3, 1}, {resDup, dupDistinctFirst + 5, 1}, {resDup, dupDistinctFirst + 0, -1}, {resDup, 0, -1}} {
		if i, _ := w.slot(0, c.kind, c.n); tr.pages[i] != c.want {
			t.Errorf("from /d/near/1/2: %s has depth %d, want %d", pathOf(target{kind: c.kind, n: c.n}), tr.pages[i], c.want)
		}
	}
}
