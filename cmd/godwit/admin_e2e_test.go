package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestAdminSteersCrawl is the admin issue's acceptance test against a real
// crawl, judged by the simulated web's server-side log: a policy override
// visibly changes the gap between requests to its host, a block stops all
// requests to the host within one request, seeds added over the API are
// crawled, and status, hosts and URL lookups answer with the crawl's
// state.
func TestAdminSteersCrawl(t *testing.T) {
	// 20 pages a host: at 400 ms, the slowed host's last 15 or so pages
	// outlast the checks made while the crawl runs by seconds, even on
	// a busy machine.
	const pagesPerHost = 20
	web, addr := startWeb(t, fakeweb.Config{Hosts: 4, PagesPerHost: pagesPerHost, Seed: 9, CrossHostShare: -1})
	seeds := web.Seeds()
	s := testSettings(t, addr)
	s.Delay = 50 * time.Millisecond
	s.Workers = 4
	s.Admin = "127.0.0.1:0"
	listening := make(chan string, 1)
	s.adminListening = func(a string) { listening <- a }

	done := make(chan error, 1)
	go func() {
		_, err := runCrawl(t.Context(), s, seeds[:3], slog.New(slog.DiscardHandler), newTerminal(io.Discard))
		done <- err
	}()
	var api string
	select {
	case a := <-listening:
		api = "http://" + a
	case err := <-done:
		t.Fatalf("crawl ended before the admin server listened: %v", err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	call := func(method, path string, body any, out any) int {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, api+path, rd)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if out != nil {
			json.NewDecoder(resp.Body).Decode(out)
		}
		return resp.StatusCode
	}
	h := func(i int) string { return strings.TrimSuffix(strings.TrimPrefix(seeds[i], "http://"), "/") }

	// Slow h1 down to 400 ms, block h2, add h3 as a seed.
	delay := int64(400)
	if code := call("PUT", "/api/hosts/"+h(1)+"/policy", admin.HostPolicy{DelayMS: &delay}, nil); code != 200 && code != 204 {
		t.Fatalf("PUT policy: %d", code)
	}
	policyAt := time.Now()
	if code := call("POST", "/api/hosts/"+h(2)+"/block", nil, nil); code != 200 && code != 204 {
		t.Fatalf("POST block: %d", code)
	}
	blockedAt := time.Now()
	var added admin.SeedsResult
	if code := call("POST", "/api/seeds", admin.SeedsRequest{URLs: []string{seeds[3], seeds[0], "mailto:x@y"}}, &added); code != 200 {
		t.Fatalf("POST seeds: %d", code)
	}
	if added.Queued != 1 || len(added.Rejected) != 2 {
		t.Errorf("POST seeds = %+v, want 1 queued, the seen one and the invalid one rejected", added)
	}
	var host admin.Host
	if code := call("GET", "/api/hosts/"+h(1), nil, &host); code != 200 || host.DelayMS != 400 || host.DelayReason != "override" {
		t.Errorf("GET host %s = %d %+v", h(1), code, host)
	}
	var st admin.Status
	if code := call("GET", "/api/status", nil, &st); code != 200 || st.Hosts.Blocked != 1 {
		t.Errorf("GET status = %d %+v", code, st)
	}
	var u admin.URLInfo
	if code := call("GET", "/api/urls?url="+seeds[0], nil, &u); code != 200 || u.Host != h(0) {
		t.Errorf("GET url = %d %+v", code, u)
	}
	// The CLI client of that endpoint.
	out, errOut, code := runCmd(t, "", "urls", "show", "--admin", strings.TrimPrefix(api, "http://"), seeds[0])
	if code != 0 || !strings.Contains(out, "host        "+h(0)) || !strings.Contains(out, "next visit") {
		t.Errorf("godwit urls show: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, code := runCmd(t, "", "urls", "show", "--admin", strings.TrimPrefix(api, "http://"), "http://nowhere.test/x"); code != 1 {
		t.Errorf("godwit urls show of an unknown URL: exit %d, want 1", code)
	}

	// Every series the shipped Grafana dashboard queries is exported
	// while the crawl runs (some once the crawl has done what they
	// count: polled until all are there, for up to 10 s).
	dashboard, err := os.ReadFile("../../docs/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := client.Get(api + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		exposition, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		missing = missing[:0]
		for _, name := range regexp.MustCompile(`\b(?:godwit|go|process)_[a-z_]+`).FindAllString(string(dashboard), -1) {
			name = strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_count")
			if !bytes.Contains(exposition, []byte("\n"+name)) {
				missing = append(missing, name)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, name := range missing {
		t.Errorf("the Grafana dashboard queries %s, which /metrics does not export", name)
	}

	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var lastH1 time.Time
	var h1Gaps []time.Duration
	var h2Before, h2After, h3 int
	for _, q := range web.Requests() {
		switch q.Host {
		case h(1):
			if q.Start.After(policyAt.Add(time.Second)) && !lastH1.IsZero() {
				h1Gaps = append(h1Gaps, q.Start.Sub(lastH1))
			}
			lastH1 = q.End
		case h(2):
			if q.Start.After(blockedAt) {
				h2After++
			} else if q.Path != "/robots.txt" {
				h2Before++
			}
		case h(3):
			h3++
		}
	}
	if len(h1Gaps) < 3 {
		t.Fatalf("only %d requests to %s after the override: the test did not test it", len(h1Gaps), h(1))
	}
	for _, g := range h1Gaps {
		if g < 400*time.Millisecond {
			t.Errorf("gap %v between requests to %s after a 400 ms override", g, h(1))
		}
	}
	if h2Before >= pagesPerHost {
		t.Fatalf("%s got %d requests before the block, as many as its %d pages: the block came too late to test it", h(2), h2Before, pagesPerHost)
	}
	if h2After > 1 {
		t.Errorf("%d requests to blocked %s after the block, want at most the one in flight", h2After, h(2))
	}
	if h3 == 0 {
		t.Errorf("the seed added over the API (%s) was not crawled", seeds[3])
	}
}
