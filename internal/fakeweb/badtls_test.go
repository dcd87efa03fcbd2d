package fakeweb

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"testing"
	"time"
)

// TestBadTLS: BadTLS hosts are checked by Validate, answered with the
// certificate of their fault, and left out of the ground truth.
func TestBadTLS(t *testing.T) {
	for _, c := range []Config{
		{Hosts: 2, BadTLS: map[int]TLSFault{0: TLSExpired}},              // needs HTTPS
		{Hosts: 2, HTTPS: true, BadTLS: map[int]TLSFault{2: TLSExpired}}, // no host 2
		{Hosts: 2, HTTPS: true, BadTLS: map[int]TLSFault{0: 9}},
	} {
		c.Default()
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil", c.BadTLS)
		}
	}
	if f, err := ParseTLSFault("wrong-name"); err != nil || f != TLSWrongName {
		t.Errorf("ParseTLSFault = %v, %v", f, err)
	}

	web, err := New(Config{Hosts: 4, PagesPerHost: 3, HTTPS: true, CrossHostShare: -1,
		BadTLS: map[int]TLSFault{1: TLSExpired, 2: TLSWrongName, 3: TLSUnknownCA}})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	if r := web.Report(Judge{}); r.Reachable != 3 {
		t.Errorf("Reachable = %d, want host 0's 3 pages only", r.Reachable)
	}
	ca, err := NewCA()
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM())
	cfg := web.TLSConfig(ca)
	expired := func(err error) bool {
		var e x509.CertificateInvalidError
		return errors.As(err, &e) && e.Reason == x509.Expired
	}
	wrongName := func(err error) bool { var e x509.HostnameError; return errors.As(err, &e) }
	unknownCA := func(err error) bool { var e x509.UnknownAuthorityError; return errors.As(err, &e) }
	good := func(err error) bool { return err == nil }
	for host, ok := range map[string]func(error) bool{
		"h0.fake.test": good, "h1.fake.test": expired, "h2.fake.test": wrongName, "h3.fake.test": unknownCA,
	} {
		cert, err := cfg.GetCertificate(&tls.ClientHelloInfo{ServerName: host})
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := x509.ParseCertificate(cert.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots, CurrentTime: time.Now()}); !ok(err) {
			t.Errorf("%s: Verify = %v", host, err)
		}
	}
}
