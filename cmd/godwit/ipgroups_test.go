package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/cluster/jetstream"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestIPGroupsView: while a crawl of a web served directly on three
// loopback addresses (four hosts on each) runs with an IP budget of one
// request in flight, GET /api/ip-groups and `godwit hosts ips` show the
// web's addresses as the groups, never more hosts on one than the web
// serves there nor more than one request in flight, and hosts waiting
// for their address; the web saw at most one request in flight per
// address, as the view's limit said.
func TestIPGroupsView(t *testing.T) {
	web := newDirectWeb(t, fakeweb.Config{Hosts: 12, PagesPerHost: 6, Seed: 3, CrossHostShare: -1}, directLoopback...)
	s := web.settings(t)
	s.Delay = 20 * time.Millisecond
	s.IPConcurrency = 1
	s.IPDelay = 40 * time.Millisecond
	s.Workers = 8
	s.Admin = "127.0.0.1:0"
	listening := make(chan string, 1)
	s.adminListening = func(a string) { listening <- a }
	done := make(chan error, 1)
	go func() {
		_, err := runCrawl(t.Context(), s, web.Seeds(), slog.New(slog.DiscardHandler), newTerminal(io.Discard))
		done <- err
	}()
	var api string
	select {
	case a := <-listening:
		api = a
	case err := <-done:
		t.Fatalf("crawl ended before the admin server listened: %v", err)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	seen := map[string]bool{}
	var waited, printed bool
	var last admin.IPGroups
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
poll:
	for !(waited && printed && len(seen) == len(directLoopback)) {
		select {
		case err := <-done:
			done <- err
			break poll
		case <-tick.C:
		}
		resp, err := client.Get("http://" + api + "/api/ip-groups")
		if err != nil {
			continue // the crawl may just have ended
		}
		var g admin.IPGroups
		err = json.NewDecoder(resp.Body).Decode(&g)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET /api/ip-groups: %d, %v", resp.StatusCode, err)
		}
		last = g
		if !g.Enabled || g.Concurrency != 1 || g.DelayMS != 40 || g.Node != "" {
			t.Fatalf("GET /api/ip-groups = %+v, want enabled, 1 in flight and 40 ms per address, no node", g)
		}
		for _, x := range g.Groups {
			if !slices.Contains(directLoopback, x.Address) {
				t.Fatalf("group %q: the web serves only on %v", x.Address, directLoopback)
			}
			seen[x.Address] = true
			if x.Hosts > 4 || x.InFlight > 1 || x.Limit != 1 || x.Full != (x.InFlight == 1) || x.Waiting > x.Hosts {
				t.Fatalf("group %+v: the web serves 4 hosts on each address, the budget is 1", x)
			}
			if x.Waiting > 0 && x.Waits > 0 && g.Waiting > 0 {
				waited = true
			}
		}
		if waited && !printed {
			out, errOut, code := runCmd(t, "", "hosts", "ips", "--admin", api)
			if code != 0 && strings.Contains(errOut, "connect") {
				break poll // the crawl ended under us
			}
			if code != 0 || !strings.Contains(out, "IP budget: 1 in flight per address") ||
				!strings.Contains(out, "ADDRESS") || !strings.Contains(out, "127.0.0.") {
				t.Fatalf("godwit hosts ips: %d\n%s%s", code, out, errOut)
			}
			printed = true
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !waited || !printed || len(seen) != len(directLoopback) {
		t.Errorf("the crawl ended before the view showed every address (%v), a host waiting for its address (%v) and the CLI's view (%v); last view %+v",
			seen, waited, printed, last)
	}
	r := web.Report(fakeweb.Judge{Delay: s.Delay, IPConcurrency: 1, IPDelay: s.IPDelay})
	checkReport(t, r)
	for _, a := range directLoopback {
		if r.IPPeak[a] != 1 {
			t.Errorf("address %s: the web saw %d requests in flight at once; the view said at most 1", a, r.IPPeak[a])
		}
	}
}

// TestPrintIPGroups: `godwit hosts ips` prints a cluster node's view with
// the slots each node holds, the nodes wanting more and the start hold's
// holder and queue, a proxied crawl
// as having no groups, and says when the list was cut.
func TestPrintIPGroups(t *testing.T) {
	now := time.Now()
	g := admin.IPGroups{Enabled: true, Concurrency: 4, DelayMS: 250, Node: "n1", Total: 3, Full: 1, Waiting: 2, Waits: 1234,
		Groups: []admin.IPGroup{
			{Address: "192.0.2.7", Hosts: 5, InFlight: 2, Limit: 2, Full: true, Waiting: 2, Waits: 1200, NextStart: now.Add(100 * time.Millisecond),
				Slots: []admin.IPSlots{{Node: "n1", Slots: 2}, {Node: "n2", Slots: 2}}, WantedBy: []string{"n3"},
				Starter: "n2", StartQueue: []string{"n1", "n3"}},
			{Address: "2001:db8::/64"},
		}}
	var b strings.Builder
	printIPGroups(&b, g, now)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 ||
		!strings.Contains(lines[0], "4 in flight per address") || !strings.Contains(lines[0], "250ms between starts") ||
		!strings.Contains(lines[0], "3 groups on node n1, 1 full, 2 hosts waiting") || !strings.Contains(lines[0], "1,234 waits") ||
		!strings.Contains(lines[1], "SLOTS BY NODE") || !strings.Contains(lines[1], "STARTS (QUEUED)") ||
		!regexpMatch(`^192\.0\.2\.7 +5 +2 +2 \(full\) +2 +1,200 +in 100ms +n1:2 n2:2 +n3 +n2 \(n1 n3\)$`, lines[2]) ||
		!regexpMatch(`^2001:db8::/64 +0 +0 +0 +0 +0 +- +- +- +-$`, lines[3]) ||
		!strings.Contains(lines[4], "2 of 3 groups") {
		t.Errorf("godwit hosts ips:\n%s", b.String())
	}
	b.Reset()
	printIPGroups(&b, admin.IPGroups{}, now)
	if !strings.Contains(b.String(), "through a proxy") {
		t.Errorf("a proxied crawl: %q", b.String())
	}
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// TestWithSlots: a cluster node's groups get the slots each node holds
// of their address (sorted by node) and its wanters; an address only
// other nodes use is added with no hosts here; the others are left as
// they were.
func TestWithSlots(t *testing.T) {
	groups := []admin.IPGroup{{Address: "192.0.2.7", Hosts: 5, InFlight: 1, Limit: 1}, {Address: "192.0.2.8", Hosts: 1}}
	got := withSlots(groups, []jetstream.IPSlotView{
		{Key: "192.0.2.7", Holders: map[string]int{"n2": 2, "n1": 1}, Wanters: []string{"n3"}, Starter: "n1", StartQueue: []string{"n3"}},
		{Key: "2001:db8::/64", Holders: map[string]int{"n3": 4}},
	})
	want := []admin.IPGroup{
		{Address: "192.0.2.7", Hosts: 5, InFlight: 1, Limit: 1, Slots: []admin.IPSlots{{Node: "n1", Slots: 1}, {Node: "n2", Slots: 2}}, WantedBy: []string{"n3"},
			Starter: "n1", StartQueue: []string{"n3"}},
		{Address: "192.0.2.8", Hosts: 1},
		{Address: "2001:db8::/64", Slots: []admin.IPSlots{{Node: "n3", Slots: 4}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("withSlots = %+v\nwant %+v", got, want)
	}
}
