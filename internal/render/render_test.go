package render

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// findChromium returns Debian's chromium, or skips the test without it
// (fails, when GODWIT_REQUIRE_CHROMIUM=1: CI installed it).
func findChromium(t *testing.T) string {
	t.Helper()
	p, err := FindBrowser("")
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

const spaPage = `<!DOCTYPE html><html><head><title>app</title>
<script src="/private/tracker.js"></script>
</head><body><div id="root"></div>
<div style="height:3000px"></div><div id="end"></div>
<noscript>Please enable JavaScript</noscript>
<script src="/app.js"></script></body></html>`

const spaScript = `
fetch("/api/start").then(r => r.json()).then(links => {
  const root = document.getElementById("root");
  for (const l of links) {
    const a = document.createElement("a"); a.href = l; a.textContent = l;
    root.appendChild(a);
  }
  const p = document.createElement("p"); p.textContent = "text built by script";
  root.appendChild(p);
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
});
`

// spaServer is a loopback web with one script-built page; it logs every
// request it sees.
type spaServer struct {
	*httptest.Server
	mu  sync.Mutex
	log []string
}

func newSPAServer(t *testing.T) *spaServer {
	s := &spaServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, r.URL.Path)
		s.mu.Unlock()
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, spaPage)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			io.WriteString(w, spaScript)
		case "/api/start":
			http.Redirect(w, r, "/api/links.json", http.StatusFound)
		case "/api/links.json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `["/a", "/b"]`)
		case "/api/more.json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `["/scrolled"]`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *spaServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// plainFetch is a Fetcher in the crawler's place: it refuses /private/
// as robots.txt would and records what it fetched.
type plainFetch struct {
	mu      sync.Mutex
	fetched []string
}

func (f *plainFetch) fetch(ctx context.Context, r Request) (*Response, error) {
	if strings.Contains(r.URL, "/private/") {
		return nil, ErrDisallowed
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, nil)
	if err != nil {
		return nil, err
	}
	// As godwit's fetcher: a redirect is answered as it is, and the
	// browser's request for its target pauses again.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.fetched = append(f.fetched, req.URL.Path)
	f.mu.Unlock()
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

func testConfig(t *testing.T) Config {
	return Config{Browser: findChromium(t), Tabs: 2, IdleTime: 150 * time.Millisecond,
		IdleMax: 3 * time.Second, ScrollMax: 3 * time.Second, PageTimeout: 20 * time.Second, Logf: t.Logf}
}

func plainPage(t *testing.T, url string) Page {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return Page{URL: url, Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// TestRenderSPA renders a page whose links are built by script, some only
// after a scroll: the links are found, the script's text is in the DOM,
// every request the browser made went through the Fetcher (the server saw
// nothing else), including both hops of a redirect, and the one robots.txt
// disallows never reached the server.
func TestRenderSPA(t *testing.T) {
	cfg := testConfig(t)
	cfg.Screenshot = true
	srv := newSPAServer(t)
	p := New(cfg)
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	pg := plainPage(t, srv.URL+"/")
	f := &plainFetch{}
	res, err := p.Render(context.Background(), pg, f.fetch)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/a", "/b", "/scrolled"} {
		if !slices.Contains(res.Links, srv.URL+want) {
			t.Errorf("links %q lack %s (server saw %q)", res.Links, want, srv.seen())
		}
	}
	if !strings.Contains(res.HTML, "text built by script") {
		t.Errorf("rendered DOM lacks the script's text:\n%s", res.HTML)
	}
	if res.Disallowed != 1 {
		t.Errorf("disallowed = %d, want 1", res.Disallowed)
	}
	if !strings.HasPrefix(string(res.Screenshot), "\x89PNG") {
		t.Errorf("screenshot is not a PNG (%d bytes)", len(res.Screenshot))
	}
	seen := srv.seen()
	// The server saw the plain fetch of the page and what the Fetcher fetched, nothing more.
	f.mu.Lock()
	want := append([]string{"/"}, f.fetched...)
	f.mu.Unlock()
	slices.Sort(seen)
	slices.Sort(want)
	if !slices.Equal(seen, want) {
		t.Errorf("server saw %q; the plain fetch and the Fetcher made %q", seen, want)
	}
	if slices.Contains(seen, "/private/tracker.js") {
		t.Errorf("the disallowed script reached the server")
	}
	for _, req := range []string{"/app.js", "/api/start", "/api/links.json", "/api/more.json"} {
		if !slices.Contains(res.Requisites, srv.URL+req) {
			t.Errorf("requisites %q lack %s", res.Requisites, req)
		}
	}
}

// TestRenderRestart: the browser is replaced after RestartAfter pages, and
// a page whose browser was killed under it is retried on a new one.
func TestRenderRestart(t *testing.T) {
	cfg := testConfig(t)
	cfg.RestartAfter = 2
	srv := newSPAServer(t)
	p := New(cfg)
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	first := p.PID()
	f := &plainFetch{}
	for i := 0; i < 2; i++ {
		if _, err := p.Render(context.Background(), plainPage(t, srv.URL+"/"), f.fetch); err != nil {
			t.Fatal(err)
		}
	}
	if st := p.Stats(); st.Pages != 2 {
		t.Fatalf("pages = %d", st.Pages)
	}
	if alive(first) {
		t.Errorf("browser %d still runs after restart_after pages", first)
	}
	// Kill the browser in the middle of a page: the Fetcher kills it at
	// the first sub-request, once.
	var once sync.Once
	var killed int
	kill := func(ctx context.Context, r Request) (*Response, error) {
		once.Do(func() {
			killed = p.PID()
			_ = syscall.Kill(-killed, syscall.SIGKILL)
		})
		return f.fetch(ctx, r)
	}
	res, err := p.Render(context.Background(), plainPage(t, srv.URL+"/"), kill)
	if err != nil {
		t.Fatalf("page lost with its browser: %v", err)
	}
	if res.Attempts < 2 || !slices.Contains(res.Links, srv.URL+"/a") {
		t.Errorf("attempts %d, links %q: want a retry that found /a", res.Attempts, res.Links)
	}
	st := p.Stats()
	if st.Restarts < 2 || st.Retries < 1 {
		t.Errorf("stats %+v: want >= 2 restarts and a retry", st)
	}
	if killed == 0 || killed == p.PID() {
		t.Errorf("killed browser %d, current %d", killed, p.PID())
	}
}

// TestRenderCloseLeavesNothing: Close ends every process of the browser.
func TestRenderCloseLeavesNothing(t *testing.T) {
	cfg := testConfig(t)
	p := New(cfg)
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := p.PID()
	if pid == 0 || groupRSS(pid) == 0 {
		t.Fatalf("no browser process group (pid %d)", pid)
	}
	p.Close()
	waitFor(t, func() bool { return len(groupMembers(pid)) == 0 }, "process group %d to be empty", pid)
	if _, err := p.Render(context.Background(), Page{URL: "http://x/"}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("render after close: %v", err)
	}
}

func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// A zombie is not running.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && !strings.HasPrefix(s[i+1:], " Z")
}

// groupMembers lists the live processes of group pgid.
func groupMembers(pgid int) []int {
	var pids []int
	for _, p := range groupProcs(pgid) {
		pids = append(pids, p.pid)
	}
	return pids
}

func waitFor(t *testing.T, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for "+format, args...)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRenderHungPage: a page that never finishes loading (its script
// never answers) ends at PageTimeout on each attempt, comes back as an
// error (the caller keeps the plain fetch), and the pool renders the next
// page.
func TestRenderHungPage(t *testing.T) {
	cfg := testConfig(t)
	cfg.PageTimeout = 1500 * time.Millisecond
	cfg.Retries = 1
	srv := newSPAServer(t)
	p := New(cfg)
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	hang := func(ctx context.Context, r Request) (*Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	start := time.Now()
	_, err := p.Render(context.Background(), Page{URL: srv.URL + "/hung", Status: 200,
		Header: http.Header{"Content-Type": {"text/html"}},
		Body:   []byte(`<html><head><script src="/never.js"></script></head><body>x</body></html>`)}, hang)
	if err == nil {
		t.Fatal("a hung page rendered")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("hung page took %v", d)
	}
	if st := p.Stats(); st.Errors != 1 || st.Retries != 1 {
		t.Errorf("stats %+v: want 1 error after 1 retry", st)
	}
	f := &plainFetch{}
	res, err := p.Render(context.Background(), plainPage(t, srv.URL+"/"), f.fetch)
	if err != nil || !slices.Contains(res.Links, srv.URL+"/a") {
		t.Fatalf("the next page: %v, %v", res, err)
	}
}
