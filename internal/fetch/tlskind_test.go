package fetch

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testCA is a CA made in the test, and leaves it signs.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T) testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return testCA{cert, key}
}

func (ca testCA) leaf(t *testing.T, name string, notBefore, notAfter time.Time) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestTLSKind: real handshakes against servers with certificates made
// here, each failure named by TLSKind and classified.
func TestTLSKind(t *testing.T) {
	ca := newTestCA(t)
	now := time.Now()
	const name = "site.test"
	tlsServer := func(t *testing.T, cfg *tls.Config) string {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "ok")
		}))
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		srv.TLS = cfg
		srv.StartTLS()
		t.Cleanup(srv.Close)
		return srv.Listener.Addr().String()
	}
	withCert := func(c tls.Certificate) *tls.Config { return &tls.Config{Certificates: []tls.Certificate{c}} }
	good := ca.leaf(t, name, now.Add(-time.Hour), now.Add(time.Hour))

	tests := []struct {
		name  string
		addr  func(t *testing.T) string
		kind  string
		class Class
	}{
		{"trusted", func(t *testing.T) string { return tlsServer(t, withCert(good)) }, "", 0},
		{"expired", func(t *testing.T) string {
			return tlsServer(t, withCert(ca.leaf(t, name, now.Add(-48*time.Hour), now.Add(-24*time.Hour))))
		}, TLSExpired, Permanent},
		{"name mismatch", func(t *testing.T) string {
			return tlsServer(t, withCert(ca.leaf(t, "other.test", now.Add(-time.Hour), now.Add(time.Hour))))
		}, TLSNameMismatch, Permanent},
		{"unknown authority", func(t *testing.T) string {
			other := newTestCA(t)
			return tlsServer(t, withCert(other.leaf(t, name, now.Add(-time.Hour), now.Add(time.Hour))))
		}, TLSUnknownAuthority, Permanent},
		{"protocol version", func(t *testing.T) string {
			cfg := withCert(good)
			cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS10, tls.VersionTLS11 // we require 1.2
			return tlsServer(t, cfg)
		}, TLSProtocol, Permanent},
		{"not TLS", func(t *testing.T) string {
			return serve(t, func(w http.ResponseWriter, r *http.Request) {}).Listener.Addr().String()
		}, TLSProtocol, Permanent},
		{"handshake timeout", func(t *testing.T) string {
			// Accepts and reads, never answers the ClientHello.
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					go func() { io.Copy(io.Discard, c); c.Close() }()
				}
			}()
			return ln.Addr().String()
		}, TLSHandshakeTimeout, Transient},
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := tt.addr(t)
			_, port, _ := net.SplitHostPort(addr)
			o, err := ParseOverride(name + ":" + port + ":127.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			c := newTestClient(t, Config{AllowPrivate: true, RootCAs: pool, Overrides: []Override{o},
				TLSHandshakeTimeout: 200 * time.Millisecond})
			_, err = c.Fetch(context.Background(), Request{URL: "https://" + name + ":" + port + "/"})
			if tt.kind == "" {
				if err != nil {
					t.Fatalf("Fetch from a trusted server: %v", err)
				}
				return
			}
			if got := TLSKind(err); got != tt.kind {
				t.Errorf("TLSKind(%v) = %q, want %q", err, got, tt.kind)
			}
			if got := Classify(err); got != tt.class {
				t.Errorf("Classify(%v) = %v, want %v", err, got, tt.class)
			}
			if r := Reason(err); !strings.Contains(r, "TLS failed ("+tt.kind+")") {
				t.Errorf("Reason = %q, want it to name %s", r, tt.kind)
			}
			if got := ErrorKind(err); got != "tls-"+tt.kind {
				t.Errorf("ErrorKind(%v) = %q, want %q", err, got, "tls-"+tt.kind)
			}
			if got := ErrorIP(err); got != "127.0.0.1" {
				t.Errorf("ErrorIP(%v) = %q, want the server's 127.0.0.1", err, got)
			}
		})
	}
}

// TestTLSKindNotTLS: errors that are not TLS failures have no kind, and a
// connection closed in the middle of a handshake is the network's.
func TestTLSKindNotTLS(t *testing.T) {
	for _, err := range []error{
		nil,
		errors.New("something odd"),
		fmt.Errorf("%w: %w", errTLSHandshake, io.EOF),
		fmt.Errorf("fetch: get https://x/: %w", context.DeadlineExceeded),
	} {
		if k := TLSKind(err); k != "" {
			t.Errorf("TLSKind(%v) = %q, want none", err, k)
		}
	}
	if k := TLSKind(fmt.Errorf("get: %w", &net.OpError{Op: "remote error", Err: errors.New("tls: handshake failure")})); k != TLSProtocol {
		t.Errorf("a remote alert is %q, want %q", k, TLSProtocol)
	}
}

// TestErrorKind: requests that got no response, each named by ErrorKind
// (with the server's address where one was reached), and requests never
// sent named by nothing.
func TestErrorKind(t *testing.T) {
	listener := func(t *testing.T, handle func(net.Conn)) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go handle(c)
			}
		}()
		return ln.Addr().String()
	}
	tests := []struct {
		name string
		url  func(t *testing.T) string
		kind string
		ip   string
	}{
		{"refused", func(t *testing.T) string {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close() // nothing listens there now
			return "http://" + addr + "/"
		}, FailConnectionRefused, "127.0.0.1"},
		{"closed before the header", func(t *testing.T) string {
			return "http://" + listener(t, func(c net.Conn) {
				c.Read(make([]byte, 4096))
				c.Close()
			}) + "/"
		}, FailConnectionClosed, ""},
		{"timeout", func(t *testing.T) string {
			return "http://" + listener(t, func(c net.Conn) { io.Copy(io.Discard, c) }) + "/"
		}, FailTimeout, ""},
		{"not http", func(t *testing.T) string { return "ftp://127.0.0.1/" }, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, Config{AllowPrivate: true, Timeout: 300 * time.Millisecond})
			_, err := c.Fetch(context.Background(), Request{URL: tt.url(t)})
			if err == nil {
				t.Fatal("Fetch succeeded")
			}
			if got := ErrorKind(err); got != tt.kind {
				t.Errorf("ErrorKind(%v) = %q, want %q", err, got, tt.kind)
			}
			if tt.ip != "" {
				if got := ErrorIP(err); got != tt.ip {
					t.Errorf("ErrorIP(%v) = %q, want %q", err, got, tt.ip)
				}
			}
		})
	}
	// The SSRF guard's refusal: no request was sent.
	c := newTestClient(t, Config{})
	if _, err := c.Fetch(context.Background(), Request{URL: "http://127.0.0.1/"}); ErrorKind(err) != "" {
		t.Errorf("ErrorKind of the guard's refusal %v = %q, want none", err, ErrorKind(err))
	}
	for err, want := range map[error]string{
		nil: "",
		&net.DNSError{Err: "no such host", Name: "x.test", IsNotFound: true}: FailDNSNotFound,
		&net.DNSError{Err: "server misbehaving", Name: "x.test"}:             FailDNSFailure,
		fmt.Errorf("get: %w", syscall.ECONNRESET):                            FailConnectionReset,
		fmt.Errorf("get: %w", syscall.EHOSTUNREACH):                          FailHostUnreachable,
		errors.New("net/http: malformed HTTP response"):                      FailOther,
	} {
		if got := ErrorKind(err); got != want {
			t.Errorf("ErrorKind(%v) = %q, want %q", err, got, want)
		}
	}
}
