package fakeweb_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

func TestProxyAndOriginServeTheSame(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 3, PagesPerHost: 10, Robots: []fakeweb.RobotsKind{fakeweb.RobotsDisallow}, Seed: 3})
	tests := []struct {
		url    string
		status int
		page   bool // body is Page(url)
	}{
		{"http://h1.fake.test/", 200, true},
		{"http://h1.fake.test/p/3", 200, true},
		{"http://H1.FAKE.TEST:80/p/3?utm_source=news&utm_medium=email", 200, true},
		{"http://h1.fake.test/p/x/../3", 200, true},
		{"http://h1.fake.test/private/2", 200, true},
		{"http://h1.fake.test/robots.txt", 200, true},
		{"http://h1.fake.test/r/3", 301, false},
		{"http://h1.fake.test/p/10", 404, false},
		{"http://h1.fake.test/nope", 404, false},
		{"http://h7.fake.test/", 502, false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			before := len(tw.web.Requests())
			p := get(t, tw.proxy, tt.url)
			o := get(t, tw.origin, tt.url)
			if p.status != tt.status || o.status != tt.status {
				t.Errorf("GET %s: proxy %d, origin %d, want %d", tt.url, p.status, o.status, tt.status)
			}
			if !bytes.Equal(p.body, o.body) {
				t.Errorf("GET %s: proxy and origin bodies differ", tt.url)
			}
			for _, h := range []string{"Content-Type", "Content-Length", "Location"} {
				if p.header.Get(h) != o.header.Get(h) {
					t.Errorf("GET %s: %s is %q by proxy, %q by origin", tt.url, h, p.header.Get(h), o.header.Get(h))
				}
			}
			if want, ok := tw.web.Page(tt.url); ok != tt.page || !bytes.Equal(p.body, want) && tt.page {
				t.Errorf("GET %s: body does not match Page (ok %v)", tt.url, ok)
			}
			reqs := tw.web.Requests()[before:]
			if len(reqs) != 2 || !reqs[0].Proxy || reqs[1].Proxy {
				t.Fatalf("GET %s logged %+v, want a proxy then an origin request", tt.url, reqs)
			}
			for _, r := range reqs {
				if r.Status != tt.status || r.End.Before(r.Start) || r.UserAgent != "godwit-test/1.0" || r.Method != "GET" {
					t.Errorf("GET %s logged %+v", tt.url, r)
				}
			}
		})
	}

	r := get(t, tw.proxy, "http://h1.fake.test/r/3")
	if loc := r.header.Get("Location"); loc != "http://h1.fake.test/p/3" {
		t.Errorf("GET /r/3: Location %q, want http://h1.fake.test/p/3", loc)
	}
	page := get(t, tw.proxy, "http://h1.fake.test/")
	if ct := page.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("GET /: Content-Type %q", ct)
	}
	log := tw.web.Requests()
	if last := log[len(log)-1]; last.Host != "h1.fake.test" || last.Path != "/" || last.RawURL != "http://h1.fake.test/" {
		t.Errorf("last logged request %+v", last)
	}
}

func TestMethods(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 1})
	tests := []struct {
		method string
		url    string
		status int
	}{
		{http.MethodHead, "http://h0.fake.test/p/1", 200},
		{http.MethodPost, "http://h0.fake.test/p/1", 405},
	}
	for _, tt := range tests {
		req, err := http.NewRequestWithContext(t.Context(), tt.method, tt.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := tw.proxy.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s %s = %d, want %d", tt.method, tt.url, resp.StatusCode, tt.status)
		}
		if tt.method == http.MethodHead && resp.ContentLength <= 0 {
			t.Errorf("HEAD: Content-Length %d, want the page's length", resp.ContentLength)
		}
	}
}

func TestConnectRefused(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 1})
	conn, err := net.Dial("tcp", tw.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "CONNECT h0.fake.test:443 HTTP/1.1\r\nHost: h0.fake.test:443\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("CONNECT = %d, want 405", resp.StatusCode)
	}
	log := tw.web.Requests()
	if len(log) != 1 || !log[0].Proxy || log[0].Host != "h0.fake.test:443" || log[0].Method != "CONNECT" {
		t.Errorf("CONNECT logged as %+v", log)
	}
}

func TestRobotsKinds(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{
		Hosts:      10,
		Robots:     fakeweb.RobotsKinds(),
		CrawlDelay: 1500 * time.Millisecond,
	})
	tests := []struct {
		host   string
		status int // 0: no answer
		body   string
	}{
		{"h0", 200, "User-agent: *\nAllow: /\n"},
		{"h1", 200, "User-agent: *\nDisallow: /private/\n\nUser-agent: otherbot\nDisallow: /\n"},
		{"h2", 200, "User-agent: *\nDisallow: /private/\nCrawl-delay: 1.5\n\nUser-agent: otherbot\nDisallow: /\n"},
		{"h3", 404, ""},
		{"h4", 500, ""},
		{"h5", 0, ""},
		{"h6", 200, "# \"*\" matches any run of characters, \"$\" anchors the end (RFC 9309).\nUser-agent: *\nDisallow: /private/\n" +
			"Disallow: /*.pdf$\nAllow: /w/open/*.pdf$\nDisallow: /w/*/draft\nAllow: /w/*/draft/public\nDisallow: /w/1\nAllow: /w/1$\n" +
			"Disallow: /w/tie\nAllow: /w/tie\n\nUser-agent: otherbot\nDisallow: /\n"},
		{"h7", 200, "User-agent: *\nDisallow: /p/\n\nUser-agent: examplebot\nUser-agent: GodWit\nAllow: /p/\n\n" +
			"User-agent: otherbot\nDisallow: /\n\nuser-agent: godwit\nDisallow: /private/\n"},
		{"h8", 301, ""},
		{"h9", 503, ""},
	}
	for i, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			if got, want := tw.web.Robots(i), tw.web.Config().Robots[i]; got != want {
				t.Errorf("Robots(%d) = %v, want %v", i, got, want)
			}
			u := "http://" + tt.host + ".fake.test/robots.txt"
			if tt.status == 0 {
				ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
				defer cancel()
				if r, err := tryGet(ctx, tw.proxy, u); err == nil {
					t.Fatalf("GET %s answered %d, want no answer", u, r.status)
				}
				// The handler logs the request as unanswered once it sees
				// the client gone.
				waitFor(t, func() bool {
					log := tw.web.Requests()
					return !log[len(log)-1].End.IsZero()
				})
				log := tw.web.Requests()
				if last := log[len(log)-1]; last.Status != 0 {
					t.Errorf("hanging robots.txt logged with status %d, want 0", last.Status)
				}
				return
			}
			r := get(t, tw.proxy, u)
			if r.status != tt.status || tt.body != "" && string(r.body) != tt.body {
				t.Errorf("GET %s = %d %q, want %d %q", u, r.status, r.body, tt.status, tt.body)
			}
		})
	}
}

func TestCloseReleasesHangingRequests(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 1, Robots: []fakeweb.RobotsKind{fakeweb.RobotsHang}})
	_, done := startHanging(t, tw, "http://h0.fake.test/robots.txt")
	_ = tw.web.Close()
	if err := <-done; err == nil {
		t.Error("hanging robots.txt answered after Close, want a dropped connection")
	}
	// Pages are still served after Close.
	if r := get(t, tw.proxy, "http://h0.fake.test/"); r.status != 200 {
		t.Errorf("GET / after Close = %d, want 200", r.status)
	}
}

func TestLatency(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 1, Latency: time.Hour})
	cancel, done := startHanging(t, tw, "http://h0.fake.test/")
	cancel()
	if err := <-done; err == nil {
		t.Fatal("request with an hour of latency answered")
	}
	waitFor(t, func() bool { return !tw.web.Requests()[0].End.IsZero() })
	if r := tw.web.Requests()[0]; r.Status != 0 {
		t.Errorf("abandoned request logged with status %d, want 0", r.Status)
	}
}

func TestServeShutsDownWithHangingRequest(t *testing.T) {
	web, err := fakeweb.New(fakeweb.Config{Hosts: 2, Robots: []fakeweb.RobotsKind{fakeweb.RobotsHang, fakeweb.RobotsAllow}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- web.Serve(ctx, ln) }()

	tr := &http.Transport{Proxy: http.ProxyURL(mustParse(t, "http://"+ln.Addr().String()))}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	tw := &testWeb{web: web, proxy: client}
	// An idle keep-alive connection and a hanging request.
	if r := get(t, client, "http://h1.fake.test/"); r.status != 200 {
		t.Fatalf("GET h1 = %d", r.status)
	}
	_, done := startHanging(t, tw, "http://h0.fake.test/robots.txt")

	stop()
	if err := <-served; err != nil {
		t.Errorf("Serve() = %v, want nil", err)
	}
	if err := <-done; err == nil {
		t.Error("hanging request answered, want a dropped connection")
	}
	if _, err := ln.Accept(); err == nil {
		t.Error("listener still open after Serve returned")
	}
}

func TestServeListenerError(t *testing.T) {
	web, _ := fakeweb.New(fakeweb.Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	err = web.Serve(t.Context(), ln)
	if err == nil || !strings.HasPrefix(err.Error(), "fakeweb: ") || !errors.Is(err, net.ErrClosed) {
		t.Errorf("Serve(closed listener) = %v, want a fakeweb: error wrapping net.ErrClosed", err)
	}
}

func TestControlEndpoints(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 3, PagesPerHost: 5})
	get(t, tw.proxy, "http://h0.fake.test/robots.txt")
	get(t, tw.proxy, "http://h0.fake.test/")
	get(t, tw.proxy, "http://h0.fake.test/p/1?utm_source=x")
	get(t, tw.proxy, "http://h0.fake.test/p/1")
	control := tw.srv.Client() // plain client: Host is 127.0.0.1:port
	base := tw.srv.URL

	r := get(t, control, base+"/_fakeweb/seeds")
	var seeds []string
	if err := json.Unmarshal(r.body, &seeds); err != nil || !reflect.DeepEqual(seeds, tw.web.Seeds()) {
		t.Errorf("GET /_fakeweb/seeds = %s (%v), want %q", r.body, err, tw.web.Seeds())
	}

	r = get(t, control, base+"/_fakeweb/report?delay=1h&max_depth=1&tolerance=1ms")
	want, _ := json.MarshalIndent(tw.web.Report(fakeweb.Judge{Delay: time.Hour, MaxDepth: 1, Tolerance: time.Millisecond}), "", "  ")
	if r.status != 200 || !bytes.Equal(bytes.TrimSpace(r.body), want) {
		t.Errorf("GET /_fakeweb/report = %d\n%s\nwant\n%s", r.status, r.body, want)
	}
	var rep fakeweb.Report
	if err := json.Unmarshal(r.body, &rep); err != nil || rep.Requests != 4 || rep.GapViolations != 3 || rep.Duplicates != 1 {
		t.Errorf("report decodes to %+v (%v)", rep, err)
	}
	if !bytes.Contains(r.body, []byte(`"gap_violations": 3`)) {
		t.Errorf("report JSON lacks snake_case fields:\n%s", r.body)
	}

	r = get(t, control, base+"/_fakeweb/requests")
	var reqs []fakeweb.Request
	if err := json.Unmarshal(r.body, &reqs); err != nil || len(reqs) != 4 || reqs[3].Path != "/p/1" {
		t.Errorf("GET /_fakeweb/requests = %s (%v)", r.body, err)
	}

	for _, bad := range []string{"delay=soon", "max_depth=-1", "tolerance=-1s"} {
		if r := get(t, control, base+"/_fakeweb/report?"+bad); r.status != http.StatusBadRequest || !strings.HasPrefix(string(r.body), "fakeweb: ") {
			t.Errorf("GET /_fakeweb/report?%s = %d %q, want 400", bad, r.status, r.body)
		}
	}
	if r := get(t, control, base+"/"); r.status != 200 || !strings.Contains(string(r.body), "/_fakeweb/report") {
		t.Errorf("GET / on the control host = %d %q", r.status, r.body)
	}
	if r := get(t, control, base+"/_fakeweb/nope"); r.status != 404 {
		t.Errorf("GET /_fakeweb/nope = %d, want 404", r.status)
	}
	// Through the proxy too.
	if r := get(t, tw.proxy, base+"/_fakeweb/seeds"); r.status != 200 {
		t.Errorf("GET /_fakeweb/seeds through the proxy = %d", r.status)
	}

	resp, err := control.Post(base+"/_fakeweb/reset", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || len(tw.web.Requests()) != 0 {
		t.Errorf("POST /_fakeweb/reset = %d, %d requests left", resp.StatusCode, len(tw.web.Requests()))
	}
}
