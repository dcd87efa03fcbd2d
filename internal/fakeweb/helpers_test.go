package fakeweb_test

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// testWeb is a web served by an httptest.Server, with a client that uses
// it as a proxy and one that connects to it as the origin of every host.
type testWeb struct {
	web    *fakeweb.Web
	srv    *httptest.Server
	proxy  *http.Client
	origin *http.Client
}

func startWeb(t *testing.T, cfg fakeweb.Config) *testWeb {
	t.Helper()
	web, err := fakeweb.New(cfg)
	if err != nil {
		t.Fatalf("New(%+v) = %v", cfg, err)
	}
	srv := httptest.NewServer(web.Handler())
	t.Cleanup(srv.Close)
	// Before the server closes: release hanging handlers.
	t.Cleanup(func() { _ = web.Close() })

	proxyURL, _ := url.Parse(srv.URL)
	proxyTransport := &http.Transport{Proxy: http.ProxyURL(proxyURL)}
	var dialer net.Dialer
	originTransport := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, srv.Listener.Addr().String())
		},
	}
	t.Cleanup(proxyTransport.CloseIdleConnections)
	t.Cleanup(originTransport.CloseIdleConnections)
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &testWeb{
		web:    web,
		srv:    srv,
		proxy:  &http.Client{Transport: proxyTransport, CheckRedirect: noRedirect},
		origin: &http.Client{Transport: originTransport, CheckRedirect: noRedirect},
	}
}

type result struct {
	status int
	header http.Header
	body   []byte
}

// get fetches rawURL and fails the test on a transport error.
func get(t *testing.T, c *http.Client, rawURL string) result {
	t.Helper()
	res, err := tryGet(t.Context(), c, rawURL)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	return res
}

func tryGet(ctx context.Context, c *http.Client, rawURL string) (result, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return result{}, err
	}
	req.Header.Set("User-Agent", "godwit-test/1.0")
	resp, err := c.Do(req)
	if err != nil {
		return result{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return result{}, err
	}
	return result{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// startHanging requests rawURL in the background and returns once the web
// has logged the request; cancel ends it, and done reports its error.
func startHanging(t *testing.T, tw *testWeb, rawURL string) (cancel func(), done <-chan error) {
	t.Helper()
	before := len(tw.web.Requests())
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := tryGet(ctx, tw.proxy, rawURL)
		errc <- err
	}()
	waitFor(t, func() bool { return len(tw.web.Requests()) > before })
	return cancel, errc
}

// waitFor polls cond; the generous bound only stops a broken test.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met after 30s")
		}
	}
}

// startTags yields the name and attributes (the last of a repeated one)
// of each start or self-closing tag an HTML5 tokenizer finds in body, as
// a tokenizer-based crawler reads a page.
func startTags(body []byte) iter.Seq2[string, map[string]string] {
	return func(yield func(string, map[string]string) bool) {
		z := html.NewTokenizer(bytes.NewReader(body))
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
				continue
			}
			tok := z.Token()
			attrs := map[string]string{}
			for _, a := range tok.Attr {
				attrs[a.Key] = a.Val
			}
			if !yield(tok.Data, attrs) {
				return
			}
		}
	}
}

// checkConditional fetches u, which must answer 200 with an ETag and a
// Last-Modified, then asks for it again with each pair of conditional
// headers below: 304 with no body and the same ETag, or 200 with the
// same body as the first answer. It returns u's ETag, how many
// conditional requests it sent, and how many it wanted answered 304.
func checkConditional(t *testing.T, c *http.Client, u string) (etag string, asked, notModified int) {
	t.Helper()
	first := get(t, c, u)
	etag, lm := first.header.Get("ETag"), first.header.Get("Last-Modified")
	lmTime, err := http.ParseTime(lm)
	if first.status != 200 || etag == "" || err != nil {
		t.Fatalf("GET %s = %d, ETag %q, Last-Modified %q", u, first.status, etag, lm)
	}
	stamp := func(d time.Duration) string { return lmTime.Add(d).UTC().Format(http.TimeFormat) }
	tests := []struct {
		name string
		hdr  []string
		want int
	}{
		{"etag", []string{"If-None-Match", etag}, 304},
		{"weak etag", []string{"If-None-Match", "W/" + etag}, 304},
		{"etag in a list", []string{"If-None-Match", `"nope", ` + etag}, 304},
		{"star", []string{"If-None-Match", "*"}, 304},
		{"other etag", []string{"If-None-Match", `"nope"`}, 200},
		{"etag wins over a date", []string{"If-None-Match", `"nope"`, "If-Modified-Since", stamp(time.Hour)}, 200},
		{"etag wins over an old date", []string{"If-None-Match", etag, "If-Modified-Since", stamp(-time.Hour)}, 304},
		{"same date", []string{"If-Modified-Since", lm}, 304},
		{"later date", []string{"If-Modified-Since", stamp(time.Hour)}, 304},
		{"earlier date", []string{"If-Modified-Since", stamp(-time.Second)}, 200},
		{"bad date", []string{"If-Modified-Since", "yesterday"}, 200},
	}
	for _, tt := range tests {
		resp, body := fetchRaw(t, c, u, tt.hdr...)
		if resp.StatusCode != tt.want || tt.want == 304 && (len(body) != 0 || resp.Header.Get("ETag") != etag) ||
			tt.want == 200 && !bytes.Equal(body, first.body) {
			t.Errorf("%s: GET %s %q = %d (%d bytes, ETag %q), want %d", tt.name, u, tt.hdr, resp.StatusCode, len(body),
				resp.Header.Get("ETag"), tt.want)
		}
		if tt.want == 304 {
			notModified++
		}
	}
	return etag, len(tests), notModified
}

func mustParse(t *testing.T, rawURL string) *url.URL {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
