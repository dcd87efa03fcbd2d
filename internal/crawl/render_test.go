package crawl_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/archive"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/render"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// chromium returns the browser's path, or skips the test without one
// (fails, when GODWIT_REQUIRE_CHROMIUM=1: CI installed it).
func chromium(t *testing.T) string {
	t.Helper()
	p, err := render.FindBrowser("")
	if err == nil {
		return p
	}
	msg := "chromium is not installed (apt-get install chromium): rendering is not tested"
	if os.Getenv("GODWIT_REQUIRE_CHROMIUM") == "1" {
		t.Fatal(msg + ", and GODWIT_REQUIRE_CHROMIUM=1")
	}
	t.Skip(msg)
	return ""
}

// The shell of a single-page application: its links come from a JSON
// endpoint, more when scrolled to the bottom; it also asks for a path
// robots.txt disallows.
const (
	shellPage = `<!DOCTYPE html><html><head><title>app</title></head><body>
<div id="root"></div><div style="height:3000px"></div><div id="end"></div>
<script src="/app.js"></script></body></html>`
	shellScript = `
fetch("/secret/track.json").catch(() => {});
fetch("/api/links.json").then(r => r.json()).then(links => {
  const root = document.getElementById("root");
  for (const l of links) {
    const a = document.createElement("a"); a.href = l; a.textContent = l; root.appendChild(a);
  }
});
let more = false;
window.addEventListener("scroll", () => {
  if (more || window.scrollY + window.innerHeight < document.documentElement.scrollHeight - 10) return;
  more = true;
  fetch("/api/more.json").then(r => r.json()).then(links => {
    for (const l of links) {
      const a = document.createElement("a"); a.href = l; document.getElementById("end").appendChild(a);
    }
  });
});`
)

// spaSite is a loopback site with one script-built page. It records the
// paths it was asked for, and whether two requests ever overlapped.
type spaSite struct {
	*httptest.Server
	mu       sync.Mutex
	paths    map[string]int
	inflight int
	overlap  bool
}

func newSPASite(t *testing.T) *spaSite {
	s := &spaSite{paths: map[string]int{}}
	files := map[string]struct{ typ, body string }{
		"/robots.txt":        {"text/plain", "User-agent: *\nDisallow: /secret\n"},
		"/":                  {"text/html", shellPage},
		"/app.js":            {"text/javascript", shellScript},
		"/api/links.json":    {"application/json", `["/a", "/b"]`},
		"/api/more.json":     {"application/json", `["/c"]`},
		"/secret/track.json": {"application/json", `{}`},
		"/a":                 {"text/html", "<p>page a</p>"},
		"/b":                 {"text/html", "<p>page b</p>"},
		"/c":                 {"text/html", "<p>page c, loaded on scroll</p>"},
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths[r.URL.Path]++
		s.inflight++
		if s.inflight > 1 {
			s.overlap = true
		}
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inflight--
			s.mu.Unlock()
		}()
		time.Sleep(5 * time.Millisecond) // so that overlapping requests would overlap here
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", f.typ)
		w.Write([]byte(f.body))
	}))
	t.Cleanup(s.Close)
	return s
}

// TestRenderCrawl: in auto mode the SPA's shell is rendered; the links
// only its script built (scroll-loaded ones too) are crawled, every
// browser request went through the crawler one at a time per host, the
// path robots.txt disallows never reached the server, and the WARC has
// the rendered DOM as a conversion record referring to the shell's
// response.
func TestRenderCrawl(t *testing.T) {
	browser := chromium(t)
	site := newSPASite(t)
	dir := t.TempDir()

	pol := politeness.Policy{Delay: 20 * time.Millisecond}
	pol.Default()
	cfg := crawl.Config{Workers: 4, Politeness: pol, Render: crawl.Render{Mode: render.Auto}}
	fetcher, err := fetch.New(fetch.Config{UserAgent: "godwit-test", AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	arch, err := archive.New(warc.WriterConfig{Dir: dir}, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pool := render.New(render.Config{Browser: browser, Tabs: 2, IdleTime: 150 * time.Millisecond, ScrollMax: 3 * time.Second})
	if err := pool.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	c, err := crawl.New(cfg, crawl.Deps{Frontier: openFrontier(t, pol), Fetcher: fetcher, Archive: arch, Renderer: pool})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddSeeds(t.Context(), []string{site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := arch.Close(); err != nil {
		t.Fatal(err)
	}

	site.mu.Lock()
	defer site.mu.Unlock()
	for _, p := range []string{"/a", "/b", "/c", "/api/links.json", "/api/more.json"} {
		if site.paths[p] == 0 {
			t.Errorf("server never saw %s (seen: %v)", p, site.paths)
		}
	}
	if n := site.paths["/secret/track.json"]; n != 0 {
		t.Errorf("the path robots.txt disallows reached the server %d times", n)
	}
	if site.overlap {
		t.Error("two requests to the host overlapped")
	}
	st := c.RenderStats()
	if st.Pages != 1 || st.Disallowed != 1 || st.SubRequests < 3 {
		t.Errorf("RenderStats() = %+v, want 1 page, 1 disallowed, at least 3 sub-requests", st)
	}
	if h, ok := c.RenderHost(strings.TrimPrefix(site.URL, "http://")); !ok || h.Rendered != 1 || h.Found != 1 {
		t.Errorf("RenderHost = %+v, %v; want 1 rendered, 1 found", h, ok)
	}

	// The WARC: the shell's response, and a conversion record referring
	// to it with the script-built links.
	files, _ := filepath.Glob(filepath.Join(dir, "*"+warc.Ext))
	respIDs := map[string]string{}
	var conv *warc.Record
	for _, name := range files {
		f, err := os.Open(name)
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
			switch rec.Type {
			case warc.TypeResponse:
				respIDs[rec.Header.Get(warc.FieldRecordID)] = rec.Header.Get(warc.FieldTargetURI)
			case warc.TypeConversion:
				conv = rec
			}
		}
		f.Close()
	}
	if conv == nil {
		t.Fatal("no conversion record in the WARC")
	}
	if got := respIDs[conv.Header.Get(warc.FieldRefersTo)]; got != site.URL+"/" {
		t.Errorf("conversion record refers to the response of %q, want the shell's", got)
	}
	if html := string(conv.Block); !strings.Contains(html, `href="/a"`) || !strings.Contains(html, `href="/c"`) {
		t.Errorf("conversion record lacks the script-built links: %s", html)
	}
}
