package fakeweb_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// hostileConfig is a small hostile web with short delays and no storm.
func hostileConfig() fakeweb.Config {
	return fakeweb.Config{
		Hosts: 3, PagesPerHost: 6, LinksPerPage: 3, PageSize: 500, Seed: 5, Hostile: true,
		HostileConfig: fakeweb.HostileConfig{
			SlowDelay: 150 * time.Millisecond, DripInterval: 10 * time.Millisecond, DripFor: 200 * time.Millisecond,
			RetryAfter: time.Second, StormHost: -1,
		},
	}
}

// rawGet sends a GET with the given headers; the caller reads and closes
// the body. Accept-Encoding is set, so the transport decompresses nothing.
func rawGet(t *testing.T, ctx context.Context, c *http.Client, rawURL string, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	return resp
}

// hrefs returns the href and src attributes an HTML5 tokenizer finds.
func hrefs(body []byte) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		for _, a := range z.Token().Attr {
			if a.Key == "href" || a.Key == "src" {
				out = append(out, a.Val)
			}
		}
	}
	return out
}

func TestHostileHomeLinks(t *testing.T) {
	cfg := hostileConfig()
	cfg.HostileConfig.Every = 2
	tw := startWeb(t, cfg)
	home := hrefs(get(t, tw.proxy, "http://h0.fake.test/").body)
	for _, p := range []string{"/x/slow", "/x/hang", "/x/drip", "/x/big", "/x/bomb.html.gz", "/x/bomb.html.zst",
		"/x/retry/429", "/x/retry/503", "/x/retry/429-bare", "/x/retry/503-bare", "/x/chain/0", "/x/loop/a",
		"/x/loop/self", "/x/cross", "/x/relative", "/x/status/404", "/x/status/410", "/x/status/500",
		"/x/files/report.pdf", "/x/files/image.png", "/x/files/data.json", "/x/files/notes.txt", "/x/files/untyped",
		"/x/cs/latin1-http", "/x/cs/latin1-meta", "/x/cs/sjis-http", "/x/cs/sjis-meta", "/x/malformed"} {
		if !slices.Contains(home, p) {
			t.Errorf("the home page of hostile h0 has no link to %s", p)
		}
	}
	// h1 is not hostile (Every 2), but h0's /x/cross lands there.
	if home := hrefs(get(t, tw.proxy, "http://h1.fake.test/").body); slices.ContainsFunc(home, func(s string) bool {
		return strings.HasPrefix(s, "/x/")
	}) {
		t.Errorf("the home page of h1, not hostile, links to hostile resources: %q", home)
	}
	for _, c := range []struct {
		url  string
		want int
	}{{"http://h1.fake.test/x/slow", 404}, {"http://h1.fake.test/x/landing", 200}, {"http://h2.fake.test/x/slow", 200}} {
		if r := get(t, tw.proxy, c.url); r.status != c.want {
			t.Errorf("GET %s = %d, want %d", c.url, r.status, c.want)
		}
	}
}

func TestHostileServed(t *testing.T) {
	tw := startWeb(t, hostileConfig())
	const base = "http://h0.fake.test"
	tests := []struct {
		path     string
		status   int
		header   map[string]string // "" means absent
		contains []string
	}{
		{"/x/slow-next", 200, map[string]string{"Content-Type": "text/html; charset=utf-8"}, []string{`href="/"`}},
		{"/x/big-next", 200, nil, nil},
		{"/x/big-tail", 200, nil, nil},
		{"/x/chain/0", 301, map[string]string{"Location": base + "/x/chain/1"}, nil},
		{"/x/chain/1", 302, map[string]string{"Location": "/x/chain/2"}, nil},
		{"/x/chain/2", 308, map[string]string{"Location": base + "/x/chain/end"}, nil},
		{"/x/chain/end", 200, nil, nil},
		{"/x/loop/a", 302, map[string]string{"Location": base + "/x/loop/b"}, nil},
		{"/x/loop/b", 302, map[string]string{"Location": base + "/x/loop/a"}, nil},
		{"/x/loop/self", 301, map[string]string{"Location": base + "/x/loop/self"}, nil},
		{"/x/cross", 301, map[string]string{"Location": "http://h1.fake.test/x/landing"}, nil},
		{"/x/relative", 307, map[string]string{"Location": "relative-end"}, nil},
		{"/x/relative-end", 200, nil, nil},
		{"/x/status/404", 404, nil, nil},
		{"/x/status/410", 410, nil, nil},
		{"/x/status/500", 500, nil, nil},
		{"/x/files/report.pdf", 200, map[string]string{"Content-Type": "application/pdf"}, []string{"%PDF-", "http://h0.fake.test/never-follow-me"}},
		{"/x/files/image.png", 200, map[string]string{"Content-Type": "image/png"}, []string{"\x89PNG\r\n"}},
		{"/x/files/data.json", 200, map[string]string{"Content-Type": "application/json"}, []string{"http://h0.fake.test/never-follow-me"}},
		{"/x/files/notes.txt", 200, map[string]string{"Content-Type": "text/plain; charset=utf-8"}, []string{"http://h0.fake.test/never-follow-me"}},
		{"/x/files/untyped", 200, map[string]string{"Content-Type": ""}, []string{"<!DOCTYPE html>", `href="/x/sniffed"`}},
		{"/x/sniffed", 200, nil, nil},
		{"/x/mal/2", 200, nil, nil},
		{"/x/never-follow-me", 404, nil, nil},
	}
	for _, tt := range tests {
		r := get(t, tw.proxy, base+tt.path)
		if r.status != tt.status {
			t.Errorf("GET %s = %d, want %d", tt.path, r.status, tt.status)
		}
		for k, v := range tt.header {
			if got, ok := r.header[k]; v == "" && ok || v != "" && r.header.Get(k) != v {
				t.Errorf("GET %s: %s = %q, want %q", tt.path, k, got, v)
			}
		}
		for _, s := range tt.contains {
			if !bytes.Contains(r.body, []byte(s)) {
				t.Errorf("GET %s: body lacks %q", tt.path, s)
			}
		}
	}
	// Fetched once each, none of them breaks a rule but the 404 and the
	// big page's tail, which no correct crawl asks for.
	rep := tw.web.Report(fakeweb.Judge{})
	if rep.OutOfTruth != 2 || rep.Hostile["loop-self"] != 1 || rep.Hostile["status-500"] != 1 {
		t.Errorf("judged:\n%v", rep)
	}
}

func TestHostileSlow(t *testing.T) {
	tw := startWeb(t, hostileConfig())
	start := time.Now()
	r := get(t, tw.proxy, "http://h0.fake.test/x/slow")
	if d := time.Since(start); d < 150*time.Millisecond || d > 10*time.Second {
		t.Errorf("GET /x/slow took %v, want about 150ms", d)
	}
	if r.status != 200 || !slices.Contains(hrefs(r.body), "/x/slow-next") {
		t.Errorf("GET /x/slow = %d, links %q", r.status, hrefs(r.body))
	}
}

func TestHostileHang(t *testing.T) {
	tw := startWeb(t, hostileConfig())
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := tryGet(ctx, tw.proxy, "http://h0.fake.test/x/hang"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("GET /x/hang: %v, want a timeout", err)
	}
	waitFor(t, func() bool { return !tw.web.Requests()[0].End.IsZero() })
	if q := tw.web.Requests()[0]; q.Status != 0 {
		t.Errorf("logged status %d for an unanswered request", q.Status)
	}
}

func TestHostileDrip(t *testing.T) {
	tw := startWeb(t, hostileConfig())
	start := time.Now()
	resp := rawGet(t, t.Context(), tw.proxy, "http://h0.fake.test/x/drip")
	defer resp.Body.Close()
	if d := time.Since(start); d > 5*time.Second || resp.StatusCode != 200 || resp.ContentLength != -1 {
		t.Errorf("headers after %v: %d, Content-Length %d; want at once, 200, none", d, resp.StatusCode, resp.ContentLength)
	}
	body, err := io.ReadAll(resp.Body)
	if d := time.Since(start); err != nil || d < 200*time.Millisecond {
		t.Fatalf("body read in %v: %v; want the body to last 200ms", d, err)
	}
	if n := bytes.Count(body, []byte("tide ")); n < 3 || !bytes.HasSuffix(body, []byte("</html>\n")) {
		t.Errorf("drip sent %d pieces in %q", n, body)
	}
}

func TestHostileBig(t *testing.T) {
	tw := startWeb(t, hostileConfig())
	resp := rawGet(t, t.Context(), tw.proxy, "http://h0.fake.test/x/big")
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 || resp.ContentLength != 20_000_000 || len(body) != 20_000_000 {
		t.Fatalf("GET /x/big = %d, Content-Length %d, %d bytes, %v", resp.StatusCode, resp.ContentLength, len(body), err)
	}
	if !bytes.Contains(body[:1024], []byte(`href="/x/big-next"`)) {
		t.Errorf("the first KB lacks the link to /x/big-next: %q", body[:1024])
	}
	if i := bytes.Index(body, []byte(`href="/x/big-tail"`)); i < 10<<20 {
		t.Errorf("the link to /x/big-tail is at %d, want past 10 MiB", i)
	}
	got := hrefs(body)
	if want := []string{"/x/big-next", "/", "/x/big-tail"}; !slices.Equal(got, want) {
		t.Errorf("links %q, want %q", got, want)
	}
}

func TestHostileGzipBomb(t *testing.T) {
	tw := startWeb(t, hostileConfig())
	resp := rawGet(t, t.Context(), tw.proxy, "http://h0.fake.test/x/bomb.html.gz")
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" ||
		int64(len(body)) != resp.ContentLength || len(body) > 2<<20 || len(body) < 500<<10 {
		t.Fatalf("GET bomb = %d, %q, Content-Length %d, %d bytes, %v", resp.StatusCode, resp.Header.Get("Content-Encoding"),
			resp.ContentLength, len(body), err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	prefix, err := io.ReadAll(io.LimitReader(zr, 3<<20))
	if err != nil || len(prefix) != 3<<20 || !bytes.HasPrefix(prefix, []byte("<!DOCTYPE html>")) {
		t.Errorf("decompressed %d bytes (%v) starting %q", len(prefix), err, prefix[:min(len(prefix), 20)])
	}
}

func TestHostileRetryAfter(t *testing.T) {
	tw := startWeb(t, hostileConfig())
	const u = "http://h0.fake.test/x/retry/429"

	// Back at once: 200, but a violation.
	get(t, tw.proxy, "http://h0.fake.test/robots.txt")
	r := get(t, tw.proxy, u)
	if r.status != 429 || r.header.Get("Retry-After") != "1" {
		t.Fatalf("GET %s = %d, Retry-After %q; want 429, 1", u, r.status, r.header.Get("Retry-After"))
	}
	if r := get(t, tw.proxy, u); r.status != 200 {
		t.Fatalf("second GET %s = %d, want 200", u, r.status)
	}
	rep := tw.web.Report(fakeweb.Judge{})
	if rep.RetryAfterViolations != 1 || rep.RetryAfterSent != 1 || rep.Duplicates != 0 || rep.OK() ||
		len(rep.Violations) != 1 || rep.Violations[0].Kind != fakeweb.ViolationRetryAfter {
		t.Errorf("back at once judged:\n%v", rep)
	}

	// An HTTP-date, waited for: no violation, robots.txt included.
	tw.web.Reset()
	get(t, tw.proxy, "http://h0.fake.test/robots.txt")
	const d = "http://h0.fake.test/x/retry/503"
	r = get(t, tw.proxy, d)
	sent := time.Now()
	date, err := http.ParseTime(r.header.Get("Retry-After"))
	if r.status != 503 || err != nil || date.Before(sent.Add(-time.Second)) || date.After(sent.Add(2*time.Second)) {
		t.Fatalf("GET %s = %d, Retry-After %q (%v)", d, r.status, r.header.Get("Retry-After"), err)
	}
	time.Sleep(time.Until(date) + 10*time.Millisecond)
	get(t, tw.proxy, "http://h0.fake.test/robots.txt")
	if r := get(t, tw.proxy, d); r.status != 200 {
		t.Fatalf("GET %s after the date = %d", d, r.status)
	}
	rep = tw.web.Report(fakeweb.Judge{})
	if rep.RetryAfterViolations != 0 || rep.RetryAfterSent != 1 || rep.Hostile["retry-503-date"] != 2 {
		t.Errorf("waiting judged:\n%v", rep)
	}

	// Without Retry-After there is nothing to wait for.
	tw.web.Reset()
	for _, c := range []struct {
		path   string
		status int
	}{{"/x/retry/429-bare", 429}, {"/x/retry/503-bare", 503}} {
		r := get(t, tw.proxy, "http://h0.fake.test"+c.path)
		if _, ok := r.header["Retry-After"]; r.status != c.status || ok {
			t.Errorf("GET %s = %d, Retry-After %q; want %d and none", c.path, r.status, r.header.Get("Retry-After"), c.status)
		}
		if r := get(t, tw.proxy, "http://h0.fake.test"+c.path); r.status != 200 {
			t.Errorf("second GET %s = %d, want 200", c.path, r.status)
		}
	}
	if rep := tw.web.Report(fakeweb.Judge{}); rep.RetryAfterSent != 0 || rep.RetryAfterViolations != 0 || rep.Duplicates != 0 {
		t.Errorf("bare retries judged:\n%v", rep)
	}
}

func TestHostileStorm(t *testing.T) {
	for _, withHeader := range []bool{false, true} {
		t.Run("retry-after="+strconv.FormatBool(withHeader), func(t *testing.T) {
			cfg := hostileConfig()
			cfg.HostileConfig.StormHost, cfg.HostileConfig.StormFor, cfg.HostileConfig.StormRetryAfter = 1, 300*time.Millisecond, withHeader
			tw := startWeb(t, cfg)
			const h = "http://h1.fake.test"
			if r := get(t, tw.proxy, h+"/robots.txt"); r.status != 200 {
				t.Errorf("robots.txt in the storm = %d, want 200", r.status)
			}
			r := get(t, tw.proxy, h+"/p/1")
			if want := map[bool]string{true: "1"}[withHeader]; r.status != 503 || r.header.Get("Retry-After") != want {
				t.Errorf("GET /p/1 in the storm = %d, Retry-After %q; want 503, %q", r.status, r.header.Get("Retry-After"), want)
			}
			if r := get(t, tw.proxy, "http://h0.fake.test/p/1"); r.status != 200 {
				t.Errorf("another host in the storm = %d", r.status)
			}
			time.Sleep(time.Second)
			if r := get(t, tw.proxy, h+"/p/1"); r.status != 200 {
				t.Errorf("GET /p/1 after the storm = %d, want 200", r.status)
			}
			rep := tw.web.Report(fakeweb.Judge{})
			if rep.Hostile["storm"] != 1 || rep.Duplicates != 0 || rep.RetryAfterViolations != 0 {
				t.Errorf("storm judged:\n%v", rep)
			}
		})
	}
}

func TestHostileConditional(t *testing.T) {
	cfg := hostileConfig()
	cfg.HostileConfig.Every = 2
	tw := startWeb(t, cfg)
	const u = "http://h0.fake.test/p/2"
	_, asked, notModified := checkConditional(t, tw.proxy, u)
	if r := get(t, tw.proxy, "http://h1.fake.test/p/2"); r.header.Get("ETag") != "" {
		t.Errorf("a page of h1, not hostile, has ETag %q", r.header.Get("ETag"))
	}
	rep := tw.web.Report(fakeweb.Judge{})
	if rep.ConditionalRequests != asked || rep.NotModified != notModified {
		t.Errorf("ConditionalRequests %d, NotModified %d; want %d, %d", rep.ConditionalRequests, rep.NotModified, asked, notModified)
	}
}

// whatwgQuery percent-encodes a query already encoded in the document's
// charset, as the WHATWG URL standard does (the special-query set).
func whatwgQuery(b string) string {
	var s strings.Builder
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c < 0x21 || c > 0x7e || strings.IndexByte("\"#<>'", c) >= 0 {
			s.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
		} else {
			s.WriteByte(c)
		}
	}
	return s.String()
}

func TestHostileCharsets(t *testing.T) {
	tw := startWeb(t, hostileConfig())
	const base = "http://h0.fake.test/x/cs/"
	latin, sjis := charmap.Windows1252, japanese.ShiftJIS
	tests := []struct {
		page, contentType, declared string
		enc                         encoding.Encoding
		path, query                 string // UTF-8
	}{
		{"latin1-http", "text/html; charset=ISO-8859-1", "", latin, "café", "crème"},
		{"latin1-meta", "text/html", `<meta charset="iso-8859-1">`, latin, "naïve", "über"},
		{"sjis-http", "text/html; charset=Shift_JIS", "", sjis, "東京", "大阪"},
		{"sjis-meta", "text/html", `<meta http-equiv="Content-Type" content="text/html; charset=shift_jis">`, sjis, "日本語", "京都"},
	}
	enc := func(e encoding.Encoding, s string) string {
		b, err := e.NewEncoder().String(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			r := get(t, tw.proxy, base+tt.page)
			if r.status != 200 || r.header.Get("Content-Type") != tt.contentType || !bytes.Contains(r.body, []byte(tt.declared)) {
				t.Errorf("GET %s = %d, %q; want 200, %q, declared by %q", tt.page, r.status, r.header.Get("Content-Type"), tt.contentType, tt.declared)
			}
			queryBytes := enc(tt.enc, tt.query)
			if bytes.Contains(r.body, []byte(tt.path)) || !bytes.Contains(r.body, []byte("/"+enc(tt.enc, tt.path)+`"`)) ||
				!bytes.Contains(r.body, []byte("q="+queryBytes+`"`)) {
				t.Errorf("GET %s: the links are not written in the page's charset: %q", tt.page, r.body)
			}
			pathOK := base + tt.page + "/" + url.PathEscape(tt.path)
			queryOK := base + tt.page + "/q?q=" + whatwgQuery(queryBytes)
			for _, c := range []struct {
				url  string
				want int
			}{
				{pathOK, 200},
				{queryOK, 200},
				{strings.ToLower(queryOK), 200},
				{base + tt.page + "/" + whatwgQuery(enc(tt.enc, tt.path)), 404}, // the path in the page's charset
				{base + tt.page + "/q?q=" + url.QueryEscape(tt.query), 404},     // the query in UTF-8
				{base + tt.page + "/q", 404},
				{queryOK + "x", 404},
			} {
				if r := get(t, tw.proxy, c.url); r.status != c.want {
					t.Errorf("GET %s = %d, want %d", c.url, r.status, c.want)
				}
			}
			id1, _ := tw.web.Identity(queryOK)
			id2, _ := tw.web.Identity(base + tt.page + "/q?q=" + url.QueryEscape(tt.query))
			if id1 == id2 || !strings.HasSuffix(id1, "/q?q="+whatwgQuery(queryBytes)) {
				t.Errorf("Identity(%s) = %q, Identity of a misspelling %q", queryOK, id1, id2)
			}
		})
	}
	rep := tw.web.Report(fakeweb.Judge{})
	if rep.CharsetLinks != 3*8 || rep.CharsetLinksFetched != 8 || rep.OutOfTruth != 4*2 {
		t.Errorf("charset links %d/%d, want 8 fetched of 24; %d out of truth, want 8 (a path and a query per page):\n%v",
			rep.CharsetLinksFetched, rep.CharsetLinks, rep.OutOfTruth, rep)
	}
}

func TestHostileMalformed(t *testing.T) {
	tw := startWeb(t, hostileConfig())
	r := get(t, tw.proxy, "http://h0.fake.test/x/malformed")
	got := hrefs(r.body)
	for _, want := range []string{"/x/mal/0", "/x/mal/1", "/x/mal/2"} {
		if !slices.Contains(got, want) {
			t.Errorf("a tokenizer finds %q in the malformed page, not %s", got, want)
		}
	}
	if slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "never") }) || !bytes.Contains(r.body, []byte{0}) {
		t.Errorf("malformed page: links %q", got)
	}
}

// TestHostileCloseEndsStreams leaves a hanging request, a drip and a big
// page nobody reads in flight and closes the web: all must end, and
// TestMain's leak check sees that their handlers did.
func TestHostileCloseEndsStreams(t *testing.T) {
	cfg := hostileConfig()
	cfg.HostileConfig.DripFor = time.Hour
	tw := startWeb(t, cfg)
	_, hang := startHanging(t, tw, "http://h0.fake.test/x/hang")
	_, drip := startHanging(t, tw, "http://h0.fake.test/x/drip")
	big := rawGet(t, t.Context(), tw.proxy, "http://h1.fake.test/x/big")
	defer big.Body.Close()
	time.Sleep(100 * time.Millisecond) // the socket buffers fill
	if err := tw.web.Close(); err != nil {
		t.Fatal(err)
	}
	for name, done := range map[string]<-chan error{"hang": hang, "drip": drip} {
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s ended without an error after Close", name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s still in flight 10s after Close", name)
		}
	}
	n, err := io.Copy(io.Discard, big.Body)
	if err == nil || n >= 20_000_000 {
		t.Errorf("the big page went on after Close: %d bytes, %v", n, err)
	}
}

// TestHostileRetriesJudged checks which retries the judge forgives: a
// hang's and a drip's (timeouts), a 500's; not a big page's.
func TestHostileRetriesJudged(t *testing.T) {
	cfg := hostileConfig()
	cfg.HostileConfig.DripFor = 20 * time.Millisecond
	tw := startWeb(t, cfg)
	get(t, tw.proxy, "http://h0.fake.test/robots.txt")
	for range 2 {
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		_, err := tryGet(ctx, tw.proxy, "http://h0.fake.test/x/hang")
		cancel()
		if err == nil {
			t.Fatal("GET /x/hang answered")
		}
		waitFor(t, func() bool { return !tw.web.Requests()[len(tw.web.Requests())-1].End.IsZero() })
		for _, p := range []string{"/x/drip", "/x/status/500"} {
			get(t, tw.proxy, "http://h0.fake.test"+p)
		}
	}
	rep := tw.web.Report(fakeweb.Judge{})
	if !rep.OK() || rep.Hostile["hang"] != 2 || rep.Hostile["drip"] != 2 || rep.Hostile["status-500"] != 2 {
		t.Errorf("forgivable retries judged:\n%v", rep)
	}
	resp := rawGet(t, t.Context(), tw.proxy, "http://h0.fake.test/x/big")
	resp.Body.Close()
	resp = rawGet(t, t.Context(), tw.proxy, "http://h0.fake.test/x/big")
	resp.Body.Close()
	if rep := tw.web.Report(fakeweb.Judge{}); rep.Duplicates != 1 {
		t.Errorf("the big page fetched twice: %d duplicates, want 1", rep.Duplicates)
	}
}
