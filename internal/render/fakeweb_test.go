package render

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// spaWeb is fakeweb's SPA shape served on loopback, and a Fetcher in the
// crawler's place that forwards to it (as a proxy), failing with
// ErrDisallowed the path the web's robots.txt disallows.
type spaWeb struct {
	web   *fakeweb.Web
	srv   *httptest.Server
	proxy *http.Client

	mu         sync.Mutex
	disallowed []string
}

func newSPAWeb(tb testing.TB, cfg fakeweb.Config) *spaWeb {
	tb.Helper()
	web, err := fakeweb.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(web.Handler())
	tb.Cleanup(srv.Close)
	tb.Cleanup(func() { _ = web.Close() })
	pu, _ := url.Parse(srv.URL)
	tr := &http.Transport{Proxy: http.ProxyURL(pu)}
	tb.Cleanup(tr.CloseIdleConnections)
	return &spaWeb{web: web, srv: srv, proxy: &http.Client{Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (s *spaWeb) get(ctx context.Context, method, rawURL string) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, rawURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.proxy.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

func (s *spaWeb) fetch(ctx context.Context, r Request) (*Response, error) {
	if u, err := url.Parse(r.URL); err == nil && u.Path == "/api/track" {
		s.mu.Lock()
		s.disallowed = append(s.disallowed, r.URL)
		s.mu.Unlock()
		return nil, ErrDisallowed
	}
	return s.get(ctx, r.Method, r.URL)
}

// page is the plain fetch of rawURL, as the crawler makes it first.
func (s *spaWeb) page(tb testing.TB, rawURL string) Page {
	tb.Helper()
	r, err := s.get(context.Background(), http.MethodGet, rawURL)
	if err != nil {
		tb.Fatal(err)
	}
	return Page{URL: rawURL, Status: r.Status, Header: r.Header, Body: r.Body}
}

// jsonLinks is the hrefs of a fakeweb SPA JSON, read without a request.
func (s *spaWeb) jsonLinks(t *testing.T, rawURL string) (links []string, more string) {
	t.Helper()
	body, ok := s.web.Page(rawURL)
	if !ok {
		t.Fatalf("fakeweb has no %s", rawURL)
	}
	var d struct {
		Links []struct{ Href string } `json:"links"`
		More  string                  `json:"more"`
	}
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	for _, l := range d.Links {
		links = append(links, l.Href)
	}
	return links, d.More
}

// TestRenderFakewebSPA renders two pages of fakeweb's SPA shape with the
// real browser: the links the script builds from the JSON, and on the
// home page those it loads only when scrolled, are in the result, with
// the script's text; /api/track, which the host's robots.txt disallows,
// is failed to the browser and never reaches the web; and the web saw no
// request that no page made (no favicon, nothing off the site).
func TestRenderFakewebSPA(t *testing.T) {
	cfg := testConfig(t)
	w := newSPAWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 10, SPA: true})
	robots, err := w.get(t.Context(), http.MethodGet, "http://h0.fake.test/robots.txt")
	if err != nil || !strings.Contains(string(robots.Body), "Disallow: /api/track\n") {
		t.Fatalf("robots.txt does not disallow /api/track: %v\n%s", err, robots.Body)
	}
	p := New(cfg)
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	for _, tt := range []struct {
		path   string
		scroll bool
	}{{"/", true}, {"/p/1", false}} {
		n := strings.TrimPrefix(tt.path, "/p/")
		if tt.path == "/" {
			n = "0"
		}
		first, more := w.jsonLinks(t, "http://h0.fake.test/api/page/"+n+".json")
		if (more != "") != tt.scroll {
			t.Fatalf("%s: more = %q", tt.path, more)
		}
		want := first
		if more != "" {
			scrolled, _ := w.jsonLinks(t, "http://h0.fake.test"+more)
			if len(scrolled) == 0 {
				t.Fatalf("%s: nothing loads on scroll", tt.path)
			}
			want = append(slices.Clone(first), scrolled...)
		}
		pg := w.page(t, "http://h0.fake.test"+tt.path)
		if strings.Contains(string(pg.Body), "<a ") {
			t.Fatalf("%s is not a shell:\n%s", tt.path, pg.Body)
		}
		res, err := p.Render(context.Background(), pg, w.fetch)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range want {
			if !slices.Contains(res.Links, l) {
				t.Errorf("%s: rendered links %q lack %s", tt.path, res.Links, l)
			}
		}
		if !strings.Contains(res.HTML, "Rendered by script:") {
			t.Errorf("%s: rendered DOM lacks the script's text:\n%s", tt.path, res.HTML)
		}
		if res.Disallowed != 1 {
			t.Errorf("%s: disallowed = %d, want 1 (/api/track)", tt.path, res.Disallowed)
		}
	}
	w.mu.Lock()
	if len(w.disallowed) != 2 {
		t.Errorf("the Fetcher failed %q, want /api/track twice", w.disallowed)
	}
	w.mu.Unlock()
	rep := w.web.Report(fakeweb.Judge{})
	if rep.SPATrackRequests != 0 || rep.DisallowedRequests != 0 {
		t.Errorf("/api/track reached the web: %v", rep)
	}
	if rep.Unmade != 0 || rep.UnknownHostRequests != 0 {
		t.Errorf("the web saw requests no page made: %v", rep.UnmadeSample)
	}
	// robots.txt, two shells, the script (twice: nothing caches it here),
	// two page JSONs and the home page's scrolled JSON.
	if rep.Requests != 1+2+2+3 || rep.SPARequests != 5 {
		t.Errorf("requests %d (spa %d), want 8 (5)\n%v", rep.Requests, rep.SPARequests, rep)
	}
}
