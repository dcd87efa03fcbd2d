package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// TestPagesAPI: while a crawl runs, GET /api/pages lists every page the
// web served (paged, filtered by host, status and text), each page's
// record and links answer, and /content is byte for byte the payload of
// the page's record in the WARC files.
func TestPagesAPI(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 3, PagesPerHost: 12, Seed: 8})
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	s.Continuous = true // keeps the admin API up once the web is covered
	s.Recrawl.MinInterval = time.Hour
	s.Admin = "127.0.0.1:0"
	listening := make(chan string, 1)
	s.adminListening = func(a string) { listening <- a }
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan crawlResult, 1)
	go func() {
		res, err := runCrawl(ctx, s, web.Seeds(), slog.New(slog.DiscardHandler), newTerminal(io.Discard))
		if err != nil {
			t.Errorf("runCrawl: %v", err)
		}
		done <- res
	}()
	api := "http://" + <-listening
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(path string) (int, []byte, http.Header) {
		t.Helper()
		resp, err := client.Get(api + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b, resp.Header
	}
	list := func(query string) []admin.Page {
		t.Helper()
		var all []admin.Page
		after := uint64(0)
		for {
			code, b, _ := get(fmt.Sprintf("/api/pages?limit=7&after=%d%s", after, query))
			if code != 200 {
				t.Fatalf("GET /api/pages: %d %s", code, b)
			}
			var pl admin.PageList
			if err := json.Unmarshal(b, &pl); err != nil {
				t.Fatal(err)
			}
			if len(pl.Pages) > 7 {
				t.Fatalf("%d pages in an answer, limit 7", len(pl.Pages))
			}
			all = append(all, pl.Pages...)
			if pl.Next == 0 {
				return all
			}
			after = pl.Next
		}
	}
	served := func() map[string]int {
		m := map[string]int{}
		for _, rq := range web.Requests() {
			if rq.Path != "/robots.txt" && rq.Status != 0 {
				m[rq.RawURL] = rq.Status
			}
		}
		return m
	}

	// Wait until the crawl is idle, the web covered and every page
	// served listed.
	var pages []admin.Page
	deadline := time.Now().Add(30 * time.Second)
	for {
		pages = list("")
		var st admin.Status
		_, b, _ := get("/api/status")
		json.Unmarshal(b, &st)
		idle := st.QueueDepth == 0 && st.InFlight == 0
		if r := web.Report(fakeweb.Judge{Delay: s.Delay}); idle && r.Coverage == 1 && len(pages) == len(served()) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pages listed, %d served", len(pages), len(served()))
		}
		time.Sleep(50 * time.Millisecond)
	}
	sv := served()
	content := map[uint64][]byte{}
	byHost := map[string]int{}
	redirects := 0
	for i, p := range pages {
		if i > 0 && p.ID <= pages[i-1].ID {
			t.Errorf("ids out of order: %d after %d", p.ID, pages[i-1].ID)
		}
		if st, ok := sv[p.URL]; !ok || st != p.Status {
			t.Errorf("page %d %s status %d; the web served it %v (%d)", p.ID, p.URL, p.Status, ok, st)
		}
		u, _ := url.Parse(p.URL)
		byHost[u.Hostname()]++
		if p.Status == 301 {
			redirects++
		}
		code, b, _ := get(fmt.Sprintf("/api/pages/%d", p.ID))
		var one admin.Page
		json.Unmarshal(b, &one)
		if code != 200 || one.URL != p.URL || one.WARC != p.WARC {
			t.Errorf("GET /api/pages/%d: %d %+v, want %+v", p.ID, code, one, p)
		}
		code, b, _ = get(fmt.Sprintf("/api/pages/%d/links", p.ID))
		var links admin.PageLinks
		json.Unmarshal(b, &links)
		if code != 200 || len(links.Links) != p.Outlinks || (p.Status == 200 && len(links.Links) == 0) {
			t.Errorf("GET /api/pages/%d/links: %d, %d links, want %d", p.ID, code, len(links.Links), p.Outlinks)
		}
		code, b, h := get(fmt.Sprintf("/api/pages/%d/content", p.ID))
		if code != 200 || h.Get("Content-Security-Policy") != "sandbox" {
			t.Errorf("GET /api/pages/%d/content: %d, CSP %q", p.ID, code, h.Get("Content-Security-Policy"))
		}
		content[p.ID] = b
	}
	for host, n := range byHost {
		if got := list("&host=" + strings.ToUpper(host)); len(got) != n {
			t.Errorf("host=%s: %d pages, want %d", host, len(got), n)
		}
	}
	if redirects == 0 {
		t.Error("no redirect in the web: the status filter is not tested")
	}
	for _, p := range list("&status=301") {
		if p.Status != 301 {
			t.Errorf("status=301 lists %s (%d)", p.URL, p.Status)
		}
		redirects--
	}
	if redirects != 0 {
		t.Errorf("status=301 misses %d redirects", redirects)
	}
	q := pages[len(pages)-1].URL[len("http://"):]
	if got := list("&q=" + url.QueryEscape(strings.ToUpper(q))); len(got) == 0 || !strings.Contains(got[0].URL, q) {
		t.Errorf("q=%s: %v", q, got)
	}
	for _, bad := range []string{"/api/pages/0", "/api/pages/x", "/api/pages?status=1", "/api/pages?limit=5000"} {
		if code, _, _ := get(bad); code != 400 {
			t.Errorf("GET %s: %d, want 400", bad, code)
		}
	}
	if code, _, _ := get("/api/pages/999999/content"); code != 404 {
		t.Errorf("GET a page that is not there: %d, want 404", code)
	}

	cancel()
	res := <-done
	// The content is the payload of the page's record, read here from
	// the WARC file.
	for _, p := range pages {
		fh, err := os.Open(filepath.Join(res.WARCDir, p.WARC.File))
		if err != nil {
			t.Fatal(err)
		}
		rd, err := warc.NewReader(io.NewSectionReader(fh, p.WARC.Offset, p.WARC.Length))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := rd.Next()
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Type != warc.TypeResponse {
			continue // a revisit's content is its original's
		}
		payload, err := warc.Payload(rec)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(content[p.ID], payload) {
			t.Errorf("page %d %s: content (%d bytes) is not the WARC payload (%d bytes)", p.ID, p.URL, len(content[p.ID]), len(payload))
		}
	}
}
