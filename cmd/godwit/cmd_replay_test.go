package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/wacz"
)

// replayWebPageEnv names the directory of the replaywebpage npm package
// (ui.js and sw.js), pinned by the test's documentation:
//
//	npm pack replaywebpage@2.5.3 && tar xzf replaywebpage-2.5.3.tgz
//	GODWIT_REPLAYWEBPAGE=$PWD/package go test -run TestReplayInBrowser ./cmd/godwit
const replayWebPageEnv = "GODWIT_REPLAYWEBPAGE"

// TestReplayInBrowser replays a crawl the way a user would: the WACZ of a
// small crawl with page requisites, served as godwit replay serves it,
// with ReplayWeb.page from its npm package (--replayweb), in headless
// Chromium. The replayed home
// page must show its stylesheet applied (the <h1> colour that base.css,
// imported by site.css, sets) and its image loaded from the archive
// (naturalWidth 2). The screenshot is kept as TestReplayInBrowser.png in
// $GODWIT_ARTIFACTS (CI's artifacts), or the test's temp dir. It
// needs Chromium and the replaywebpage package (see replayWebPageEnv),
// and is skipped without them.
func TestReplayInBrowser(t *testing.T) {
	tools := replayBrowserTools(t)
	t.Parallel() // judged by what the browser shows, not by when: see replayBrowserTools
	_, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 6, Seed: 5, Requisites: true})
	s := testSettings(t, addr)
	s.MaxDepth = 1
	crawlInProcess(t, s, []string{"http://h0.fake.test/"})

	b := startBrowserReplay(t, tools, s.Data, "http://h0.fake.test/")
	// The replayed page's image and style.
	const probe = `JSON.stringify({color: document.querySelector("h1") ? getComputedStyle(document.querySelector("h1")).color : "",
		img: document.images.length ? document.images[0].naturalWidth : -1,
		complete: document.images.length ? document.images[0].complete : false,
		src: document.images.length ? document.images[0].currentSrc : ""})`
	v := b.replay(t, probe, "showed its style and image", func(v string) bool {
		var got struct {
			Color    string
			Img      int
			Complete bool
		}
		return json.Unmarshal([]byte(v), &got) == nil && got.Complete && got.Img == 2 && got.Color == "rgb(1, 2, 3)"
	})
	t.Logf("replayed: %s", v)
}

// replayTools are what a replay in a browser needs: ReplayWeb.page's
// package directory and Chromium.
type replayTools struct{ replayWeb, chromium string }

// replayBrowserTools finds the replaywebpage package (replayWebPageEnv)
// and Chromium, and skips the test without either.
//
// The replay tests run in parallel (t.Parallel) with each other and the
// package's other parallel tests, after its sequential ones: nothing in
// them is judged by time but their 90 s deadline, which allows for a
// busy machine many times over.
func replayBrowserTools(t *testing.T) replayTools {
	t.Helper()
	rwp := os.Getenv(replayWebPageEnv)
	if rwp == "" {
		t.Skipf("%s is not set: no ReplayWeb.page to replay in", replayWebPageEnv)
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return replayTools{replayWeb: rwp, chromium: path}
		}
	}
	t.Skip("no Chromium")
	return replayTools{}
}

// browserReplay is the crawl of a data directory, packaged as a WACZ and
// served as godwit replay serves it (with ReplayWeb.page from its
// package), and a headless Chromium to replay it in, on a page of its
// own; both end with the test.
type browserReplay struct {
	ctx    context.Context // the replay's deadline: 90 s from its start
	cdp    *cdpConn
	dir    string // the WACZ and the screenshot (shot)
	server string // the replay page's URL
	page   string // the archived page replayed
}

// startBrowserReplay exports the crawl in data (godwit export wacz),
// serves it to replay page, and starts Chromium with its page events
// enabled.
func startBrowserReplay(t *testing.T, tools replayTools, data, page string) *browserReplay {
	t.Helper()
	dir := t.TempDir()
	waczFile := filepath.Join(dir, "crawl.wacz")
	if _, errOut, code := runCmd(t, "", "export", "wacz", "-o", waczFile, "--data", data); code != 0 {
		t.Fatalf("export wacz: exit %d: %s", code, errOut)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: wacz.ReplayHandler(waczFile, tools.replayWeb, page)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	t.Cleanup(cancel)
	cdp := startChromium(ctx, t, tools.chromium, dir)
	if _, err := cdp.call(ctx, "Page.enable", nil); err != nil {
		t.Fatal(err)
	}
	return &browserReplay{ctx: ctx, cdp: cdp, dir: dir, server: "http://" + ln.Addr().String() + "/", page: page}
}

// replay opens the replay page and evaluates probe, an expression that
// gives a string, in the frame replaying the archived page until ok
// accepts what it gives, and returns that. It fails the test, saying
// the page never did what (and the last probe), when that takes longer
// than the replay's deadline. The screenshot is kept (shot) either way.
func (b *browserReplay) replay(t *testing.T, probe, what string, ok func(string) bool) string {
	t.Helper()
	if _, err := b.cdp.call(b.ctx, "Page.navigate", map[string]any{"url": b.server}); err != nil {
		t.Fatal(err)
	}
	var last string
	for {
		if frame := replayedFrame(b.ctx, b.cdp, b.page); frame != "" {
			if v, err := evalInFrame(b.ctx, b.cdp, frame, probe); err == nil {
				last = v
				if ok(v) {
					shot(t, b.cdp, b.dir)
					return v
				}
			}
		}
		select {
		case <-b.ctx.Done():
			shot(t, b.cdp, b.dir)
			t.Fatalf("the replayed page never %s; last probe %s", what, last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// TestReplayWaitsForServiceWorker: ReplayWeb.page's embed opens its
// iframe at /replay/ as soon as its service worker is registered, before
// it is active, and gives up after three reloads 100 ms apart; a worker
// that takes longer to start (a busy machine: it is 1.2 MB of script) left
// the iframe on the server's answer for /replay/, which was "404 page not
// found", for good (TestReplayHTTP2InBrowser failed so in CI). Here the
// worker's installation takes 3 s (a handler of its install event waits
// that long before the real worker's script runs its own): the replay
// must still reach the page, and the server must answer no request with
// a 404. Needs Chromium and the replaywebpage package; skipped without them.
func TestReplayWaitsForServiceWorker(t *testing.T) {
	rwp := os.Getenv(replayWebPageEnv)
	if rwp == "" {
		t.Skipf("%s is not set: no ReplayWeb.page to replay in", replayWebPageEnv)
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no Chromium")
	}
	_, addr := startWeb(t, fakeweb.Config{Hosts: 1, PagesPerHost: 2, Seed: 5, Requisites: true})
	page := "http://h0.fake.test/"
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	s.MaxDepth = 1
	crawlInProcess(t, s, []string{page})
	dir := t.TempDir()
	waczFile := filepath.Join(dir, "crawl.wacz")
	if _, errOut, code := runCmd(t, "", "export", "wacz", "-o", waczFile, "--data", s.Data); code != 0 {
		t.Fatalf("export wacz: exit %d: %s", code, errOut)
	}

	// The replay handler, with a slow service worker in front of the
	// real one, and a record of every 404 it answers (but the favicon's).
	mux := http.NewServeMux()
	mux.Handle("/", wacz.ReplayHandler(waczFile, rwp, page))
	mux.HandleFunc("GET /replay/sw.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, "self.addEventListener(\"install\", (e) => e.waitUntil(new Promise((r) => setTimeout(r, 3000))));\nimportScripts(\"./sw-real.js\");\n")
	})
	mux.HandleFunc("GET /replay/sw-real.js", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(rwp, "sw.js"))
	})
	var (
		mu       sync.Mutex
		notFound []string
	)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		mux.ServeHTTP(sw, r)
		if sw.status == http.StatusNotFound && r.URL.Path != "/favicon.ico" { // the browser's own
			mu.Lock()
			notFound = append(notFound, r.URL.String())
			mu.Unlock()
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cdp := startChromium(ctx, t, chromium, dir)
	if _, err := cdp.call(ctx, "Page.enable", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cdp.call(ctx, "Page.navigate", map[string]any{"url": "http://" + ln.Addr().String() + "/"}); err != nil {
		t.Fatal(err)
	}
	const probe = `JSON.stringify({color: document.querySelector("h1") ? getComputedStyle(document.querySelector("h1")).color : ""})`
	var last string
	for {
		if frame := replayedFrame(ctx, cdp, page); frame != "" {
			if v, err := evalInFrame(ctx, cdp, frame, probe); err == nil {
				last = v
				if strings.Contains(v, "rgb(1, 2, 3)") {
					t.Logf("replayed: %s", v)
					break
				}
			}
		}
		mu.Lock()
		nf := append([]string(nil), notFound...)
		mu.Unlock()
		if len(nf) > 0 || ctx.Err() != nil {
			shot(t, cdp, dir)
			t.Fatalf("the page never replayed (last probe %q); the replay server answered 404 to %q", last, nf)
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notFound) > 0 {
		t.Errorf("the replay server answered 404 to %q", notFound)
	}
}

// statusWriter remembers the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// artifactsEnv names a directory where tests keep what a person should
// be able to look at after the run (CI sets it: .ci/run).
const artifactsEnv = "GODWIT_ARTIFACTS"

// shot saves a screenshot of the page in dir, or in $GODWIT_ARTIFACTS
// when it is set (dir goes with the test), named after the test: the
// replay tests run in parallel.
func shot(t *testing.T, cdp *cdpConn, dir string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cdp.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"})
	if err != nil {
		t.Logf("screenshot: %v", err)
		return
	}
	var s struct{ Data string }
	if json.Unmarshal(res, &s) != nil {
		return
	}
	b, _ := base64.StdEncoding.DecodeString(s.Data)
	if a := os.Getenv(artifactsEnv); a != "" {
		if err := os.MkdirAll(a, 0o755); err == nil {
			dir = a
		}
	}
	p := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+".png")
	if err := os.WriteFile(p, b, 0o644); err == nil {
		t.Logf("screenshot: %s", p)
	}
}

// replayedFrame returns the ID of the frame replaying url (ReplayWeb.page
// serves it at .../mp_/URL), "" if there is none yet.
func replayedFrame(ctx context.Context, cdp *cdpConn, url string) string {
	res, err := cdp.call(ctx, "Page.getFrameTree", nil)
	if err != nil {
		return ""
	}
	type frameTree struct {
		Frame       struct{ ID, URL string }
		ChildFrames []json.RawMessage
	}
	var find func(raw json.RawMessage) string
	find = func(raw json.RawMessage) string {
		var ft frameTree
		if json.Unmarshal(raw, &ft) != nil {
			return ""
		}
		if strings.Contains(ft.Frame.URL, "mp_/"+url) {
			return ft.Frame.ID
		}
		for _, c := range ft.ChildFrames {
			if id := find(c); id != "" {
				return id
			}
		}
		return ""
	}
	var top struct{ FrameTree json.RawMessage }
	if json.Unmarshal(res, &top) != nil {
		return ""
	}
	return find(top.FrameTree)
}

// evalInFrame evaluates expr, which must give a string, in frame.
func evalInFrame(ctx context.Context, cdp *cdpConn, frame, expr string) (string, error) {
	res, err := cdp.call(ctx, "Page.createIsolatedWorld", map[string]any{"frameId": frame})
	if err != nil {
		return "", err
	}
	var w struct{ ExecutionContextID int }
	if err := json.Unmarshal(res, &w); err != nil {
		return "", err
	}
	res, err = cdp.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "contextId": w.ExecutionContextID, "returnByValue": true})
	if err != nil {
		return "", err
	}
	var v struct {
		Result struct{ Value string }
	}
	err = json.Unmarshal(res, &v)
	return v.Result.Value, err
}

// cdpConn is a minimal Chrome DevTools Protocol client over one page's
// websocket: calls, answered in order by id; events are dropped.
type cdpConn struct {
	ws      *websocket.Conn
	mu      sync.Mutex
	id      int
	pending map[int]chan cdpReply
}

type cdpReply struct {
	Result json.RawMessage
	Error  *struct{ Message string }
}

// startChromium starts headless Chromium with a debugging port and
// connects to its first page; both end with the test.
func startChromium(ctx context.Context, t *testing.T, path, dir string) *cdpConn {
	t.Helper()
	// The profile is not under the test's TempDir: Chromium's helper
	// processes may still write there for a moment after it is killed,
	// which would fail the TempDir's removal.
	profile, err := os.MkdirTemp("", "godwit-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir="+profile, "--window-size=1000,700", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers go with it
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		for range 50 { // the helpers' last writes
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	var port string
	for port == "" {
		if b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			port, _, _ = strings.Cut(string(b), "\n")
		}
		select {
		case <-ctx.Done():
			t.Fatal("Chromium did not open its debugging port")
		case <-done:
			t.Fatal("Chromium exited")
		case <-time.After(100 * time.Millisecond):
		}
	}
	if _, err := strconv.Atoi(port); err != nil {
		t.Fatalf("DevToolsActivePort %q", port)
	}
	var targets []struct{ Type, WebSocketDebuggerURL string }
	for len(targets) == 0 {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
		}
		if len(targets) > 0 && targets[0].Type != "page" {
			targets = targets[:0]
		}
		select {
		case <-ctx.Done():
			t.Fatal("no page target")
		case <-time.After(100 * time.Millisecond):
		}
	}
	ws, err := websocket.Dial(targets[0].WebSocketDebuggerURL, "", "http://127.0.0.1/")
	if err != nil {
		t.Fatal(err)
	}
	c := &cdpConn{ws: ws, pending: map[int]chan cdpReply{}}
	readDone := make(chan struct{})
	go c.read(readDone)
	t.Cleanup(func() { ws.Close(); <-readDone })
	return c
}

func (c *cdpConn) read(done chan struct{}) {
	defer close(done)
	for {
		var msg struct {
			ID int
			cdpReply
		}
		if err := websocket.JSON.Receive(c.ws, &msg); err != nil {
			return
		}
		if msg.ID == 0 {
			continue // an event
		}
		c.mu.Lock()
		ch := c.pending[msg.ID]
		delete(c.pending, msg.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- msg.cdpReply
		}
	}
}

func (c *cdpConn) call(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	c.mu.Lock()
	c.id++
	id := c.id
	ch := make(chan cdpReply, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if params == nil {
		params = map[string]any{}
	}
	if err := websocket.JSON.Send(c.ws, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		return r.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestBinaryReplay runs godwit replay as a user would, without a browser:
// with only --data it packages the crawl, serves the page that embeds
// ReplayWeb.page from the CDN, its service worker and the archive (with
// range requests), and on Ctrl-C exits 0 and removes the package it made.
func TestBinaryReplay(t *testing.T) {
	_, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 6, Seed: 5, Requisites: true})
	s := testSettings(t, addr)
	crawlInProcess(t, s, []string{"http://h0.fake.test/", "http://h1.fake.test/"})
	// The crawl's complete WARC files, found here rather than by the code
	// under test.
	warcs, err := filepath.Glob(filepath.Join(s.Data, "warc", "*.warc.gz"))
	if err != nil || len(warcs) == 0 {
		t.Fatalf("the crawl wrote no WARC file (%v)", err)
	}

	cmd := exec.Command(godwitBinary(t), "replay", "--data", s.Data, "--listen", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		t.Fatalf("godwit replay printed nothing; stderr: %s", stderr.String())
	}
	var waczFile, base string
	if _, err := fmt.Sscanf(sc.Text(), "replaying %s at %s (Ctrl-C to stop)", &waczFile, &base); err != nil {
		t.Fatalf("first line %q: %v", sc.Text(), err)
	}
	go func() {
		for sc.Scan() {
		}
	}()

	get := func(path string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+strings.TrimPrefix(path, "/"), nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	// Served under its name, which is the data directory's.
	archive := "/" + filepath.Base(s.Data) + ".wacz"
	if filepath.Base(waczFile) != archive[1:] {
		t.Errorf("the package is %s, want it named after the data directory, %s", waczFile, archive[1:])
	}
	if _, page := get("/"); !strings.Contains(string(page), `<script src="`+wacz.ReplayWebPageCDN+`ui.js">`) ||
		!strings.Contains(string(page), `source="`+archive+`" replayBase="/replay/"`) {
		t.Errorf("the replay page does not embed ReplayWeb.page on the archive:\n%s", page)
	}
	if _, sw := get("/replay/sw.js"); string(sw) != `importScripts("`+wacz.ReplayWebPageCDN+`sw.js");`+"\n" {
		t.Errorf("service worker: %q", sw)
	}
	if resp, part := get(archive, "Range", "bytes=0-3"); resp.StatusCode != http.StatusPartialContent || string(part) != "PK\x03\x04" {
		t.Errorf("a range of the archive: %s %q", resp.Status, part)
	}
	_, whole := get(archive)
	zr, err := zip.NewReader(bytes.NewReader(whole), int64(len(whole)))
	if err != nil {
		t.Fatalf("the served archive is not a ZIP: %v", err)
	}
	var got []string
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "archive/") {
			got = append(got, strings.TrimPrefix(f.Name, "archive/"))
		}
	}
	var want []string
	for _, p := range warcs {
		want = append(want, filepath.Base(p))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the archive holds %v, the crawl wrote %v", got, want)
	}
	if resp, _ := get("/archive.wacz"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /archive.wacz: %s, want 404 (only the page, its worker and the archive are served)", resp.Status)
	}

	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("godwit replay after Ctrl-C: %v; stderr: %s", err, stderr.String())
	}
	if _, err := os.Stat(waczFile); !os.IsNotExist(err) {
		t.Errorf("the package %s is still there after exit (%v)", waczFile, err)
	}

	// A WACZ given, a page named; a package directory that is not one is refused.
	own := filepath.Join(t.TempDir(), "mine.wacz")
	if _, errOut, code := runCmd(t, "", "export", "wacz", "-o", own, "--data", s.Data); code != 0 {
		t.Fatalf("export wacz: exit %d: %s", code, errOut)
	}
	rec := httptest.NewRecorder()
	wacz.ReplayHandler(own, "", "http://h1.fake.test/?a=1&b=2").ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if !strings.Contains(rec.Body.String(), `url="http://h1.fake.test/?a=1&amp;b=2"`) ||
		!strings.Contains(rec.Body.String(), `source="/mine.wacz"`) {
		t.Errorf("--url or the archive's name not in the page:\n%s", rec.Body.String())
	}
	odd := filepath.Join(t.TempDir(), "a b?.wacz")
	if err := os.Link(own, odd); err != nil {
		t.Fatal(err)
	}
	h := wacz.ReplayHandler(odd, "", "")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if !strings.Contains(rec.Body.String(), `source="/archive.wacz"`) {
		t.Errorf("a name that is not plain is not served as archive.wacz:\n%s", rec.Body.String())
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/archive.wacz", nil))
	if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
		t.Errorf("GET /archive.wacz of %q: %d, %d bytes", odd, rec.Code, rec.Body.Len())
	}
	if res := runBinary(t, "replay", "--replayweb", t.TempDir(), own); res.code != exitBadInput ||
		!strings.Contains(res.stderr, "is not the replaywebpage package") {
		t.Errorf("--replayweb of an empty directory: exit %d, %s", res.code, res.stderr)
	}
}

// TestReplayServesTheAppScript: the page the service worker makes up for
// the embed's iframe (/replay/) loads ./ui.js, that is /replay/ui.js: it
// is the package's script (--replayweb DIR) or a redirect to the CDN's,
// never a 404 in text/plain, which the browser refuses as a script.
func TestReplayServesTheAppScript(t *testing.T) {
	dir := t.TempDir()
	waczFile := filepath.Join(dir, "crawl.wacz")
	ui := filepath.Join(dir, "package")
	if err := os.MkdirAll(ui, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"crawl.wacz": "PK", "package/ui.js": "/* ui */", "package/sw.js": "/* sw */"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	get := func(h http.Handler, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec
	}
	local := wacz.ReplayHandler(waczFile, ui, "")
	for _, path := range []string{"/ui.js", "/replay/ui.js"} {
		rec := get(local, path)
		if ct := rec.Header().Get("Content-Type"); rec.Code != 200 || !strings.HasPrefix(ct, "text/javascript") || rec.Body.String() != "/* ui */" {
			t.Errorf("--replayweb: GET %s = %d %s %q, want 200 text/javascript, the package's ui.js", path, rec.Code, ct, rec.Body)
		}
	}
	rec := get(wacz.ReplayHandler(waczFile, "", ""), "/replay/ui.js")
	if rec.Code != http.StatusFound || rec.Header().Get("Location") != wacz.ReplayWebPageCDN+"ui.js" {
		t.Errorf("CDN: GET /replay/ui.js = %d to %q, want 302 to %sui.js", rec.Code, rec.Header().Get("Location"), wacz.ReplayWebPageCDN)
	}
}
