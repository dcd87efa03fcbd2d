package fakeweb_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

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

func mustParse(t *testing.T, rawURL string) *url.URL {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
