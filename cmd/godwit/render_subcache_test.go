package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/render"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// TestRenderSharesRequisites: a requisite a rendered page shares with a
// page the crawl did not render is fetched once, whichever fetched it
// first. The site is Sphinx's shape: an index page, not rendered, whose
// stylesheet and script the search page, rendered for its <noscript>,
// loads too. "plain first": the search page is on another host name of
// the server, which answers it once the index's requisites were fetched;
// the render is answered from the requisites the plain path fetched.
// "render first": the index links to the search page, which the crawl
// fetches (and renders) before the index's requisites (a page's links
// carry its cash, its requisites none); the plain path does not fetch
// what the render fetched. Judged by the server's log: each requisite
// asked for once; and the WARC holds one response record for each.
func TestRenderSharesRequisites(t *testing.T) {
	if _, err := render.FindBrowser(""); err != nil {
		t.Skip("chromium is not installed: rendering is not tested")
	}
	t.Run("plain first", func(t *testing.T) { crawlSharedRequisites(t, true) })
	t.Run("render first", func(t *testing.T) { crawlSharedRequisites(t, false) })
}

func crawlSharedRequisites(t *testing.T, plainFirst bool) {
	var mu sync.Mutex
	seen := map[string]int{}
	fetched, closed := make(chan struct{}), false
	var files map[string]struct{ typ, body string }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if plainFirst && r.URL.Path == "/search.html" {
			select { // a condition, with a bound: the test fails on counts, not by hanging
			case <-fetched:
			case <-time.After(10 * time.Second):
			}
		}
		mu.Lock()
		seen[r.URL.Path]++
		if seen["/_static/site.css"] > 0 && seen["/_static/doc.js"] > 0 && !closed {
			closed = true
			close(fetched)
		}
		mu.Unlock()
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", f.typ)
		io.WriteString(w, f.body)
	}))
	defer srv.Close()
	search := srv.URL + "/search.html"
	if plainFirst {
		// Its own host's slot, so that it can wait for the index's
		// requisites, which it loads from the index's host.
		search = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/search.html"
	}
	head := `<!DOCTYPE html><html><head><link rel="stylesheet" href="` + srv.URL + `/_static/site.css">
<script src="` + srv.URL + `/_static/doc.js"></script>`
	text := strings.Repeat("Plain prose a crawler reads without a browser. ", 20)
	files = map[string]struct{ typ, body string }{
		"/robots.txt": {"text/plain", "User-agent: *\nAllow: /\n"},
		"/":           {"text/html", head + `<title>index</title></head><body><p>` + text + `</p><a href="` + search + `">search</a></body></html>`},
		"/search.html": {"text/html", head + `<script src="/_static/search.js"></script><title>search</title></head>
<body><noscript>Please activate JavaScript to enable the search functionality.</noscript><div id="results"></div></body></html>`},
		"/_static/site.css":  {"text/css", "body { margin: 0 }"},
		"/_static/doc.js":    {"text/javascript", "document.documentElement.dataset.ready = '1';"},
		"/_static/search.js": {"text/javascript", "document.getElementById('results').textContent = 'no results';"},
	}

	s := defaultSettings()
	s.Admin = "off"
	s.Data = t.TempDir()
	s.AllowPrivate = true
	s.Delay = 5 * time.Millisecond
	s.Render.Mode = "auto"
	s.Scope = "any" // the other host name
	res := crawlInProcess(t, s, []string{srv.URL + "/"})

	mu.Lock()
	defer mu.Unlock()
	if res.Render.Pages != 1 || seen["/_static/search.js"] != 1 {
		t.Fatalf("rendered %d pages, search.js asked %d times; want the search page rendered (%+v, server saw %v)",
			res.Render.Pages, seen["/_static/search.js"], res.Render, seen)
	}
	for _, p := range []string{"/_static/site.css", "/_static/doc.js"} {
		if seen[p] != 1 {
			t.Errorf("the server saw %s %d times, want once (render %+v)", p, seen[p], res.Render)
		}
	}
	// The counters: the render's requests answered from what the plain
	// path fetched, or the plain path's tasks finished with what the
	// render fetched.
	if got := map[bool]int64{true: res.Render.Cached, false: res.Render.Reused}[plainFirst]; got != 2 {
		t.Errorf("RenderStats %+v: want the 2 shared requisites counted as %s", res.Render,
			map[bool]string{true: "Cached", false: "Reused"}[plainFirst])
	}
	// The WARC holds each requisite's response once: what the other
	// path fetched is not archived again.
	records := map[string]int{}
	for _, name := range res.WARCFiles {
		f, err := os.Open(filepath.Join(res.WARCDir, name))
		if err != nil {
			t.Fatal(err)
		}
		r, err := warc.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			if rec.Type == warc.TypeResponse {
				records[rec.Header.Get(warc.FieldTargetURI)]++
			}
		}
		f.Close()
	}
	for _, u := range []string{srv.URL + "/_static/site.css", srv.URL + "/_static/doc.js", strings.TrimSuffix(search, "search.html") + "_static/search.js"} {
		if records[u] != 1 {
			t.Errorf("%d response records for %s, want 1 (records %v)", records[u], u, records)
		}
	}
}
