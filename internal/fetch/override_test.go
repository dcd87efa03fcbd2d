package fetch_test

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/fetch"
)

func TestParseOverride(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want fetch.Override
	}{
		{"H1.Example:127.0.0.2", fetch.Override{Host: "h1.example", Addr: netip.MustParseAddr("127.0.0.2")}},
		{"h1.example:443:127.0.0.2", fetch.Override{Host: "h1.example", Port: 443, Addr: netip.MustParseAddr("127.0.0.2")}},
		{"h1.example:443:127.0.0.2:8443", fetch.Override{Host: "h1.example", Port: 443, Addr: netip.MustParseAddr("127.0.0.2"), ToPort: 8443}},
		{"h1.example:127.0.0.2:8443", fetch.Override{Host: "h1.example", Addr: netip.MustParseAddr("127.0.0.2"), ToPort: 8443}},
		{"h1.example:[::1]", fetch.Override{Host: "h1.example", Addr: netip.MustParseAddr("::1")}},
		{"h1.example:80:[::1]:8080", fetch.Override{Host: "h1.example", Port: 80, Addr: netip.MustParseAddr("::1"), ToPort: 8080}},
	} {
		got, err := fetch.ParseOverride(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseOverride(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		if again, err := fetch.ParseOverride(got.String()); err != nil || again != got {
			t.Errorf("ParseOverride(%q.String() = %q) = %+v, %v", tc.in, got.String(), again, err)
		}
	}
	for _, bad := range []string{"", "h1", "h1:", ":127.0.0.1", "h1:notanip", "h1:2001:db8::1", "h1:0:127.0.0.1", "h1:99999:127.0.0.1", "h1:127.0.0.1:0"} {
		if o, err := fetch.ParseOverride(bad); err == nil {
			t.Errorf("ParseOverride(%q) = %+v, want an error", bad, o)
		}
	}
}

// TestOverrideTLS fetches hosts of a fakeweb served over TLS on a second
// loopback address, reached only through overrides (the names do not
// resolve), trusted only through the web's own CA.
func TestOverrideTLS(t *testing.T) {
	web, err := fakeweb.New(fakeweb.Config{Hosts: 3, PagesPerHost: 3, HTTPS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	ca, err := fakeweb.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- web.ServeTLS(ctx, ln, ca.ServerConfig()) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	seeds := web.Seeds()
	var overrides []fetch.Override
	for _, s := range seeds {
		host := strings.TrimSuffix(strings.TrimPrefix(s, "https://"), "/")
		overrides = append(overrides, fetch.Override{Host: host, Port: 443, Addr: netip.MustParseAddr("127.0.0.2"), ToPort: port})
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca.CertPEM()) {
		t.Fatal("CA PEM not parsed")
	}
	newClient := func(roots *x509.CertPool, allowPrivate bool) *fetch.Client {
		c, err := fetch.New(fetch.Config{UserAgent: "godwit-test", AllowPrivate: allowPrivate, Overrides: overrides, RootCAs: roots})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	c := newClient(pool, true)
	for _, s := range seeds {
		resp, err := c.Fetch(ctx, fetch.Request{URL: s})
		if err != nil {
			t.Fatalf("Fetch(%s): %v", s, err)
		}
		if resp.Status != 200 || !strings.Contains(string(resp.Body), "https://") {
			t.Errorf("Fetch(%s) = %d, body without https links", s, resp.Status)
		}
	}
	got := map[string]bool{}
	for _, r := range web.Requests() {
		if r.Proxy {
			t.Errorf("fakeweb saw a proxy request %s", r.RawURL)
		}
		got[r.RawURL] = true
	}
	for _, s := range seeds {
		if !got[s] {
			t.Errorf("fakeweb did not see %s as an origin request; saw %v", s, got)
		}
	}

	// Without the CA the certificate is not trusted; without AllowPrivate
	// the overridden loopback address is refused before connecting.
	if _, err := newClient(nil, true).Fetch(ctx, fetch.Request{URL: seeds[0]}); err == nil {
		t.Error("fetch without the fakeweb CA succeeded")
	} else if ua := new(x509.UnknownAuthorityError); !errors.As(err, ua) {
		t.Errorf("fetch without the CA: %v, want an unknown authority error", err)
	}
	before := len(web.Requests())
	if _, err := newClient(pool, false).Fetch(ctx, fetch.Request{URL: seeds[0]}); !errors.Is(err, fetch.ErrForbiddenAddress) {
		t.Errorf("fetch of an overridden loopback address without AllowPrivate: %v, want refused", err)
	}
	if n := len(web.Requests()); n != before {
		t.Errorf("the guarded client reached fakeweb (%d requests, was %d)", n, before)
	}
}
