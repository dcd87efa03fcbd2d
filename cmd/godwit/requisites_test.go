package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestCrawlFetchesRequisites is the acceptance test of page requisites,
// judged from the server side: a crawl of one host (--scope host) whose
// pages embed stylesheets (one importing another, url()s for an image
// and a font), images (also via srcset), scripts and an icon, some on
// the next host, its CDN, and on the home page an image robots.txt
// disallows. Every requisite of every page fetched is fetched exactly
// once, the CDN's included, with no politeness or robots.txt violation
// anywhere; the depth limit is unchanged (the pages at the limit get
// their requisites, and no deeper page is fetched). With
// --requisites=false the same crawl fetches no requisite.
func TestCrawlFetchesRequisites(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{
		Hosts:        3,
		PagesPerHost: 40,
		Seed:         5,
		Requisites:   true,
		// h0 disallows /private/, where its home page embeds an image.
		Robots: []fakeweb.RobotsKind{fakeweb.RobotsDisallow, fakeweb.RobotsAllow},
	})
	domain := web.Config().Domain
	seeds := []string{"http://h0." + domain + "/"}
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	s.Scope = "host"
	s.MaxDepth = 2
	res := crawlInProcess(t, s, seeds)
	r := web.Report(fakeweb.Judge{Delay: s.Delay, MaxDepth: s.MaxDepth, Seeds: seeds})
	t.Logf("server side: %s", r)
	checkScoped(t, r, "h0."+domain)
	if r.Requisites == 0 || r.RequisitesFetched != r.Requisites {
		t.Errorf("%d of the %d requisites of the pages fetched were fetched; missing %v", r.RequisitesFetched, r.Requisites, r.RequisitesMissing)
	}
	if r.RequisiteDuplicates != 0 || r.RequisiteViolations != 0 || r.RequisitesUnneeded != 0 {
		t.Errorf("requisites: %d duplicates, %d politeness or robots.txt violations, %d fetched that no page fetched needs; want none",
			r.RequisiteDuplicates, r.RequisiteViolations, r.RequisitesUnneeded)
	}

	// What the web saw, by host and kind: pages of h0 only, each with its
	// own image; the CDN's requisites on h1, none of its pages.
	pages, images, cdn := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, q := range web.Requests() {
		if q.Status != http.StatusOK {
			continue
		}
		switch {
		case q.Host == "h0."+domain && (q.Path == "/" || strings.HasPrefix(q.Path, "/p/")):
			pages[q.Path] = true
		case q.Host == "h0."+domain && strings.HasPrefix(q.Path, "/a/i/") && !strings.HasSuffix(q.Path, "-2x.png"):
			images[q.Path] = true
		case q.Host == "h1."+domain:
			if !strings.HasPrefix(q.Path, "/a/") && q.Path != "/robots.txt" {
				t.Errorf("page %s of h1 fetched: out of --scope host, and no requisite", q.Path)
			}
			cdn[q.Path] = true
		}
	}
	// Depth 2 from the home page: 1 + 2 + 4 pages by the tree, more by
	// the random links; each fetched page's image, no other.
	if len(pages) < 7 || len(images) != len(pages) {
		t.Errorf("%d pages and %d page images fetched, want at least 7 pages and one image each", len(pages), len(images))
	}
	if !cdn["/a/lib.js"] || !cdn["/a/font.woff2"] {
		t.Errorf("CDN requests %v: want /a/lib.js (from the pages) and /a/font.woff2 (from their stylesheet)", cdn)
	}
	if got := res.Stats.Requisites; got != int64(r.RequisiteRequests) {
		t.Errorf("crawler counted %d requisite fetches, the web saw %d", got, r.RequisiteRequests)
	}
	if got := res.Stats.Pages + res.Stats.Redirects; got != int64(r.PageRequests) {
		t.Errorf("crawler counted %d pages and %d redirects, the web saw %d page requests", res.Stats.Pages, res.Stats.Redirects, r.PageRequests)
	}

	// Off: the same pages, no requisite.
	web.Reset()
	s = testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	s.Scope = "host"
	s.MaxDepth = 2
	off := false
	s.Requisites = &off
	res = crawlInProcess(t, s, seeds)
	r = web.Report(fakeweb.Judge{Delay: s.Delay, MaxDepth: s.MaxDepth, Seeds: seeds})
	t.Logf("requisites off: %s", r)
	checkScoped(t, r, "h0."+domain)
	if r.RequisiteRequests != 0 || res.Stats.Requisites != 0 {
		t.Errorf("with --requisites=false: %d requisite requests (crawler: %d), want 0", r.RequisiteRequests, res.Stats.Requisites)
	}
}

// checkScoped is checkReport for a crawl held to one host: the judge's
// ground truth follows the links to other hosts too, so only that host's
// pages must be covered.
func checkScoped(t *testing.T, r fakeweb.Report, host string) {
	t.Helper()
	if !r.OK() {
		t.Errorf("fakeweb found violations: %s", r)
	}
	if len(r.Missing) >= 20 {
		t.Fatalf("%d pages missing, more than the report names", r.Reachable-r.Covered)
	}
	for _, m := range r.Missing {
		if strings.HasPrefix(m, host+"/") {
			t.Errorf("page %s missing", m)
		}
	}
	if r.Covered == 0 {
		t.Error("no page fetched")
	}
}

// TestCrawlFollowsStylesheetChains: a stylesheet chain as deep as
// Sphinx's classic theme and deeper (page → c1.css → … → c6.css →
// img.png, seven embed hops) is fetched whole, judged by the server; a
// generative stylesheet (each t.css?n=N imports t.css?n=N+1 and embeds
// ten new images) is followed only within its chain's budget, and the
// crawl ends.
func TestCrawlFollowsStylesheetChains(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.RequestURI()]++
		mu.Unlock()
		css := func(body string) {
			w.Header().Set("Content-Type", "text/css")
			io.WriteString(w, body)
		}
		switch p := r.URL.Path; {
		case p == "/robots.txt":
			http.NotFound(w, r)
		case p == "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><head><title>chain</title><link rel="stylesheet" href="/c1.css"></head><body><p>deep</p><a href="/trap">trap</a></body></html>`)
		case p == "/trap":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><head><title>trap</title><link rel="stylesheet" href="/t.css?n=1"></head><body><p>trap</p></body></html>`)
		case strings.HasPrefix(p, "/c") && strings.HasSuffix(p, ".css"):
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/c"), ".css"))
			if n < 6 {
				css(fmt.Sprintf(`@import url("c%d.css"); body { color: black }`, n+1))
			} else {
				css(`.file { background: url(img.png) }`)
			}
		case p == "/t.css":
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			var b strings.Builder
			fmt.Fprintf(&b, "@import \"t.css?n=%d\";\n", n+1)
			for i := range 10 {
				fmt.Fprintf(&b, ".x%d { background: url(t%d-%d.png) }\n", i, n, i)
			}
			css(b.String())
		case strings.HasSuffix(p, ".png"):
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n"))
		default:
			http.NotFound(w, r)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	s := testSettings(t, ln.Addr().String())
	s.Delay = time.Millisecond
	res := crawlInProcess(t, s, []string{"http://chain.test/"})
	mu.Lock()
	defer mu.Unlock()
	for _, p := range []string{"/c1.css", "/c2.css", "/c3.css", "/c4.css", "/c5.css", "/c6.css", "/img.png"} {
		if seen[p] != 1 {
			t.Errorf("%s fetched %d times, want once (a stylesheet chain seven hops deep)", p, seen[p])
		}
	}
	sheets, images := 0, 0
	for p := range seen {
		switch {
		case strings.HasPrefix(p, "/t.css"):
			sheets++
		case strings.HasPrefix(p, "/t") && strings.HasSuffix(p, ".png"):
			images++
		}
	}
	// The chain's budget (200 references) is spent 11 per sheet: the
	// page's sheet and 19 more, 181 images, cut by the budget well
	// before the 32-hop backstop.
	if sheets < 10 || sheets > 20 || sheets+images > 200+1 {
		t.Errorf("generative stylesheet: %d sheets and %d images fetched, want 10 to 20 sheets, within the chain's budget of 200 references", sheets, images)
	}
	if res.Stats.RequisiteHops == 0 {
		t.Errorf("the crawler counted no reference past a chain's budget")
	}
	t.Logf("generative chain: %d sheets, %d images; %d references not followed", sheets, images, res.Stats.RequisiteHops)
}
