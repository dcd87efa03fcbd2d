package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/godwit-crawler/godwit/internal/admin"
)

func TestUIFiles(t *testing.T) {
	ui := admin.UI()
	for _, name := range []string{"index.html", "app.js", "app.css"} {
		if _, err := fs.Stat(ui, name); err != nil {
			t.Errorf("UI() has no %s: %v", name, err)
		}
	}

	page, err := fs.ReadFile(ui, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("parse index.html: %v", err)
	}
	var refs []string
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		for _, a := range n.Attr {
			switch {
			case a.Key == "src" || a.Key == "href":
				refs = append(refs, a.Val)
				if v := strings.ToLower(a.Val); strings.HasPrefix(v, "http:") || strings.HasPrefix(v, "https:") || strings.HasPrefix(v, "//") {
					t.Errorf("<%s %s=%q>: the dashboard must not load anything from elsewhere", n.Data, a.Key, a.Val)
				}
			case strings.HasPrefix(a.Key, "on"):
				t.Errorf("<%s %s=…>: inline event handler (the CSP forbids them; use addEventListener)", n.Data, a.Key)
			case a.Key == "style":
				t.Errorf("<%s style=…>: inline style (the CSP forbids them; use app.css)", n.Data)
			}
		}
		if n.Data == "script" && attr(n, "src") == "" {
			t.Errorf("inline <script>: the CSP forbids it; put the code in app.js")
		}
	})
	// Every local asset the page names must be in the FS, where the
	// server serves /static/NAME from NAME.
	for _, ref := range refs {
		if name, ok := strings.CutPrefix(ref, "static/"); ok {
			if _, err := fs.Stat(ui, name); err != nil {
				t.Errorf("index.html references %q, not in UI(): %v", ref, err)
			}
		}
	}
	for _, want := range []string{"static/app.js", "static/app.css"} {
		if !contains(refs, want) {
			t.Errorf("index.html does not reference %s; references: %q", want, refs)
		}
	}

	t.Run("node --check app.js", func(t *testing.T) {
		node, err := exec.LookPath("node")
		if err != nil {
			t.Skip("node is not installed: app.js syntax not checked")
		}
		js, err := fs.ReadFile(ui, "app.js")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "app.js")
		if err := os.WriteFile(path, js, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(node, "--check", path).CombinedOutput(); err != nil {
			t.Errorf("node --check app.js: %v\n%s", err, out)
		}
	})
}

// The fake crawl the browser sees: figures chosen to be told apart on the
// page.
var (
	dashT0     = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	dashStatus = func() admin.Status {
		s := admin.Status{
			UptimeSeconds:     3725,
			PagesFetched:      4321,
			PagesPerSecond1m:  12.3,
			PagesPerSecond10m: 6.7,
			QueueDepth:        777,
			InFlight:          16,
			Hosts:             admin.HostCounts{Known: 345, Active: 123, Ready: 45, Waiting: 67, Blocked: 2},
			Errors:            map[string]int64{"transient": 11, "permanent": 22, "policy": 33},
			ErrorRate:         0.0125,
			Dedup:             admin.DedupCounts{Revisits: 51, NotModified: 52, NearDuplicates: 53, SeenURLs: 9876},
			WARCBytes:         3 << 29, // 1.5 GiB
			TopHosts: []admin.HostRequests{
				{Host: "h1.test", Requests: 240},
				{Host: "h2.test", Requests: 120},
				{Host: "<i>3.test", Requests: 60}, // must be shown as text, not markup
			},
			Recrawl: &admin.RecrawlStatus{Enabled: true, Policy: "optimal", Share: 0.3, RevisitShare: 0.31,
				Scheduled: 5000, DueBacklog: 120, LagSeconds: 4, CapacityPerSecond: 20, BudgetPerSecond: 6, Mu: 0.002,
				Freshness: 0.82, Revisits: 1204, NotModified: 1132, Unchanged: 1150, NotModifiedShare: 0.94},
		}
		// 60 intervals of 10 s, rising: 0, 2, …, 118 pages (11.8 pages/s last).
		for i := range 60 {
			s.Rate = append(s.Rate, admin.RatePoint{Time: dashT0.Add(time.Duration(i) * 10 * time.Second), Pages: int64(2 * i)})
		}
		return s
	}()
	dashHost = admin.Host{
		Name: "h1.test", Queued: 500, Fetched: 40, Leased: true,
		DelayMS: 1500, DelayReason: "crawl-delay",
		NextAllowed: dashT0.Add(time.Hour), Waiting: "crawl-delay",
		LatencyMS: 210, ErrorStreak: 3, Breaker: "half-open",
		Robots: "ok", RobotsFetchedAt: dashT0, RobotsAgeSeconds: 120,
		BudgetUsed: 40, BudgetMax: 500,
		Policy:      &admin.HostPolicy{DelayMS: ptr(int64(2000))},
		Requests10m: 240,
	}
	dashHosts = []admin.Host{dashHost, {Name: "h2.test", Queued: 300, Fetched: 7, DelayMS: 1000, DelayReason: "configured", Breaker: "closed", Robots: "missing"}}
)

// dashboardServer serves admin.UI() as the admin server does, with a fake
// JSON API. fail makes every /api/ request answer that status; onePass
// leaves recrawl out of the status.
type dashboardServer struct {
	fail    int
	onePass bool
	cluster bool // serve /api/cluster, as a node of a cluster crawl does

	mu         sync.Mutex
	hostsQuery []string // the query strings /api/hosts was asked with
}

func (d *dashboardServer) handler() http.Handler {
	ui := admin.UI()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, ui, "index.html")
	})
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(ui)))
	api := http.NewServeMux()
	api.HandleFunc("GET /api/status", func(w http.ResponseWriter, r *http.Request) {
		st := dashStatus
		if d.onePass {
			st.Recrawl = nil
		}
		writeJSON(w, http.StatusOK, st)
	})
	api.HandleFunc("GET /api/cluster", func(w http.ResponseWriter, r *http.Request) {
		if !d.cluster {
			writeError(w, http.StatusNotFound, "not_found", "not a cluster crawl")
			return
		}
		writeJSON(w, http.StatusOK, admin.ClusterStatus{Crawl: "news", Node: "n1", Leader: "n2", Shards: 1024, UnownedShards: 4, Seeds: 3,
			Nodes: []admin.ClusterNode{
				{ID: "n1", AssignedShards: 510, OwnedShards: 510, Pages: 1200, PagesPerSecond: 10.5, Queued: 300, InFlight: 4, Admin: "127.0.0.1:7070"},
				{ID: "<b>n2", AssignedShards: 510, OwnedShards: 500, Pages: 800, PagesPerSecond: 7.5, Queued: 200, InFlight: 3},
			},
			Totals: admin.ClusterTotals{Pages: 2000, Nodes: 3, PagesPerSecond: 18, Queued: 500, InFlight: 7}})
	})
	api.HandleFunc("GET /api/ip-groups", func(w http.ResponseWriter, r *http.Request) {
		g := admin.IPGroups{Enabled: !d.onePass, Concurrency: 2, DelayMS: 250, Total: 2, Full: 1, Waiting: 3, Waits: 1500,
			Groups: []admin.IPGroup{
				{Address: "192.0.2.7", Hosts: 40, InFlight: 2, Limit: 2, Full: true, Waiting: 3, Waits: 1400},
				{Address: "2001:db8::/64", Hosts: 1, Limit: 2, Waits: 100},
			}}
		if d.cluster {
			g.Node = "n1"
			g.Groups[0].Slots = []admin.IPSlots{{Node: "n1", Slots: 2}, {Node: "<b>n2", Slots: 0}}
			g.Groups[0].WantedBy = []string{"n3"}
		}
		writeJSON(w, http.StatusOK, g)
	})
	api.HandleFunc("GET /api/hosts", func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.hostsQuery = append(d.hostsQuery, r.URL.RawQuery)
		d.mu.Unlock()
		writeJSON(w, http.StatusOK, dashHosts)
	})
	api.HandleFunc("GET /api/hosts/{host}", func(w http.ResponseWriter, r *http.Request) {
		for _, h := range dashHosts {
			if h.Name == r.PathValue("host") {
				writeJSON(w, http.StatusOK, h)
				return
			}
		}
		writeError(w, http.StatusNotFound, "not_found", "host not found")
	})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		switch d.fail {
		case 0:
			api.ServeHTTP(w, r)
		case http.StatusUnauthorized:
			writeError(w, d.fail, "unauthorized", "missing or wrong token")
		default:
			writeError(w, d.fail, "internal", "backend exploded")
		}
	})
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, errCode, msg string) {
	var b admin.ErrorBody
	b.Error.Code, b.Error.Message = errCode, msg
	writeJSON(w, code, b)
}

func TestDashboardInChromium(t *testing.T) {
	browser := findChromium(t)

	t.Run("status", func(t *testing.T) {
		d := &dashboardServer{}
		dom := loadDashboard(t, browser, d, "/")

		// The JS ran and the status line says so.
		if got := text(byID(t, dom, "state")); got != "Running." {
			t.Errorf("#state = %q, want %q", got, "Running.")
		}
		for id, want := range map[string]string{
			"pps-1m": "12.3", "pps-10m": "6.7", "pages-fetched": "4,321",
			"run-state": "Running", "uptime": "1 h 2 min", "queue-depth": "777", "in-flight": "16",
			"warc-bytes":  "1.5 GiB",
			"hosts-known": "345", "hosts-active": "123", "hosts-ready": "45", "hosts-waiting": "67", "hosts-blocked": "2",
			"errors-transient": "11", "errors-permanent": "22", "errors-policy": "33", "error-rate": "1.25%",
			"dedup-revisits": "51", "dedup-not-modified": "52", "dedup-near": "53", "dedup-seen": "9,876",
		} {
			if got := text(byID(t, dom, id)); got != want {
				t.Errorf("#%s = %q, want %q", id, got, want)
			}
		}

		// The chart: one point per interval, left to right in time, and
		// rising as the fake rate rises (SVG y grows downwards).
		chart := byID(t, dom, "chart")
		if label := attr(chart, "aria-label"); !strings.Contains(label, "latest 11.8") || !strings.Contains(label, "peak 11.8") {
			t.Errorf("chart aria-label = %q, want the latest and peak rate 11.8", label)
		}
		pts := pathPoints(t, attr(byID(t, dom, "rate-line"), "d"))
		if len(pts) != len(dashStatus.Rate) {
			t.Fatalf("chart line has %d points, want %d", len(pts), len(dashStatus.Rate))
		}
		for i := 1; i < len(pts); i++ {
			if pts[i][0] <= pts[i-1][0] || pts[i][1] >= pts[i-1][1] {
				t.Errorf("chart point %d %v after %v: want it right of and above the previous one", i, pts[i], pts[i-1])
				break
			}
		}
		for _, want := range []string{"pages/s", "minutes ago", "now", "−10 min"} {
			if !strings.Contains(text(chart), want) {
				t.Errorf("chart text %q lacks the axis label %q", text(chart), want)
			}
		}

		// The hidden table has the same data.
		rows := findAll(byID(t, dom, "rate-table"), "tbody", "tr")
		if len(rows) != len(dashStatus.Rate) {
			t.Fatalf("rate table has %d rows, want %d", len(rows), len(dashStatus.Rate))
		}
		if got := attr(find(rows[0], "time"), "datetime"); got != "2026-11-21T12:00:00Z" {
			t.Errorf("first rate row <time datetime=%q>, want 2026-11-21T12:00:00Z", got)
		}
		if got, want := text(rows[59]), "12:09:50"+"118"+"11.8"; got != want {
			t.Errorf("last rate row text = %q, want %q", got, want)
		}

		// Top hosts, in order, names as text (never markup) and links to
		// their lookup.
		top := findAll(byID(t, dom, "top-hosts"), "tbody", "tr")
		var gotTop []string
		for _, r := range top {
			gotTop = append(gotTop, text(r))
		}
		if want := []string{"h1.test2402.5 s", "h2.test1205.0 s", "<i>3.test6010.0 s"}; strings.Join(gotTop, "|") != strings.Join(want, "|") {
			t.Errorf("top hosts rows = %q, want %q", gotTop, want)
		}
		if len(top) > 0 {
			if href := attr(find(top[0], "a"), "href"); href != "?host=h1.test" {
				t.Errorf("top host link href = %q, want ?host=h1.test", href)
			}
		}
		if find(byID(t, dom, "top-hosts"), "i") != nil {
			t.Errorf("a host name was inserted as HTML")
		}

		// Hosts by queued URLs, from /api/hosts?sort=queued&limit=20.
		queued := findAll(byID(t, dom, "queued-hosts"), "tbody", "tr")
		if len(queued) != 2 || !strings.HasPrefix(text(queued[0]), "h1.test500") || !strings.HasPrefix(text(queued[1]), "h2.test300") {
			var got []string
			for _, r := range queued {
				got = append(got, text(r))
			}
			t.Errorf("queued hosts rows = %q, want h1.test (500) then h2.test (300)", got)
		}
		d.mu.Lock()
		if len(d.hostsQuery) == 0 || d.hostsQuery[0] != "sort=queued&limit=20" {
			t.Errorf("/api/hosts queries = %q, want sort=queued&limit=20", d.hostsQuery)
		}
		d.mu.Unlock()

		// Revisits: shown, with the measured share against the reserved
		// one, as figures and as a bar with a marker.
		if sec := byID(t, dom, "recrawl"); hasAttr(sec, "hidden") {
			t.Errorf("#recrawl is hidden though the status has recrawl")
		}
		for id, want := range map[string]string{
			"recrawl-share": "31%", "recrawl-reserved": "30%", "recrawl-backlog": "120", "recrawl-lag": "4 s",
			"recrawl-scheduled": "5,000", "recrawl-freshness": "82%", "recrawl-not-modified": "94% of 1,204 revisits",
			"recrawl-unchanged": "1,150", "recrawl-budget": "6.0 of 20.0 requests/s", "recrawl-policy": "optimal",
		} {
			if got := text(byID(t, dom, id)); got != want {
				t.Errorf("#%s = %q, want %q", id, got, want)
			}
		}
		if label := attr(byID(t, dom, "recrawl-chart"), "aria-label"); !strings.Contains(label, "31% of recent fetches") || !strings.Contains(label, "30% of fetch capacity is reserved") {
			t.Errorf("revisit chart aria-label = %q, want the measured 31%% and reserved 30%%", label)
		}
		bar, _ := strconv.ParseFloat(attr(byID(t, dom, "recrawl-bar"), "width"), 64)
		mark, _ := strconv.ParseFloat(attr(byID(t, dom, "recrawl-mark"), "x1"), 64)
		if bar <= 0 || mark <= 0 || 4+bar <= mark {
			t.Errorf("revisit bar ends at %v, reserved mark at %v: want the bar (31%%) past the mark (30%%)", 4+bar, mark)
		}
	})

	t.Run("cluster node", func(t *testing.T) {
		dom := loadDashboard(t, browser, &dashboardServer{cluster: true}, "/")
		if hasAttr(byID(t, dom, "cluster"), "hidden") {
			t.Fatalf("#cluster is hidden on a cluster node")
		}
		want := "Crawl news, running: 2 live nodes, 1,024 shards, 4 without an owner; leader n2. 2,000 pages in all by 3 nodes, 18.0/s; 500 queued."
		if got := text(byID(t, dom, "cluster-summary")); got != want {
			t.Errorf("#cluster-summary = %q, want %q", got, want)
		}
		var rows []string
		for _, r := range findAll(byID(t, dom, "cluster-nodes"), "tbody", "tr") {
			rows = append(rows, text(r))
		}
		if want := []string{"n1 (this node)5101,20010.53004127.0.0.1:7070", "<b>n2500 of 5108007.52003–"}; strings.Join(rows, "|") != strings.Join(want, "|") {
			t.Errorf("cluster rows = %q, want %q", rows, want)
		}
		if find(byID(t, dom, "cluster-nodes"), "b") != nil {
			t.Errorf("a node ID was inserted as HTML")
		}
		if hasAttr(byID(t, dom, "ip-groups"), "hidden") {
			t.Fatalf("#ip-groups is hidden on a crawl that keeps IP groups")
		}
		want = "Budget per address: 2 in flight, 250 ms between starts. 2 groups on node n1, 1 full; 3 hosts waiting for their address now, 1,500 waits so far."
		if got := text(byID(t, dom, "ip-summary")); got != want {
			t.Errorf("#ip-summary = %q, want %q", got, want)
		}
		rows = nil
		for _, r := range findAll(byID(t, dom, "ip-table"), "tbody", "tr") {
			rows = append(rows, text(r))
		}
		if want := []string{"192.0.2.74022 (full)31,400–n1: 2, <b>n2: 0; wanted by n3", "2001:db8::/641020100––"}; strings.Join(rows, "|") != strings.Join(want, "|") {
			t.Errorf("IP group rows = %q, want %q", rows, want)
		}
		if find(byID(t, dom, "ip-table"), "b") != nil {
			t.Errorf("a node ID was inserted as HTML")
		}
	})

	t.Run("one-pass crawl", func(t *testing.T) {
		dom := loadDashboard(t, browser, &dashboardServer{onePass: true}, "/")
		if got := text(byID(t, dom, "state")); got != "Running." {
			t.Errorf("#state = %q, want %q", got, "Running.")
		}
		if !hasAttr(byID(t, dom, "recrawl"), "hidden") {
			t.Errorf("#recrawl is shown though the status has no recrawl")
		}
		if !hasAttr(byID(t, dom, "cluster"), "hidden") {
			t.Errorf("#cluster is shown on a single-node crawl")
		}
		if !hasAttr(byID(t, dom, "ip-groups"), "hidden") {
			t.Errorf("#ip-groups is shown on a crawl without IP groups")
		}
	})

	// The real server, with a token: the operator opens /?token=, gets the
	// session cookie and is redirected to /, whose script then reaches the
	// API through every check of the server.
	t.Run("real server", func(t *testing.T) {
		const token = "dashboard-test-token"
		b := &dashboardBackend{}
		ts := httptest.NewUnstartedServer(nil)
		s, err := admin.New(b, admin.Options{Addr: ts.Listener.Addr().String(), Token: token, UI: admin.UI()})
		if err != nil {
			t.Fatal(err)
		}
		ts.Config.Handler = s.Handler()
		ts.Start()
		t.Cleanup(ts.Close)

		dom := loadURL(t, browser, ts.URL+"/?token="+token)
		if got := text(byID(t, dom, "state")); got != "Running." {
			t.Errorf("#state = %q, want %q", got, "Running.")
		}
		if got := text(byID(t, dom, "pps-1m")); got != "12.3" {
			t.Errorf("#pps-1m = %q, want 12.3", got)
		}
		if got := len(findAll(byID(t, dom, "top-hosts"), "tbody", "tr")); got != len(dashStatus.TopHosts) {
			t.Errorf("top hosts table has %d rows, want %d", got, len(dashStatus.TopHosts))
		}
		if got := len(findAll(byID(t, dom, "queued-hosts"), "tbody", "tr")); got != len(dashHosts) {
			t.Errorf("queued hosts table has %d rows, want %d", got, len(dashHosts))
		}
		b.mu.Lock()
		if len(b.hosts) == 0 || b.hosts[0] != "queued 20" {
			t.Errorf("Backend.Hosts calls = %q, want sort queued, limit 20", b.hosts)
		}
		b.mu.Unlock()
	})

	t.Run("host lookup", func(t *testing.T) {
		dom := loadDashboard(t, browser, &dashboardServer{}, "/?host=h1.test")
		fields := map[string]string{}
		var key string
		walk(byID(t, dom, "host-fields"), func(n *html.Node) {
			switch {
			case n.Type == html.ElementNode && n.Data == "dt":
				key = text(n)
			case n.Type == html.ElementNode && n.Data == "dd":
				fields[key] = text(n)
			}
		})
		for k, want := range map[string]string{
			"Host": "h1.test", "Queued URLs": "500", "Fetched pages": "40",
			"Requests in the last 10 minutes": "240", "Request in flight": "yes", "Blocked": "no",
			"Delay between requests": "1,500 ms (crawl-delay)", "Waiting for": "crawl-delay",
			"Latency": "210 ms", "Error streak": "3", "Circuit breaker": "half-open", "robots.txt": "ok",
			"Page budget": "40 of 500", "Operator policy": "delay 2,000 ms",
		} {
			if got := fields[k]; got != want {
				t.Errorf("host field %q = %q, want %q", k, got, want)
			}
		}
		if got := fields["robots.txt fetched"]; !strings.Contains(got, "2 min 0 s ago") {
			t.Errorf("host field %q = %q, want it to say 2 min 0 s ago", "robots.txt fetched", got)
		}
	})

	t.Run("host not found", func(t *testing.T) {
		dom := loadDashboard(t, browser, &dashboardServer{}, "/?host=nope.test")
		if got := text(byID(t, dom, "host-error")); !strings.HasPrefix(got, "Not found") || !strings.Contains(got, "nope.test") {
			t.Errorf("#host-error = %q, want a not-found message naming nope.test", got)
		}
	})

	t.Run("token required", func(t *testing.T) {
		dom := loadDashboard(t, browser, &dashboardServer{fail: http.StatusUnauthorized}, "/")
		if got := text(byID(t, dom, "state")); !strings.HasPrefix(got, "Token required") {
			t.Errorf("#state = %q, want it to say a token is required", got)
		}
		if got := text(byID(t, dom, "updated")); !strings.Contains(got, "/?token=") {
			t.Errorf("#updated = %q, want it to explain /?token=", got)
		}
	})

	t.Run("API failure", func(t *testing.T) {
		dom := loadDashboard(t, browser, &dashboardServer{fail: http.StatusInternalServerError}, "/")
		if got := text(byID(t, dom, "state")); !strings.HasPrefix(got, "Last update failed at ") || !strings.Contains(got, "HTTP 500: backend exploded") {
			t.Errorf("#state = %q, want it to say when the last update failed and why", got)
		}
	})
}

// dashboardBackend is the same fake crawl behind the real Server, for the
// end-to-end subtest.
type dashboardBackend struct {
	mu    sync.Mutex
	hosts []string // "sort limit" of each Hosts call
}

var _ admin.Backend = (*dashboardBackend)(nil)

func (b *dashboardBackend) Status() admin.Status { return dashStatus }
func (b *dashboardBackend) Hosts(ctx context.Context, sort string, limit int) ([]admin.Host, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hosts = append(b.hosts, sort+" "+strconv.Itoa(limit))
	return dashHosts, nil
}
func (b *dashboardBackend) Host(ctx context.Context, name string) (admin.Host, error) {
	for _, h := range dashHosts {
		if h.Name == name {
			return h, nil
		}
	}
	return admin.Host{}, admin.ErrNotFound
}
func (b *dashboardBackend) AddSeeds(ctx context.Context, urls []string, priority int) (admin.SeedsResult, error) {
	return admin.SeedsResult{}, admin.ErrInvalid
}
func (b *dashboardBackend) SetHostPolicy(ctx context.Context, host string, p admin.HostPolicy) error {
	return admin.ErrInvalid
}
func (b *dashboardBackend) ClearHostPolicy(ctx context.Context, host string) error {
	return admin.ErrInvalid
}
func (b *dashboardBackend) Block(ctx context.Context, host string) error   { return admin.ErrInvalid }
func (b *dashboardBackend) Unblock(ctx context.Context, host string) error { return admin.ErrInvalid }
func (b *dashboardBackend) URL(ctx context.Context, rawURL string) (admin.URLInfo, error) {
	return admin.URLInfo{}, admin.ErrNotFound
}
func (b *dashboardBackend) Pause()  {}
func (b *dashboardBackend) Resume() {}
func (b *dashboardBackend) SetRevisitShare(ctx context.Context, share float64) error {
	return admin.ErrInvalid
}

// findChromium returns Debian's chromium, or skips the test without it
// (fails, when GODWIT_REQUIRE_CHROMIUM=1: CI installed it).
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium is not installed (apt-get install chromium): the dashboard is not tested in a browser"
	if os.Getenv("GODWIT_REQUIRE_CHROMIUM") == "1" {
		t.Fatal(msg + ", and GODWIT_REQUIRE_CHROMIUM=1")
	}
	t.Skip(msg)
	return ""
}

// loadDashboard serves d on 127.0.0.1 and opens path in headless
// chromium.
func loadDashboard(t *testing.T, browser string, d *dashboardServer, path string) *html.Node {
	t.Helper()
	srv := httptest.NewServer(d.handler())
	t.Cleanup(srv.Close)
	return loadURL(t, browser, srv.URL+path)
}

// loadURL opens url in headless chromium, lets the page run for 8 s of
// virtual time (a few polls) and returns the DOM it then has.
func loadURL(t *testing.T, browser, url string) *html.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, browser,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--disable-extensions", "--lang=en-US",
		"--user-data-dir="+filepath.Join(home, "profile"),
		"--virtual-time-budget=8000", "--dump-dom", url)
	// A fixed locale and zone, so that numbers and times read as the test expects.
	cmd.Env = append(os.Environ(), "HOME="+home, "TZ=UTC", "LANG=en_US.UTF-8", "LANGUAGE=en_US")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s --dump-dom: %v\n%s", browser, err, stderr.Bytes())
	}
	dom, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("parse chromium's DOM: %v", err)
	}
	if byIDOrNil(dom, "main") == nil {
		t.Fatalf("chromium's DOM is not the dashboard:\n%s\nstderr:\n%s", out, stderr.Bytes())
	}
	return dom
}

// pathPoints returns the points of an SVG path made of M and L commands.
func pathPoints(t *testing.T, d string) [][2]float64 {
	t.Helper()
	var pts [][2]float64
	for _, f := range strings.Fields(d) {
		x, y, ok := strings.Cut(strings.TrimLeft(f, "ML"), ",")
		fx, err1 := strconv.ParseFloat(x, 64)
		fy, err2 := strconv.ParseFloat(y, 64)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("chart path d=%q: cannot read %q", d, f)
		}
		pts = append(pts, [2]float64{fx, fy})
	}
	return pts
}

func walk(n *html.Node, f func(*html.Node)) {
	if n == nil {
		return
	}
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text is n's text content, trimmed.
func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
	})
	return strings.TrimSpace(b.String())
}

func byIDOrNil(root *html.Node, id string) *html.Node {
	var found *html.Node
	walk(root, func(n *html.Node) {
		if found == nil && n.Type == html.ElementNode && attr(n, "id") == id {
			found = n
		}
	})
	return found
}

func byID(t *testing.T, root *html.Node, id string) *html.Node {
	t.Helper()
	n := byIDOrNil(root, id)
	if n == nil {
		t.Fatalf("no element with id %q", id)
	}
	return n
}

// find returns the first element named tag under n, or nil.
func find(n *html.Node, tag string) *html.Node {
	var found *html.Node
	walk(n, func(c *html.Node) {
		if found == nil && c != n && c.Type == html.ElementNode && c.Data == tag {
			found = c
		}
	})
	return found
}

// findAll returns the children named tag of the first element named
// parent under n.
func findAll(n *html.Node, parent, tag string) []*html.Node {
	var all []*html.Node
	p := find(n, parent)
	if p == nil {
		return nil
	}
	for c := p.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == tag {
			all = append(all, c)
		}
	}
	return all
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }
