package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/render"
)

// TestSubCache: the requisite cache keeps 200 answers for subCacheTTL,
// refuses no-store and oversized bodies, and drops the least recently
// used entries past its byte bound.
func TestSubCache(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := newSubCache(func() time.Time { return now })
	ok := func(n int, header ...string) *render.Response {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Set(header[i], header[i+1])
		}
		return &render.Response{Status: http.StatusOK, Header: h, Body: make([]byte, n)}
	}
	c.put("http://a/app.js", ok(10))
	if c.get("http://a/app.js") == nil {
		t.Fatal("a 200 answer was not kept")
	}
	c.put("http://a/404", &render.Response{Status: http.StatusNotFound, Header: http.Header{}})
	c.put("http://a/private", ok(10, "Cache-Control", "private, No-Store"))
	c.put("http://a/huge", ok(subCacheEntry+1))
	for _, u := range []string{"http://a/404", "http://a/private", "http://a/huge"} {
		if c.get(u) != nil {
			t.Errorf("%s kept, want refused", u)
		}
	}
	now = now.Add(subCacheTTL + time.Second)
	if c.get("http://a/app.js") != nil {
		t.Error("an entry older than the TTL was answered")
	}
	if c.size != 0 || len(c.byURL) != 0 {
		t.Errorf("after expiry: size %d, %d entries; want none", c.size, len(c.byURL))
	}
	// Byte bound: 17 entries of a sixteenth each; the first, least
	// recently used, goes, except one touched since.
	for i := range 17 {
		c.put("http://a/"+string(rune('a'+i)), ok(subCacheEntry))
		if i == 1 {
			c.get("http://a/a") // a is now more recent than b
		}
	}
	if c.size > subCacheBytes {
		t.Errorf("size %d over the bound %d", c.size, subCacheBytes)
	}
	if c.get("http://a/a") == nil || c.get("http://a/b") != nil {
		t.Error("want the least recently used entry (b) dropped and a, used since, kept")
	}
}

// mapFetcher serves fixed responses by URL and counts the requests; it
// decodes as the real client does.
type mapFetcher struct {
	*fetch.Client
	resps    map[string]*fetch.Response
	requests map[string]int
}

func (f *mapFetcher) Fetch(_ context.Context, r fetch.Request) (*fetch.Response, error) {
	f.requests[r.URL]++
	resp, ok := f.resps[r.URL]
	if !ok {
		return nil, fmt.Errorf("mapFetcher: no %s", r.URL)
	}
	return resp, nil
}

// countArchive counts the records written and those without a body.
type countArchive struct {
	nop
	records, omitted int
}

func (a *countArchive) Record(_ context.Context, _ Task, _ *fetch.Response, d Decision) (Capture, error) {
	a.records++
	if d.OmitBody {
		a.omitted++
	}
	return Capture{}, nil
}

// TestPlainRequisitesCached: requisites the plain path fetched and
// archived whole answer a render's requests from the requisite cache,
// decoded, without a request or a record; those a browser would not be
// given from it (not 200, no-store, truncated, a frame's document, one
// archived without its body) are not kept, and a render asks the host
// for them (here: a Visitor that refuses every visit).
func TestPlainRequisitesCached(t *testing.T) {
	client, err := fetch.New(fetch.Config{UserAgent: "godwit-test"})
	if err != nil {
		t.Fatal(err)
	}
	const site = "http://a.test"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("body { margin: 0 }"))
	zw.Close()
	resp := func(status int, body []byte, header ...string) *fetch.Response {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Set(header[i], header[i+1])
		}
		return &fetch.Response{Status: status, Header: h, Body: body}
	}
	cut := resp(http.StatusOK, []byte("var a ="), "Content-Type", "text/javascript")
	cut.Truncated = fetch.TruncatedLength
	f := &mapFetcher{Client: client, requests: map[string]int{}, resps: map[string]*fetch.Response{
		site + "/site.css":      resp(http.StatusOK, gz.Bytes(), "Content-Type", "text/css", "Content-Encoding", "gzip"),
		site + "/app.js":        resp(http.StatusOK, []byte("run()"), "Content-Type", "text/javascript"),
		site + "/frame.html":    resp(http.StatusOK, []byte("<p>frame</p>"), "Content-Type", "text/html"),
		site + "/nostore.js":    resp(http.StatusOK, []byte("x()"), "Content-Type", "text/javascript", "Cache-Control", "no-store"),
		site + "/gone.png":      resp(http.StatusNotFound, []byte("gone"), "Content-Type", "text/plain"),
		site + "/cut.js":        cut,
		site + "/noarchive.png": resp(http.StatusOK, []byte("png"), "Content-Type", "image/png", "X-Robots-Tag", "noarchive"),
	}}
	arch := &countArchive{}
	c, err := New(Config{Render: Render{Mode: render.Auto}}, Deps{
		Frontier: visitNop{}, Fetcher: f, Archive: arch, Renderer: failRenderer{},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	page := Task{Link: Link{URL: site + "/", Host: "a.test"}}
	for u := range f.resps {
		req := Task{Link: Link{URL: u, Host: "a.test", Embed: 1, Via: page.URL}}
		if _, _, err := c.fetchPage(t.Context(), 0, req); err != nil {
			t.Fatal(err)
		}
	}
	if arch.records != len(f.resps) || arch.omitted != 1 {
		t.Fatalf("%d records (%d without a body), want %d (1)", arch.records, arch.omitted, len(f.resps))
	}

	sub := c.subFetcher(0, time.Time{}, page)
	for _, tc := range []struct {
		path, typ, body string // body "": not answered from the cache
	}{
		{"/site.css", "Stylesheet", "body { margin: 0 }"},
		{"/app.js", "Script", "run()"},
		{"/frame.html", "Document", ""},
		{"/frame.html", "XHR", ""},
		{"/nostore.js", "Script", ""},
		{"/gone.png", "Image", ""},
		{"/cut.js", "Script", ""},
		{"/noarchive.png", "Image", ""},
	} {
		got, err := sub(t.Context(), render.Request{URL: site + tc.path, Method: http.MethodGet, ResourceType: tc.typ})
		switch {
		case tc.body != "" && (err != nil || got.Status != http.StatusOK || string(got.Body) != tc.body):
			t.Errorf("%s (%s): %v, %v; want the plain fetch's answer, decoded: %q", tc.path, tc.typ, got, err, tc.body)
		case tc.body == "" && err == nil:
			t.Errorf("%s (%s) answered from the cache, want it asked of the host", tc.path, tc.typ)
		}
	}
	for u, n := range f.requests {
		if n != 1 {
			t.Errorf("%s requested %d times, want once (by the plain path)", u, n)
		}
	}
	if arch.records != len(f.resps) {
		t.Errorf("%d records after the render's requests, want %d: a cache answer is archived already", arch.records, len(f.resps))
	}
	if st := c.RenderStats(); st.Cached != 2 || st.SubRequests != 0 {
		t.Errorf("RenderStats = %+v, want 2 answered from the cache, none fetched", st)
	}
}

// TestRequisiteFetchedByRender: a requisite task whose URL a render
// fetched (the requisite cache holds it) is finished without a request
// or a record, a stylesheet read from the cached answer for its own
// requisites; a revisit, or a URL the cache does not hold, is not.
func TestRequisiteFetchedByRender(t *testing.T) {
	client, err := fetch.New(fetch.Config{UserAgent: "godwit-test"})
	if err != nil {
		t.Fatal(err)
	}
	f := &mapFetcher{Client: client, requests: map[string]int{}, resps: map[string]*fetch.Response{}}
	arch := &countArchive{}
	c, err := New(Config{Render: Render{Mode: render.Auto}}, Deps{
		Frontier: visitNop{}, Fetcher: f, Archive: arch, Renderer: failRenderer{},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddSeeds(t.Context(), []string{"http://a.test/"}); err != nil {
		t.Fatal(err)
	}
	// As a render's fetch puts it: decoded, the header as served.
	h := http.Header{"Content-Type": {"text/css"}, "Content-Encoding": {"gzip"}}
	c.subCache.put("http://a.test/site.css", &render.Response{Status: http.StatusOK, Header: h,
		Body: []byte(`@font-face { src: url(/font.woff2) }`)})

	css := Task{Link: Link{URL: "http://a.test/site.css", Host: "a.test", Embed: 1, Via: "http://a.test/"}}
	out, links, ok := c.requisiteFetched(t.Context(), css)
	if !ok || out.Disposition != Done || out.Requested || out.Reason != ReasonRenderFetched {
		t.Fatalf("requisiteFetched = %+v, %v; want done without a request", out, ok)
	}
	if len(links) != 1 || links[0].URL != "http://a.test/font.woff2" || links[0].Embed != 2 {
		t.Errorf("links %+v, want the stylesheet's font, a requisite", links)
	}
	if st := c.RenderStats(); st.Reused != 1 {
		t.Errorf("RenderStats.Reused = %d, want 1", st.Reused)
	}
	revisit := css
	revisit.Revisit = true
	other := Task{Link: Link{URL: "http://a.test/app.js", Host: "a.test", Embed: 1}}
	page := Task{Link: Link{URL: "http://a.test/site.css", Host: "a.test"}}
	for _, tk := range []Task{revisit, other, page} {
		if _, _, ok := c.requisiteFetched(t.Context(), tk); ok {
			t.Errorf("%+v finished without a request, want fetched", tk.Link)
		}
	}
	if len(f.requests) != 0 || arch.records != 0 {
		t.Errorf("%d requests, %d records; want none", len(f.requests), arch.records)
	}
}
