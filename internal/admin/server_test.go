package admin

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"go.uber.org/goleak"
)

// newTestServer starts s's handler on a real loopback listener, with
// Options.Addr the listener's address (as cmd/godwit will bind it).
func newTestServer(t *testing.T, b Backend, o Options) (*httptest.Server, *Server) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	if o.Addr == "" {
		o.Addr = ts.Listener.Addr().String()
	}
	s, err := New(b, o)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = s.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, s
}

type reply struct {
	status int
	header http.Header
	body   string
}

// do sends one request; hdr is pairs of header name and value.
func do(t *testing.T, ts *httptest.Server, method, path, body string, hdr ...string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// errorCode checks r is the error envelope and returns its code.
func errorCode(t *testing.T, r reply) string {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("error Content-Type = %q, want application/json (body %q)", ct, r.body)
	}
	var raw map[string]map[string]string
	if err := json.Unmarshal([]byte(r.body), &raw); err != nil || len(raw) != 1 || len(raw["error"]) != 2 || raw["error"]["message"] == "" {
		t.Errorf("error body %q is not {\"error\":{\"code\":…,\"message\":…}} (%v)", r.body, err)
	}
	return raw["error"]["code"]
}

func TestEndpoints(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		status                   int
		code                     string // error code, or "" on success
		bodyHas                  string
		call                     string // the backend call it makes, if any
	}{
		{"status", "GET", "/api/status", "", 200, "", `"pages_fetched":42`, ""},
		{"status arrays not null", "GET", "/api/status", "", 200, "", `"rate":[]`, ""},
		{"seeds", "POST", "/api/seeds", `{"urls":["http://a.example/","mailto:x"],"priority":2}`, 200, "", `{"queued":1,"rejected":[{"url":"mailto:x","reason":"invalid"}]}`, "AddSeeds [http://a.example/ mailto:x] 2"},
		{"seeds none rejected", "POST", "/api/seeds", `{"urls":["http://a.example/"]}`, 200, "", `"rejected":[]`, "AddSeeds [http://a.example/] 0"},
		{"seeds empty", "POST", "/api/seeds", `{"urls":[]}`, 400, "bad_request", "at least one", ""},
		{"seeds negative priority", "POST", "/api/seeds", `{"urls":["http://a/"],"priority":-1}`, 400, "bad_request", "priority", ""},
		{"seeds unknown field", "POST", "/api/seeds", `{"urls":["http://a/"],"prio":1}`, 400, "bad_request", "unknown field", ""},
		{"seeds bad JSON", "POST", "/api/seeds", `{"urls":`, 400, "bad_request", "bad JSON", ""},
		{"seeds trailing data", "POST", "/api/seeds", `{"urls":["http://a/"]} {}`, 400, "bad_request", "", ""},
		{"seeds wrong type", "POST", "/api/seeds", `{"urls":"http://a/"}`, 400, "bad_request", "", ""},
		{"seeds no body", "POST", "/api/seeds", "", 400, "bad_request", "body is required", ""},
		{"seeds GET", "GET", "/api/seeds", "", 405, "method_not_allowed", "POST", ""},
		{"hosts default", "GET", "/api/hosts", "", 200, "", `[{"name":"a.example"`, "Hosts queued 50"},
		{"hosts sorted", "GET", "/api/hosts?sort=errors&limit=1000", "", 200, "", `"b.example"`, "Hosts errors 1000"},
		{"hosts bad sort", "GET", "/api/hosts?sort=name", "", 400, "bad_request", "sort", ""},
		{"hosts limit 0", "GET", "/api/hosts?limit=0", "", 400, "bad_request", "limit", ""},
		{"hosts limit big", "GET", "/api/hosts?limit=1001", "", 400, "bad_request", "limit", ""},
		{"hosts limit text", "GET", "/api/hosts?limit=ten", "", 400, "bad_request", "limit", ""},
		{"hosts POST", "POST", "/api/hosts", "", 405, "method_not_allowed", "", ""},
		{"host", "GET", "/api/hosts/A.example", "", 200, "", `"name":"a.example"`, "Host a.example"},
		{"host with port", "GET", "/api/hosts/a.example:8080", "", 200, "", `"name":"a.example:8080"`, "Host a.example:8080"},
		{"host unknown", "GET", "/api/hosts/missing.example", "", 404, "not_found", "not found", "Host missing.example"},
		{"host backend failure", "GET", "/api/hosts/broken.example", "", 500, "internal", "disk on fire", "Host broken.example"},
		{"host bad name", "GET", "/api/hosts/a%20b", "", 400, "bad_request", "host", ""},
		{"policy", "PUT", "/api/hosts/a.example/policy", `{"delay_ms":2000}`, 204, "", "", "SetHostPolicy a.example delay=2000 max="},
		{"policy both", "PUT", "/api/hosts/a.example/policy", `{"delay_ms":0,"max_pages":10}`, 204, "", "", "SetHostPolicy a.example delay=0 max=10"},
		{"policy empty", "PUT", "/api/hosts/a.example/policy", `{}`, 400, "bad_request", "empty policy", ""},
		{"policy negative delay", "PUT", "/api/hosts/a.example/policy", `{"delay_ms":-1}`, 400, "bad_request", "delay_ms", ""},
		{"policy negative max", "PUT", "/api/hosts/a.example/policy", `{"max_pages":-5}`, 400, "bad_request", "max_pages", ""},
		{"policy unknown field", "PUT", "/api/hosts/a.example/policy", `{"delay":5}`, 400, "bad_request", "unknown field", ""},
		{"policy invalid host", "PUT", "/api/hosts/invalid.example/policy", `{"delay_ms":5}`, 400, "bad_request", "invalid", "SetHostPolicy invalid.example delay=5 max="},
		{"policy POST", "POST", "/api/hosts/a.example/policy", `{"delay_ms":5}`, 405, "method_not_allowed", "", ""},
		{"clear policy", "DELETE", "/api/hosts/a.example/policy", "", 204, "", "", "ClearHostPolicy a.example"},
		{"clear policy unknown", "DELETE", "/api/hosts/missing.example/policy", "", 404, "not_found", "", "ClearHostPolicy missing.example"},
		{"block", "POST", "/api/hosts/a.example/block", "", 204, "", "", "Block a.example"},
		{"block GET", "GET", "/api/hosts/a.example/block", "", 405, "method_not_allowed", "", ""},
		{"unblock", "POST", "/api/hosts/a.example/unblock", "", 204, "", "", "Unblock a.example"},
		{"unblock failure", "POST", "/api/hosts/broken.example/unblock", "", 500, "internal", "", "Unblock broken.example"},
		{"url", "GET", "/api/urls?url=" + url.QueryEscape("http://a.example/x?y=1"), "", 200, "", `"url":"http://a.example/x?y=1"`, "URL http://a.example/x?y=1"},
		{"url unknown", "GET", "/api/urls?url=http://missing.example/", "", 404, "not_found", "", "URL http://missing.example/"},
		{"url missing", "GET", "/api/urls", "", 400, "bad_request", "url", ""},
		{"url too long", "GET", "/api/urls?url=http://a/" + strings.Repeat("x", maxURLLength), "", 400, "bad_request", "longer", ""},
		{"url change estimate", "GET", "/api/urls?url=http://changing.example/", "", 200, "", `"mean_change_interval_seconds":120,`, "URL http://changing.example/"},
		{"recrawl share", "PUT", "/api/recrawl", `{"revisit_share":0.3}`, 204, "", "", "SetRevisitShare 0.3"},
		{"recrawl share 0", "PUT", "/api/recrawl", `{"revisit_share":0}`, 204, "", "", "SetRevisitShare 0"},
		{"recrawl share 1", "PUT", "/api/recrawl", `{"revisit_share":1}`, 204, "", "", "SetRevisitShare 1"},
		{"recrawl share above 1", "PUT", "/api/recrawl", `{"revisit_share":1.5}`, 400, "bad_request", "revisit_share", ""},
		{"recrawl share negative", "PUT", "/api/recrawl", `{"revisit_share":-0.1}`, 400, "bad_request", "revisit_share", ""},
		{"recrawl share missing", "PUT", "/api/recrawl", `{}`, 400, "bad_request", "revisit_share: required", ""},
		{"recrawl share null", "PUT", "/api/recrawl", `{"revisit_share":null}`, 400, "bad_request", "revisit_share: required", ""},
		{"recrawl share as text", "PUT", "/api/recrawl", `{"revisit_share":"30%"}`, 400, "bad_request", "bad JSON", ""},
		{"recrawl unknown field", "PUT", "/api/recrawl", `{"share":0.3}`, 400, "bad_request", "unknown field", ""},
		{"recrawl no body", "PUT", "/api/recrawl", "", 400, "bad_request", "body is required", ""},
		{"recrawl GET", "GET", "/api/recrawl", "", 405, "method_not_allowed", "PUT", ""},
		{"pause", "POST", "/api/pause", "", 204, "", "", "Pause"},
		{"pause GET", "GET", "/api/pause", "", 405, "method_not_allowed", "", ""},
		{"resume", "POST", "/api/resume", "", 204, "", "", "Resume"},
		{"openapi", "GET", "/api/openapi.json", "", 200, "", `"openapi": "3.1.0"`, ""},
		{"no metrics", "GET", "/metrics", "", 404, "not_found", "metrics", ""},
		{"unknown path", "GET", "/api/nothing", "", 404, "not_found", "no such endpoint", ""},
		{"no dashboard static", "GET", "/static/app.js", "", 404, "not_found", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &fakeBackend{}
			ts, _ := newTestServer(t, b, Options{})
			r := do(t, ts, tt.method, tt.path, tt.body)
			if r.status != tt.status || !strings.Contains(r.body, tt.bodyHas) {
				t.Errorf("%s %s = %d %q, want %d with %q", tt.method, tt.path, r.status, r.body, tt.status, tt.bodyHas)
			}
			if tt.code != "" {
				if code := errorCode(t, r); code != tt.code {
					t.Errorf("%s %s: error code %q, want %q", tt.method, tt.path, code, tt.code)
				}
			} else if r.status == 200 && r.header.Get("Content-Type") != "application/json" {
				t.Errorf("%s %s: Content-Type %q", tt.method, tt.path, r.header.Get("Content-Type"))
			}
			var want []string
			if tt.call != "" {
				want = []string{tt.call}
			}
			if got := b.Calls(); !slices.Equal(got, want) {
				t.Errorf("%s %s: backend calls %q, want %q", tt.method, tt.path, got, want)
			}
			if r.status == http.StatusMethodNotAllowed && r.header.Get("Allow") == "" {
				t.Errorf("%s %s: 405 without Allow", tt.method, tt.path)
			}
		})
	}
}

func TestPauseResumeStatus(t *testing.T) {
	b := &fakeBackend{}
	ts, _ := newTestServer(t, b, Options{})
	do(t, ts, "POST", "/api/pause", "")
	if r := do(t, ts, "GET", "/api/status", ""); !strings.Contains(r.body, `"paused":true`) {
		t.Errorf("after pause: %s", r.body)
	}
	do(t, ts, "POST", "/api/resume", "")
	if r := do(t, ts, "GET", "/api/status", ""); !strings.Contains(r.body, `"paused":false`) {
		t.Errorf("after resume: %s", r.body)
	}
}

func TestBodyRules(t *testing.T) {
	ts, _ := newTestServer(t, &fakeBackend{}, Options{})
	tests := []struct {
		name, method, path, body, contentType string
		status                                int
	}{
		{"text/plain body", "POST", "/api/seeds", `{"urls":["http://a/"]}`, "text/plain", 400},
		{"form body", "PUT", "/api/hosts/a/policy", `{"delay_ms":1}`, "application/x-www-form-urlencoded", 400},
		{"json with charset", "POST", "/api/seeds", `{"urls":["http://a/"]}`, "application/json; charset=utf-8", 200},
		{"body on block without type", "POST", "/api/hosts/a/block", `{}`, "", 400},
		{"recrawl text/plain", "PUT", "/api/recrawl", `{"revisit_share":0.3}`, "text/plain", 400},
		{"recrawl without type", "PUT", "/api/recrawl", `{"revisit_share":0.3}`, "", 400},
		{"recrawl json", "PUT", "/api/recrawl", `{"revisit_share":0.3}`, "application/json", 204},
		{"too large", "POST", "/api/seeds", `{"urls":["` + strings.Repeat("x", maxBody) + `"]}`, "application/json", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, ts.URL+tt.path, strings.NewReader(tt.body))
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("%s %s (%s) = %d %s, want %d", tt.method, tt.path, tt.contentType, resp.StatusCode, b, tt.status)
			}
		})
	}
}

func TestNewRequiresTokenOffLoopback(t *testing.T) {
	tests := []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:7070", "", true},
		{"localhost:7070", "", true},
		{"[::1]:7070", "", true},
		{"0.0.0.0:7070", "", false},
		{":7070", "", false},
		{"192.0.2.10:7070", "", false},
		{"crawler.lan:7070", "", false},
		{"192.0.2.10:7070", "s3cret", true},
		{"0.0.0.0:7070", "s3cret", true},
		{"127.0.0.1", "", false}, // no port
	}
	for _, tt := range tests {
		_, err := New(&fakeBackend{}, Options{Addr: tt.addr, Token: tt.token})
		if (err == nil) != tt.ok {
			t.Errorf("New(Addr %q, Token %q) error = %v, want ok %v", tt.addr, tt.token, err, tt.ok)
		}
	}
}

func TestToken(t *testing.T) {
	const token = "s3cret-token"
	b := &fakeBackend{}
	// "Bound" to a non-loopback address, served on loopback for the test;
	// the listener's address is accepted as a Host too once Serve runs,
	// here through Options.Hosts.
	ts := httptest.NewUnstartedServer(nil)
	s, err := New(b, Options{Addr: "192.0.2.10:7070", Token: token, Hosts: []string{ts.Listener.Addr().String()}, UI: fstest.MapFS{"index.html": {Data: []byte("<h1>godwit</h1>")}}})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = s.Handler()
	ts.Start()
	defer ts.Close()

	tests := []struct {
		name   string
		hdr    []string
		status int
	}{
		{"no token", nil, 401},
		{"wrong token", []string{"Authorization", "Bearer nope"}, 401},
		{"token prefix", []string{"Authorization", "Bearer s3cret"}, 401},
		{"basic auth", []string{"Authorization", "Basic czNjcmV0LXRva2Vu"}, 401},
		{"right token", []string{"Authorization", "Bearer " + token}, 200},
		{"token as cookie value", []string{"Cookie", cookieName + "=" + token}, 401},
		{"forged cookie", []string{"Cookie", cookieName + "=0000"}, 401},
		{"session cookie", []string{"Cookie", cookieName + "=" + sessionValue(token)}, 200},
	}
	for _, tt := range tests {
		for _, path := range []string{"/api/status", "/", "/debug/pprof/", "/api/openapi.json"} {
			r := do(t, ts, "GET", path, "", tt.hdr...)
			if r.status != tt.status {
				t.Errorf("%s: GET %s = %d %s, want %d", tt.name, path, r.status, r.body, tt.status)
			}
			if r.status == 401 {
				if code := errorCode(t, r); code != "unauthorized" || r.header.Get("WWW-Authenticate") == "" {
					t.Errorf("%s: GET %s: code %q, WWW-Authenticate %q", tt.name, path, code, r.header.Get("WWW-Authenticate"))
				}
			}
		}
	}
	// Actions too, and nothing reaches the backend without the token.
	if r := do(t, ts, "POST", "/api/pause", ""); r.status != 401 {
		t.Errorf("POST /api/pause without token = %d", r.status)
	}
	if r := do(t, ts, "PUT", "/api/recrawl", `{"revisit_share":0.3}`); r.status != 401 {
		t.Errorf("PUT /api/recrawl without token = %d", r.status)
	}
	if calls := b.Calls(); len(calls) != 0 {
		t.Errorf("backend calls without token: %q", calls)
	}
	if r := do(t, ts, "POST", "/api/pause", "", "Authorization", "Bearer "+token); r.status != 204 {
		t.Errorf("POST /api/pause with token = %d %s", r.status, r.body)
	}
	if r := do(t, ts, "PUT", "/api/recrawl", `{"revisit_share":0.3}`, "Authorization", "Bearer "+token); r.status != 204 {
		t.Errorf("PUT /api/recrawl with token = %d %s", r.status, r.body)
	}
}

func TestCookieFlow(t *testing.T) {
	const token = "s3cret-token"
	ts, _ := newTestServer(t, &fakeBackend{}, Options{Token: token, UI: fstest.MapFS{"index.html": {Data: []byte("<h1>godwit</h1>")}}})

	if r := do(t, ts, "GET", "/?token=wrong", ""); r.status != 401 || r.header.Get("Set-Cookie") != "" {
		t.Errorf("GET /?token=wrong = %d, Set-Cookie %q; want 401 and no cookie", r.status, r.header.Get("Set-Cookie"))
	}
	// ?token= works on / only.
	if r := do(t, ts, "GET", "/api/status?token="+token, ""); r.status != 401 {
		t.Errorf("GET /api/status?token= = %d, want 401", r.status)
	}
	r := do(t, ts, "GET", "/?token="+token, "")
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/" {
		t.Fatalf("GET /?token= = %d, Location %q; want 303 to /", r.status, r.header.Get("Location"))
	}
	resp := http.Response{Header: r.header}
	cookies := resp.Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v, want one", cookies)
	}
	c := cookies[0]
	if c.Name != cookieName || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Value == token || c.MaxAge <= 0 {
		t.Errorf("cookie %+v: want %s, HttpOnly, SameSite=Strict, Path=/, not the token itself", c, cookieName)
	}
	for _, path := range []string{"/", "/api/status"} {
		if r := do(t, ts, "GET", path, "", "Cookie", c.String()); r.status != 200 {
			t.Errorf("GET %s with the cookie = %d %s", path, r.status, r.body)
		}
	}
	if r := do(t, ts, "POST", "/api/pause", "", "Cookie", c.String(), "Origin", ts.URL); r.status != 204 {
		t.Errorf("same-origin POST with the cookie = %d %s", r.status, r.body)
	}
	// A cookie for another token is worthless.
	if r := do(t, ts, "GET", "/api/status", "", "Cookie", cookieName+"="+sessionValue("other")); r.status != 401 {
		t.Errorf("cookie of another token = %d, want 401", r.status)
	}
}

func TestHostHeader(t *testing.T) {
	ts, _ := newTestServer(t, &fakeBackend{}, Options{})
	port := ts.Listener.Addr().(*net.TCPAddr).Port
	p := func(h string) string { return net.JoinHostPort(h, itoa(port)) }
	tests := []struct {
		host   string
		status int
	}{
		{p("127.0.0.1"), 200},
		{p("localhost"), 200},
		{p("LOCALHOST"), 200},
		{p("::1"), 200},
		{p("evil.test"), 403},
		{"evil.test", 403},
		{"localhost", 403},    // wrong port
		{p("127.0.0.2"), 403}, // another loopback address, still not ours
		{"127.0.0.1:1", 403},  // another port
		{p("localhost.evil.test"), 403},
	}
	for _, tt := range tests {
		for _, path := range []string{"/api/status", "/debug/pprof/", "/nothing"} {
			r := do(t, ts, "GET", path, "", "Host", tt.host)
			want := tt.status
			if path == "/nothing" && want == 200 {
				want = 404
			}
			if r.status != want {
				t.Errorf("GET %s, Host %q = %d %s, want %d", path, tt.host, r.status, r.body, want)
			}
			if r.status == 403 && errorCode(t, r) != "forbidden" {
				t.Errorf("GET %s, Host %q: not the forbidden envelope: %s", path, tt.host, r.body)
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestOrigin(t *testing.T) {
	b := &fakeBackend{}
	ts, _ := newTestServer(t, b, Options{})
	tests := []struct {
		method, path, body string
		hdr                []string
		status             int
	}{
		{"GET", "/api/status", "", []string{"Origin", "http://evil.test"}, 403},
		{"POST", "/api/pause", "", []string{"Origin", "http://evil.test"}, 403},
		{"POST", "/api/seeds", `{"urls":["http://a/"]}`, []string{"Origin", "http://evil.test"}, 403},
		{"POST", "/api/pause", "", []string{"Origin", "null"}, 403},
		{"PUT", "/api/recrawl", `{"revisit_share":0.3}`, []string{"Origin", "http://evil.test"}, 403},
		{"PUT", "/api/recrawl", `{"revisit_share":0.3}`, []string{"Origin", ts.URL, "Sec-Fetch-Site", "cross-site"}, 403},
		{"POST", "/api/pause", "", []string{"Origin", "https://" + ts.Listener.Addr().String()}, 403},
		{"GET", "/debug/pprof/", "", []string{"Origin", "http://evil.test"}, 403},
		{"POST", "/api/pause", "", []string{"Origin", ts.URL, "Sec-Fetch-Site", "cross-site"}, 403},
		{"POST", "/api/pause", "", []string{"Sec-Fetch-Site", "same-site"}, 403},
		{"GET", "/api/status", "", []string{"Origin", ts.URL}, 200},
		{"POST", "/api/pause", "", []string{"Origin", ts.URL, "Sec-Fetch-Site", "same-origin"}, 204},
		{"POST", "/api/resume", "", nil, 204},
	}
	for _, tt := range tests {
		r := do(t, ts, tt.method, tt.path, tt.body, tt.hdr...)
		if r.status != tt.status {
			t.Errorf("%s %s %q = %d %s, want %d", tt.method, tt.path, tt.hdr, r.status, r.body, tt.status)
		}
		if r.status == 403 && errorCode(t, r) != "forbidden" {
			t.Errorf("%s %s %q: not the forbidden envelope: %s", tt.method, tt.path, tt.hdr, r.body)
		}
	}
	if got, want := b.Calls(), []string{"Pause", "Resume"}; !slices.Equal(got, want) {
		t.Errorf("backend calls %q, want %q (refused requests must not reach it)", got, want)
	}
}

func TestPprof(t *testing.T) {
	ts, _ := newTestServer(t, &fakeBackend{}, Options{Token: "t"})
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/debug/pprof/heap", "/debug/pprof/cmdline"} {
		if r := do(t, ts, "GET", path, "", "Authorization", "Bearer t"); r.status != 200 {
			t.Errorf("GET %s with token = %d %.200s", path, r.status, r.body)
		}
		if r := do(t, ts, "GET", path, ""); r.status != 401 {
			t.Errorf("GET %s without token = %d", path, r.status)
		}
		if r := do(t, ts, "GET", path, "", "Authorization", "Bearer t", "Host", "evil.test:80"); r.status != 403 {
			t.Errorf("GET %s with token, Host evil.test = %d", path, r.status)
		}
	}
	if r := do(t, ts, "GET", "/debug/pprof/nosuch", "", "Authorization", "Bearer t"); r.status != 404 {
		t.Errorf("GET /debug/pprof/nosuch = %d", r.status)
	}
	// Never on the default mux through us.
	if _, p := http.DefaultServeMux.Handler(httptest.NewRequest("GET", "/api/status", nil)); p != "" {
		t.Errorf("DefaultServeMux serves /api/status (%s)", p)
	}
}

func TestDashboardAndMetrics(t *testing.T) {
	ui := fstest.MapFS{
		"index.html":  {Data: []byte("<!doctype html><h1>godwit</h1>")},
		"app.js":      {Data: []byte("console.log(1)")},
		"css/app.css": {Data: []byte("body{}")},
	}
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "godwit_pages_total 42\n") })
	ts, _ := newTestServer(t, &fakeBackend{}, Options{UI: ui, Metrics: metrics})
	tests := []struct {
		path   string
		status int
		has    string
		ctype  string
	}{
		{"/", 200, "<h1>godwit</h1>", "text/html"},
		{"/static/app.js", 200, "console.log", "javascript"},
		{"/static/css/app.css", 200, "body{}", "text/css"},
		{"/static/css", 404, "", ""},
		{"/static/", 404, "", ""},
		{"/static/nope.js", 404, "", ""},
		{"/static/../index.html", 404, "", ""},          // cleaned to /index.html: not a route
		{"/static/x/../app.js", 200, "console.log", ""}, // redirected to /static/app.js
		{"/metrics", 200, "godwit_pages_total 42", ""},
		{"/index.html", 404, "", ""},
	}
	for _, tt := range tests {
		r := do(t, ts, "GET", tt.path, "")
		if r.status/100 == 3 {
			r = do(t, ts, "GET", r.header.Get("Location"), "")
		}
		if r.status != tt.status || !strings.Contains(r.body, tt.has) || !strings.Contains(r.header.Get("Content-Type"), tt.ctype) {
			t.Errorf("GET %s = %d %q %q, want %d with %q, %q", tt.path, r.status, r.header.Get("Content-Type"), r.body, tt.status, tt.has, tt.ctype)
		}
	}
	if r := do(t, ts, "GET", "/", ""); !strings.Contains(r.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") || r.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("GET / headers %v: want a Content-Security-Policy and nosniff", r.header)
	}
	// Without a UI, / says so.
	ts2, _ := newTestServer(t, &fakeBackend{}, Options{})
	if r := do(t, ts2, "GET", "/", ""); r.status != 404 || !strings.Contains(r.body, "not built") {
		t.Errorf("GET / without UI = %d %q", r.status, r.body)
	}
}

func TestServe(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Addr says port 0; Serve learns the real one from the listener.
	s, err := New(&fakeBackend{}, Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + ln.Addr().String() + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /api/status = %d", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v after cancel, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("listener still open after Serve returned")
	}
}

func TestServeRefusesOpenListenerWithoutToken(t *testing.T) {
	// A listener that claims a non-loopback address.
	ln := fakeListener{addr: &net.TCPAddr{IP: net.ParseIP("192.0.2.1"), Port: 7070}}
	s, err := New(&fakeBackend{}, Options{Addr: "127.0.0.1:7070"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(context.Background(), ln); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("Serve on %v without token = %v, want an error about the token", ln.addr, err)
	}
}

type fakeListener struct{ addr net.Addr }

func (l fakeListener) Accept() (net.Conn, error) { return nil, net.ErrClosed }
func (l fakeListener) Close() error              { return nil }
func (l fakeListener) Addr() net.Addr            { return l.addr }

func TestAllowedHosts(t *testing.T) {
	tests := []struct {
		addr  string
		hosts []string
		host  string
		ok    bool
	}{
		{"127.0.0.1:7070", nil, "127.0.0.1:7070", true},
		{"127.0.0.1:7070", nil, "localhost:7070", true},
		{"127.0.0.1:7070", nil, "[::1]:7070", true},
		{"127.0.0.1:7070", nil, "127.0.0.1:7071", false},
		{"127.0.0.1:7070", nil, "127.0.0.1", false},
		{"192.0.2.10:7070", nil, "192.0.2.10:7070", true},
		{"192.0.2.10:7070", nil, "localhost:7070", true},
		{"192.0.2.10:7070", nil, "192.0.2.11:7070", false},
		{"192.0.2.10:7070", []string{"crawler.lan"}, "crawler.lan:7070", true},
		{"192.0.2.10:7070", []string{"crawler.lan"}, "CRAWLER.LAN:7070", true},
		{"192.0.2.10:7070", []string{"crawler.lan:80"}, "crawler.lan:80", true},
		{"192.0.2.10:7070", []string{"crawler.lan:80"}, "crawler.lan:7070", false},
		{"[2001:db8::1]:7070", nil, "[2001:db8::1]:7070", true},
		{"0.0.0.0:7070", nil, "127.0.0.1:7070", true}, // an interface address
		{"0.0.0.0:7070", nil, "0.0.0.0:7070", false},
		{"0.0.0.0:7070", nil, "evil.test:7070", false},
	}
	for _, tt := range tests {
		s, err := New(&fakeBackend{}, Options{Addr: tt.addr, Token: "t", Hosts: tt.hosts})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.hostAllowed(tt.host); got != tt.ok {
			t.Errorf("Addr %s, Hosts %q: hostAllowed(%q) = %v, want %v", tt.addr, tt.hosts, tt.host, got, tt.ok)
		}
	}
}
