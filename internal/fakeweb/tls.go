package fakeweb

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"strings"
	"sync"
	"time"
)

// CA is a certificate authority made at run time for serving the web over
// HTTPS: no key is ever checked in. Crawlers trust it through its PEM
// certificate (godwit --ca-cert). It signs one leaf certificate per host
// name, on first use, for the name the client asks for by SNI.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte

	mu     sync.Mutex
	leaves map[string]*tls.Certificate
}

// NewCA makes a fresh CA, valid from an hour ago for a day.
func NewCA() (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("fakeweb: ca: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "fakeweb test CA", Organization: []string{"godwit fakeweb"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("fakeweb: ca: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("fakeweb: ca: %w", err)
	}
	return &CA{
		cert:   cert,
		key:    key,
		pem:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		leaves: map[string]*tls.Certificate{},
	}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n
}

// CertPEM is the CA certificate in PEM form, for a crawler's trust store.
func (ca *CA) CertPEM() []byte { return ca.pem }

// Leaf returns a certificate for name signed by the CA, valid from an hour
// ago for a day; IP literals get an IP SAN. Leaves are cached per name.
func (ca *CA) Leaf(name string) (*tls.Certificate, error) {
	name = strings.ToLower(name)
	ca.mu.Lock()
	defer ca.mu.Unlock()
	if c, ok := ca.leaves[name]; ok {
		return c, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(name); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{name}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	ca.leaves[name] = c
	return c, nil
}

// ServerConfig is a TLS configuration that answers every SNI name with a
// leaf for that name (a client without SNI gets one for "localhost") and
// offers HTTP/2 and HTTP/1.1 by ALPN.
func (ca *CA) ServerConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2", "http/1.1"},
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			name := hello.ServerName
			if name == "" {
				name = "localhost"
			}
			return ca.Leaf(name)
		},
	}
}

// TLSConfig is ca.ServerConfig with the web's BadTLS hosts answered by
// their bad certificates; serve the web with it (ServeTLS).
func (w *Web) TLSConfig(ca *CA) *tls.Config {
	cfg := ca.ServerConfig()
	if len(w.cfg.BadTLS) == 0 {
		return cfg
	}
	good := cfg.GetCertificate
	cfg.GetCertificate = func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		if h, ok := w.lookupHost(hello.ServerName); ok {
			if f := w.cfg.BadTLS[h]; f != 0 {
				return ca.badLeaf(strings.ToLower(hello.ServerName), f)
			}
		}
		return good(hello)
	}
	return cfg
}

// badLeaf returns a certificate for name with fault f, made on first use.
func (ca *CA) badLeaf(name string, f TLSFault) (*tls.Certificate, error) {
	key := f.String() + "/" + name
	ca.mu.Lock()
	defer ca.mu.Unlock()
	if c, ok := ca.leaves[key]; ok {
		return c, nil
	}
	now := time.Now()
	notBefore, notAfter := now.Add(-time.Hour), now.Add(24*time.Hour)
	signer, signerKey := ca.cert, ca.key
	switch f {
	case TLSExpired:
		notBefore, notAfter = now.Add(-48*time.Hour), now.Add(-24*time.Hour)
	case TLSWrongName:
		name = "wrong-name.invalid"
	case TLSUnknownCA:
		other, err := NewCA()
		if err != nil {
			return nil, err
		}
		signer, signerKey = other.cert, other.key
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{name},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &leafKey.PublicKey, signerKey)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: leafKey}
	ca.leaves[key] = c
	return c, nil
}

// scheme is what the web's absolute URLs start with.
func (w *Web) scheme() string {
	if w.cfg.HTTPS {
		return "https://"
	}
	return "http://"
}

// defaultPort is the scheme's default port spelled out (":80" or ":443"),
// for links that name it.
func (w *Web) defaultPort() string {
	if w.cfg.HTTPS {
		return ":443"
	}
	return ":80"
}
