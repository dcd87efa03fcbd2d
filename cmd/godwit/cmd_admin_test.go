package main

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
)

// adminBackend is a fake crawl for the admin client commands; it records
// the calls it gets. SetRevisitShare answers shareErr.
type adminBackend struct {
	mu       sync.Mutex
	calls    []string
	shareErr error
}

func (b *adminBackend) rec(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, fmt.Sprintf(format, args...))
}

func (b *adminBackend) Calls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.calls)
}

func (b *adminBackend) Status() admin.Status {
	return admin.Status{
		Paused: true, UptimeSeconds: 3*3600 + 14*60 + 5, PagesFetched: 123456,
		PagesPerSecond1m: 4.25, PagesPerSecond10m: 3.9, QueueDepth: 5432, InFlight: 8,
		Hosts:     admin.HostCounts{Known: 120, Active: 40, Ready: 12, Waiting: 27, Blocked: 1},
		Errors:    map[string]int64{"transient": 12, "permanent": 3, "policy": 40},
		ErrorRate: 0.0012, WARCBytes: 3 << 30, TLSErrors: map[string]int64{"expired": 2, "unknown-authority": 1},
		TopHosts: []admin.HostRequests{{Host: "a.example", Requests: 312}, {Host: "bb.example", Requests: 9}},
		Recrawl: &admin.RecrawlStatus{Enabled: true, Policy: "optimal", Share: 0.3, RevisitShare: 0.31, Scheduled: 5000,
			DueBacklog: 120, LagSeconds: 4, CapacityPerSecond: 20, BudgetPerSecond: 6, Freshness: 0.82,
			Revisits: 1204, NotModified: 1132, Unchanged: 1150},
	}
}

func (b *adminBackend) AddSeeds(ctx context.Context, urls []string, priority int) (admin.SeedsResult, error) {
	b.rec("AddSeeds %v %d", urls, priority)
	r := admin.SeedsResult{}
	for _, u := range urls {
		if strings.Contains(u, "seen") {
			r.Rejected = append(r.Rejected, admin.Rejection{URL: u, Reason: "seen"})
		} else {
			r.Queued++
		}
	}
	return r, nil
}

func (b *adminBackend) Hosts(ctx context.Context, sort string, limit int) ([]admin.Host, error) {
	b.rec("Hosts %s %d", sort, limit)
	return []admin.Host{
		{Name: "a.example", Queued: 1200, Fetched: 40, DelayMS: 2500, DelayReason: "crawl-delay", Waiting: "crawl-delay", Breaker: "closed", Robots: "ok"},
		{Name: "b.example", Queued: 3, Blocked: true, DelayMS: 1000, DelayReason: "configured", Waiting: "blocked", Breaker: "open", Robots: "missing", ErrorStreak: 4},
	}, nil
}

func (b *adminBackend) Host(ctx context.Context, name string) (admin.Host, error) {
	b.rec("Host %s", name)
	if name != "a.example" {
		return admin.Host{}, fmt.Errorf("host %s: %w", name, admin.ErrNotFound)
	}
	d := int64(5000)
	return admin.Host{Name: name, Queued: 10, Fetched: 90, BudgetUsed: 90, BudgetMax: 1000, DelayMS: 5000, DelayReason: "override",
		Waiting: "override", LatencyMS: 230, Breaker: "closed", Robots: "ok", RobotsFetchedAt: time.Now().Add(-time.Hour), RobotsAgeSeconds: 3600,
		Policy:  &admin.HostPolicy{DelayMS: &d},
		Aliases: []admin.AliasRule{{Rule: "drop /index.html", Kind: "index", Param: "index.html", Confirmations: 3, Adopted: true}}}, nil
}

func (b *adminBackend) SetHostPolicy(ctx context.Context, host string, p admin.HostPolicy) error {
	s := "SetHostPolicy " + host
	if p.DelayMS != nil {
		s += fmt.Sprintf(" delay=%d", *p.DelayMS)
	}
	if p.MaxPages != nil {
		s += fmt.Sprintf(" max=%d", *p.MaxPages)
	}
	b.rec("%s", s)
	return nil
}

func (b *adminBackend) ClearHostPolicy(ctx context.Context, host string) error {
	b.rec("ClearHostPolicy %s", host)
	return nil
}

func (b *adminBackend) Block(ctx context.Context, host string) error {
	b.rec("Block %s", host)
	return nil
}

func (b *adminBackend) Unblock(ctx context.Context, host string) error {
	b.rec("Unblock %s", host)
	return nil
}

func (b *adminBackend) URL(ctx context.Context, rawURL string) (admin.URLInfo, error) {
	b.rec("URL %s", rawURL)
	if !strings.Contains(rawURL, "changing") {
		return admin.URLInfo{}, admin.ErrNotFound
	}
	return changingURL, nil
}

func (b *adminBackend) SetRevisitShare(ctx context.Context, share float64) error {
	b.rec("SetRevisitShare %g", share)
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.shareErr
}

func (b *adminBackend) Pause()  { b.rec("Pause") }
func (b *adminBackend) Resume() { b.rec("Resume") }

// serveFakeAdmin serves a fake crawl's admin API on a loopback port and
// returns its address.
func serveFakeAdmin(t *testing.T, token string) (string, *adminBackend) {
	t.Helper()
	b := &adminBackend{}
	ts := httptest.NewUnstartedServer(nil)
	s, err := admin.New(b, admin.Options{Addr: ts.Listener.Addr().String(), Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = s.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.Listener.Addr().String(), b
}

func TestAdminCommands(t *testing.T) {
	tests := []struct {
		args  []string
		stdin string
		has   []string // in stdout, in order
		call  string   // the backend call, if any
	}{
		{[]string{"status"}, "", []string{"paused, up 3h14m", "123,456 pages (4.2/s over 1m, 3.9/s over 10m)", "5,432 URLs, 8 in flight",
			"120 known, 40 active (12 ready, 27 waiting, 1 blocked)", "3 permanent, 40 policy, 12 transient (0.12% of fetches)", "TLS       failed: 1 unknown-authority, 2 expired", "3.0 GiB",
			"revisits  share 31% (reserved 30%), 120 due (lag 4s), freshness ~0.82, 304s 94% of 1,204 revisits",
			"budget 6.0/s of 20.0/s capacity, 5,000 scheduled, optimal policy",
			"busiest hosts", "a.example", "312"}, ""},
		{[]string{"status", "--json"}, "", []string{`"recrawl":{"enabled":true,"policy":"optimal","share":0.3,"revisit_share":0.31`, `"not_modified_share":0.94`}, ""},
		{[]string{"status", "--json"}, "", []string{`"paused":true`, `"pages_fetched":123456`}, ""},
		{[]string{"status", "--json"}, "", []string{`"tls_errors":{"expired":2,"unknown-authority":1}`}, ""},
		{[]string{"hosts"}, "", []string{"HOST", "QUEUED", "a.example", "1,200", "2.5s (crawl-delay)", "b.example (blocked)", "open"}, "Hosts queued 50"},
		{[]string{"hosts", "--sort", "errors", "--limit", "5"}, "", []string{"a.example"}, "Hosts errors 5"},
		{[]string{"hosts", "--json"}, "", []string{`[{"name":"a.example"`}, "Hosts queued 50"},
		{[]string{"hosts", "A.example"}, "", []string{"host", "a.example", "90 of 1,000 pages", "5s (override)", "230ms", "fetched 1h00m ago", "override", "delay 5s", "URL aliases", "drop /index.html: adopted, 3 confirmations"}, "Host a.example"},
		{[]string{"hosts", "block", "a.example"}, "", []string{"blocked a.example"}, "Block a.example"},
		{[]string{"hosts", "unblock", "a.example"}, "", []string{"unblocked a.example"}, "Unblock a.example"},
		{[]string{"hosts", "policy", "a.example", "--delay", "10s", "--max-pages", "500"}, "", []string{"set the policy of a.example: delay 10s, at most 500 pages"}, "SetHostPolicy a.example delay=10000 max=500"},
		{[]string{"hosts", "policy", "a.example", "--max-pages", "0"}, "", []string{"at most 0 pages"}, "SetHostPolicy a.example max=0"},
		{[]string{"hosts", "policy", "a.example", "--clear"}, "", []string{"cleared the policy of a.example"}, "ClearHostPolicy a.example"},
		{[]string{"seeds", "add", "--priority", "2", "https://a.example/", "https://seen.example/"}, "", []string{"queued 1 of 2 URLs", "https://seen.example/", "seen"}, "AddSeeds [https://a.example/ https://seen.example/] 2"},
		{[]string{"seeds", "add"}, "# urgent\nhttps://a.example/x\n\nhttps://b.example/\n", []string{"queued 2 of 2 URLs"}, "AddSeeds [https://a.example/x https://b.example/] 0"},
		{[]string{"seeds", "add", "--json", "https://a.example/"}, "", []string{`{"queued":1,"rejected":[]}`}, "AddSeeds [https://a.example/] 0"},
		{[]string{"pause"}, "", []string{"paused"}, "Pause"},
		{[]string{"resume"}, "", []string{"resumed"}, "Resume"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			addr, b := serveFakeAdmin(t, "")
			args := append(slices.Clone(tt.args), "--admin", addr)
			out, errOut, code := runCmd(t, tt.stdin, args...)
			if code != 0 {
				t.Fatalf("godwit %s: exit %d, %s", strings.Join(args, " "), code, errOut)
			}
			rest := out
			for _, h := range tt.has {
				i := strings.Index(rest, h)
				if i < 0 {
					t.Errorf("godwit %s: output lacks %q (in order):\n%s", strings.Join(tt.args, " "), h, out)
					break
				}
				rest = rest[i+len(h):]
			}
			var want []string
			if tt.call != "" {
				want = []string{tt.call}
			}
			if got := b.Calls(); !slices.Equal(got, want) {
				t.Errorf("godwit %s: backend calls %q, want %q", strings.Join(tt.args, " "), got, want)
			}
		})
	}
}

func TestAdminCommandErrors(t *testing.T) {
	addr, b := serveFakeAdmin(t, "")
	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	tests := []struct {
		args     []string
		code     int
		errorHas string
	}{
		{[]string{"status", "--admin", closed}, 1, "unreachable"},
		{[]string{"hosts", "missing.example", "--admin", addr}, 1, "not_found"},
		{[]string{"status", "--admin", "no-port"}, 2, "--admin"},
		{[]string{"status", "--admin", "ftp://x:1"}, 2, "--admin"},
		{[]string{"status", "extra", "--admin", addr}, 2, "unknown command"},
		{[]string{"hosts", "--sort", "name", "--admin", addr}, 2, "--sort"},
		{[]string{"hosts", "--limit", "0", "--admin", addr}, 2, "--limit"},
		{[]string{"hosts", "block", "--admin", addr}, 2, "accepts 1 arg"},
		{[]string{"hosts", "block", "http://a.example/", "--admin", addr}, 2, "not a host name"},
		{[]string{"hosts", "policy", "a.example", "--admin", addr}, 2, "--delay, --max-pages or --clear"},
		{[]string{"hosts", "policy", "a.example", "--clear", "--delay", "1s", "--admin", addr}, 2, "--clear"},
		{[]string{"hosts", "policy", "a.example", "--delay", "-1s", "--admin", addr}, 2, "negative"},
		{[]string{"seeds", "add", "--priority", "-1", "http://a/", "--admin", addr}, 2, "--priority"},
		{[]string{"seeds", "add", "--admin", addr}, 2, "no URLs"},
		{[]string{"pause", "--bogus"}, 2, "unknown flag"},
	}
	for _, tt := range tests {
		_, errOut, code := runCmd(t, "", tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.errorHas) {
			t.Errorf("godwit %s: exit %d, %q; want exit %d with %q", strings.Join(tt.args, " "), code, errOut, tt.code, tt.errorHas)
		}
	}
	if got := b.Calls(); !slices.Equal(got, []string{"Host missing.example"}) {
		t.Errorf("backend calls %q, want only the missing host's lookup", got)
	}
}

func TestAdminToken(t *testing.T) {
	addr, b := serveFakeAdmin(t, "s3cret")
	if _, errOut, code := runCmd(t, "", "pause", "--admin", addr); code != 1 || !strings.Contains(errOut, "unauthorized") || !strings.Contains(errOut, "GODWIT_ADMIN_TOKEN") {
		t.Errorf("pause without token: exit %d, %q; want 1, unauthorized", code, errOut)
	}
	if _, errOut, code := runCmd(t, "", "pause", "--admin", addr, "--admin-token", "wrong"); code != 1 {
		t.Errorf("pause with a wrong token: exit %d, %q; want 1", code, errOut)
	}
	if out, errOut, code := runCmd(t, "", "pause", "--admin", "http://"+addr, "--admin-token", "s3cret"); code != 0 || out != "paused\n" {
		t.Errorf("pause with --admin-token: %q, %q, exit %d", out, errOut, code)
	}
	t.Setenv("GODWIT_ADMIN_TOKEN", "s3cret")
	if out, errOut, code := runCmd(t, "", "resume", "--admin", addr); code != 0 || out != "resumed\n" {
		t.Errorf("resume with GODWIT_ADMIN_TOKEN: %q, %q, exit %d", out, errOut, code)
	}
	if got, want := b.Calls(), []string{"Pause", "Resume"}; !slices.Equal(got, want) {
		t.Errorf("backend calls %q, want %q", got, want)
	}
	// The token never shows in help.
	if out, _, _ := runCmd(t, "", "status", "--help"); strings.Contains(out, "s3cret") {
		t.Errorf("status --help shows the token:\n%s", out)
	}
}

func TestAdminHumanDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{850 * time.Millisecond, "850ms"},
		{2500 * time.Millisecond, "2.5s"},
		{12 * time.Second, "12s"},
		{185 * time.Second, "3m05s"},
		{2*time.Hour + 14*time.Minute + 20*time.Second, "2h14m"},
		{76 * time.Hour, "3d04h"},
	}
	for _, tt := range tests {
		if got := humanDuration(tt.d); got != tt.want {
			t.Errorf("humanDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := humanCount(n); got != want {
			t.Errorf("humanCount(%d) = %q, want %q", n, got, want)
		}
	}
}
