package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// changingURL is what the fake crawl (adminBackend) knows of a URL whose
// name says "changing": an estimate on 9 visits, queued as a revisit.
var changingURL = admin.URLInfo{
	URL: "https://a.example/changing", Key: "https://a.example/changing", Host: "a.example", State: "queued", Depth: 1,
	Status: 200, FetchedAt: time.Date(2026, 11, 21, 11, 58, 30, 0, time.UTC), NextVisit: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
	Revisit: true, ChangeRate: 1.0 / 130, RateError: 0.14, Visits: 9, Changed: 6,
	LastChange: time.Date(2026, 11, 21, 11, 58, 30, 0, time.UTC), IntervalSeconds: 90,
	Importance: 2.3, Cash: 0.41, History: 3.2, Band: 5,
}

func TestRecrawlCommands(t *testing.T) {
	tests := []struct {
		args []string
		out  string
		call string
	}{
		{[]string{"recrawl", "share", "0.3"}, "reserved 30% of fetch capacity for revisits\n", "SetRevisitShare 0.3"},
		{[]string{"recrawl", "share", "30%"}, "reserved 30% of fetch capacity for revisits\n", "SetRevisitShare 0.3"},
		{[]string{"recrawl", "share", "12.5%"}, "reserved 12.5% of fetch capacity for revisits\n", "SetRevisitShare 0.125"},
		{[]string{"recrawl", "share", "0"}, "reserved 0% of fetch capacity for revisits\n", "SetRevisitShare 0"},
		{[]string{"recrawl", "share", "100%"}, "reserved 100% of fetch capacity for revisits\n", "SetRevisitShare 1"},
		{[]string{"recrawl", "share", "--json", ".5"}, "", "SetRevisitShare 0.5"}, // 204: nothing to print
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			addr, b := serveFakeAdmin(t, "")
			out, errOut, code := runCmd(t, "", append(slices.Clone(tt.args), "--admin", addr)...)
			if code != 0 || out != tt.out {
				t.Errorf("godwit %s: exit %d, %q, %q; want exit 0, %q", strings.Join(tt.args, " "), code, out, errOut, tt.out)
			}
			if got, want := b.Calls(), []string{tt.call}; !slices.Equal(got, want) {
				t.Errorf("godwit %s: backend calls %q, want %q", strings.Join(tt.args, " "), got, want)
			}
		})
	}
}

func TestRecrawlCommandErrors(t *testing.T) {
	addr, b := serveFakeAdmin(t, "")
	tests := []struct {
		args     []string // after godwit recrawl share --admin ADDR
		code     int
		errorHas string
	}{
		{[]string{"1.5"}, 2, "from 0 to 1"},
		{[]string{"120%"}, 2, "from 0 to 1"},
		{[]string{"30"}, 2, "from 0 to 1"}, // a percentage needs its %
		{[]string{"--", "-0.1"}, 2, "from 0 to 1"},
		{[]string{"NaN"}, 2, "from 0 to 1"},
		{[]string{"a third"}, 2, "from 0 to 1"},
		{nil, 2, "accepts 1 arg"},
		{[]string{"0.3", "0.4"}, 2, "accepts 1 arg"},
	}
	for _, tt := range tests {
		args := append([]string{"recrawl", "share", "--admin", addr}, tt.args...)
		_, errOut, code := runCmd(t, "", args...)
		if code != tt.code || !strings.Contains(errOut, tt.errorHas) {
			t.Errorf("godwit %s: exit %d, %q; want exit %d with %q", strings.Join(args, " "), code, errOut, tt.code, tt.errorHas)
		}
	}
	if got := b.Calls(); len(got) != 0 {
		t.Errorf("backend calls %q, want none: bad input never reaches the server", got)
	}

	// The crawl refuses: exit 1, with its reason.
	b.mu.Lock()
	b.shareErr = fmt.Errorf("%w: this crawl does not recrawl", admin.ErrInvalid)
	b.mu.Unlock()
	if _, errOut, code := runCmd(t, "", "recrawl", "share", "0.3", "--admin", addr); code != 1 || !strings.Contains(errOut, "bad_request") || !strings.Contains(errOut, "does not recrawl") {
		t.Errorf("godwit recrawl share on a one-pass crawl: exit %d, %q; want 1 with the crawl's reason", code, errOut)
	}
	b.mu.Lock()
	b.shareErr = errors.New("store: disk on fire")
	b.mu.Unlock()
	if _, errOut, code := runCmd(t, "", "recrawl", "share", "0.3", "--admin", addr); code != 1 || !strings.Contains(errOut, "internal") {
		t.Errorf("godwit recrawl share with a failing store: exit %d, %q; want 1, internal", code, errOut)
	}
}

func TestRecrawlToken(t *testing.T) {
	addr, b := serveFakeAdmin(t, "s3cret")
	if _, errOut, code := runCmd(t, "", "recrawl", "share", "0.3", "--admin", addr); code != 1 || !strings.Contains(errOut, "unauthorized") {
		t.Errorf("recrawl share without token: exit %d, %q; want 1, unauthorized", code, errOut)
	}
	if out, errOut, code := runCmd(t, "", "recrawl", "share", "0.3", "--admin", addr, "--admin-token", "s3cret"); code != 0 || !strings.HasPrefix(out, "reserved 30%") {
		t.Errorf("recrawl share with --admin-token: %q, %q, exit %d", out, errOut, code)
	}
	if got, want := b.Calls(), []string{"SetRevisitShare 0.3"}; !slices.Equal(got, want) {
		t.Errorf("backend calls %q, want %q", got, want)
	}
}

func TestStatusRecrawl(t *testing.T) {
	tests := []struct {
		name string
		r    *admin.RecrawlStatus
		want []string // the revisits lines; none: no revisits line at all
	}{
		{"one-pass crawl", nil, nil},
		{"no revisits yet", &admin.RecrawlStatus{Enabled: true, Policy: "uniform", Share: 0.125, Scheduled: 3, CapacityPerSecond: 2},
			[]string{"revisits  share 0% (reserved 12.5%), 0 due, freshness ~0.00, no revisits yet",
				"          budget 0.0/s of 2.0/s capacity, 3 scheduled, uniform policy"}},
		{"lagging", &admin.RecrawlStatus{Enabled: true, Policy: "optimal", Share: 0.3, RevisitShare: 0.5, DueBacklog: 45210,
			LagSeconds: 3725, Freshness: 0.456, Revisits: 10, NotModified: 1, NotModifiedShare: 0.1, BudgetPerSecond: 10, CapacityPerSecond: 10},
			[]string{"revisits  share 50% (reserved 30%), 45,210 due (lag 1h02m), freshness ~0.46, 304s 10% of 10 revisits",
				"          budget 10.0/s of 10.0/s capacity, 0 scheduled, optimal policy"}},
		{"pages that change", &admin.RecrawlStatus{Enabled: true, Policy: "optimal", Share: 0.3, RevisitShare: 0.3,
			Freshness: 0.97, FreshnessChanging: 0.816, ChangingPages: 110, BudgetPerSecond: 5, CapacityPerSecond: 10},
			[]string{"revisits  share 30% (reserved 30%), 0 due, freshness ~0.97 (pages seen to change ~0.82), no revisits yet",
				"          budget 5.0/s of 10.0/s capacity, 0 scheduled, optimal policy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			printStatus(&out, admin.Status{Recrawl: tt.r})
			var got []string
			lines := strings.Split(out.String(), "\n")
			for i, l := range lines {
				if strings.HasPrefix(l, "revisits") {
					got = append(got, strings.TrimRight(l, " "), strings.TrimRight(lines[i+1], " "))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("printStatus with recrawl %+v: revisits lines\n%q\nwant\n%q\nin:\n%s", tt.r, got, tt.want, out.String())
			}
		})
	}
}

func TestURLsShowFormat(t *testing.T) {
	tests := []struct {
		name   string
		u      admin.URLInfo
		want   []string // lines, in order
		absent []string // keys that must not show
	}{
		{"never visited", admin.URLInfo{URL: "https://a.example/", Key: "https://a.example/", Host: "a.example", State: "queued"},
			[]string{"state       queued, depth 0", "next visit  not scheduled"}, []string{"changes", "revisit", "importance", "fetched"}},
		{"estimated", changingURL, []string{
			"fetched     200 at 2026-11-21T11:58:30Z",
			"changes     about every 2m10s (±14%), 6 of 9 visits saw a change, last change 2026-11-21T11:58:30Z",
			"revisit     every 1m30s, next 2026-11-21T12:00:00Z (queued as revisit)",
			"importance  2.3× average (cash 0.41, history 3.2), band 5",
		}, []string{"next visit"}},
		{"visited, never seen to change", admin.URLInfo{State: "done", Visits: 4, IntervalSeconds: 86400 * 3,
			NextVisit: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), Importance: 0.041, Cash: 0.002, History: 150}, []string{
			"changes     0 of 4 visits saw a change",
			"revisit     every 3d00h, next 2026-11-24T00:00:00Z",
			"importance  0.041× average (cash 0.002, history 150), band 0",
		}, []string{"about every", "last change", "queued as revisit", "next visit"}},
		{"one-pass crawl, seed band", admin.URLInfo{State: "queued", Band: 2}, []string{"next visit  not scheduled", "importance  band 2"},
			[]string{"changes", "revisit "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := printURL(&b, tt.u); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			rest := out
			for _, w := range tt.want {
				i := strings.Index(rest, w+"\n")
				if i < 0 {
					t.Errorf("printURL: output lacks the line %q (in order):\n%s", w, out)
					break
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tt.absent {
				if strings.Contains(out, a) {
					t.Errorf("printURL: output has %q:\n%s", a, out)
				}
			}
		})
	}
}

// TestURLsShowEstimate runs godwit urls show against the fake crawl.
func TestURLsShowEstimate(t *testing.T) {
	addr, b := serveFakeAdmin(t, "")
	out, errOut, code := runCmd(t, "", "urls", "show", "--admin", addr, changingURL.URL)
	if code != 0 || !strings.Contains(out, "changes     about every 2m10s (±14%)") || !strings.Contains(out, "importance  2.3× average") {
		t.Errorf("godwit urls show: exit %d\n%s%s", code, out, errOut)
	}
	if got, want := b.Calls(), []string{"URL " + changingURL.URL}; !slices.Equal(got, want) {
		t.Errorf("backend calls %q, want %q", got, want)
	}
	out, _, _ = runCmd(t, "", "urls", "show", "--json", "--admin", addr, changingURL.URL)
	if !strings.Contains(out, `"mean_change_interval_seconds":130`) {
		t.Errorf("godwit urls show --json: %s, want the mean change interval", out)
	}
}

// TestRecrawlAdminContinuousCrawl: against a real continuous crawl, the
// status has the recrawl group, the revisit share set over the API is
// the frontier's, and a URL fetched before shows its schedule.
func TestRecrawlAdminContinuousCrawl(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 10, Seed: 3, Changing: true})
	s := testSettings(t, addr)
	s.Continuous = true
	s.Delay = 20 * time.Millisecond
	s.Admin = "127.0.0.1:0"
	listening := make(chan string, 1)
	s.adminListening = func(a string) { listening <- a }
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := runCrawl(ctx, s, web.Seeds(), slog.New(slog.DiscardHandler), newTerminal(io.Discard))
		done <- err
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runCrawl: %v", err)
		}
	}()
	var api string
	select {
	case a := <-listening:
		api = a
	case err := <-done:
		t.Fatalf("crawl ended before the admin server listened: %v", err)
	}

	if out, errOut, code := runCmd(t, "", "recrawl", "share", "45%", "--admin", api); code != 0 {
		t.Fatalf("godwit recrawl share 45%%: exit %d, %s%s", code, out, errOut)
	}
	// Wait for a revisit to be scheduled: the seed fetched and given a
	// next visit.
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, errOut, code := runCmd(t, "", "urls", "show", "--admin", api, web.Seeds()[0])
		if code == 0 && strings.Contains(out, "\nrevisit ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the seed was not scheduled for a revisit within 20 s:\n%s%s", out, errOut)
		}
		time.Sleep(200 * time.Millisecond)
	}
	out, errOut, code := runCmd(t, "", "status", "--admin", api)
	if code != 0 || !strings.Contains(out, "(reserved 45%)") {
		t.Errorf("godwit status: exit %d, want the revisits line with the share set:\n%s%s", code, out, errOut)
	}
}
