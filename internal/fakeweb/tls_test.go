package fakeweb_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestServeTLS: the web served over TLS answers HTTP/2 to a client that
// offers it and HTTP/1.1 to one that does not, with a certificate for the
// host's name signed by the web's CA, and logs https:// origin requests.
func TestServeTLS(t *testing.T) {
	web, err := fakeweb.New(fakeweb.Config{Hosts: 2, PagesPerHost: 2, HTTPS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	ca, err := fakeweb.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
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
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca.CertPEM()) {
		t.Fatal("CertPEM does not parse")
	}
	addr := ln.Addr().String()
	for _, tc := range []struct {
		h2    bool
		major int
	}{{true, 2}, {false, 1}} {
		tr := &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: roots},
			ForceAttemptHTTP2: tc.h2,
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			},
		}
		if !tc.h2 {
			tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
		resp, err := (&http.Client{Transport: tr}).Get(web.Seeds()[1])
		if err != nil {
			t.Fatalf("h2 %v: %v", tc.h2, err)
		}
		resp.Body.Close()
		tr.CloseIdleConnections()
		if resp.StatusCode != 200 || resp.ProtoMajor != tc.major {
			t.Errorf("h2 %v: %d over %s, want 200 over HTTP/%d", tc.h2, resp.StatusCode, resp.Proto, tc.major)
		}
		if name := resp.TLS.PeerCertificates[0].DNSNames; len(name) != 1 || name[0] != "h1.fake.test" {
			t.Errorf("certificate names %v, want h1.fake.test", name)
		}
	}
	reqs := web.Requests()
	if len(reqs) != 2 || reqs[0].RawURL != "https://h1.fake.test/" || reqs[0].Proxy {
		t.Errorf("log = %+v, want two origin requests for https://h1.fake.test/", reqs)
	}
}
