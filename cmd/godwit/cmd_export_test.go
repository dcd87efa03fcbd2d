package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/wacz"
)

// TestExportPages: after a crawl, `godwit export pages` writes one JSON
// line per page the web served, with its title, digest, fingerprint,
// outlink count and a WARC location.
func TestExportPages(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 8, Seed: 5})
	s := testSettings(t, addr)
	crawlInProcess(t, s, web.Seeds())

	out, errOut, code := runCmd(t, "", "export", "pages", "--data", s.Data)
	if code != 0 {
		t.Fatalf("export pages: exit %d: %s", code, errOut)
	}
	served := map[string]bool{}
	for _, q := range web.Requests() {
		if q.Status == 200 && !strings.HasSuffix(q.RawURL, "/robots.txt") {
			served[q.RawURL] = true
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	pages := 0
	for _, l := range lines {
		var p wacz.PageLine
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if p.WARC.File == "" || p.WARC.Length == 0 || p.FetchTime == "" || p.Status == 0 {
			t.Errorf("incomplete line %q", l)
		}
		if strings.HasSuffix(p.URL, "/robots.txt") || p.Status != 200 {
			continue
		}
		pages++
		if p.Title == "" || p.SimHash == "" || p.Outlinks == 0 || p.Digest == "" || p.MIME != "text/html" {
			t.Errorf("page line lacks title, simhash, outlinks, digest or mime: %q", l)
		}
	}
	if pages != len(served) {
		t.Errorf("exported %d pages, the web served %d", pages, len(served))
	}
}
