package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/netip"
	"os"

	"github.com/spf13/pflag"

	"github.com/godwit-crawler/godwit/internal/fetch"
)

// registerTransport adds the flags that decide where connections go and
// whom they trust, and how they speak: --resolve, --ca-cert, --http2.
func (f *crawlFlags) registerTransport(fs *pflag.FlagSet) {
	flagResolve.stringArrayVar(fs, &f.s.Resolve, nil)
	flagCACert.stringVar(fs, &f.s.CACert, "")
	flagHTTP2.stringVar(fs, &f.s.HTTP2, "off")
}

func (f *crawlFlags) applyTransport(fs *pflag.FlagSet, s *crawlSettings) {
	if fs.Changed(flagResolve.name) {
		s.Resolve = f.s.Resolve
	}
	if fs.Changed(flagCACert.name) {
		s.CACert = f.s.CACert
	}
	if fs.Changed(flagHTTP2.name) {
		s.HTTP2 = f.s.HTTP2
	}
}

// transport parses --resolve and loads --ca-cert: the fetch client's
// overrides, and its root pool (nil, the system's, without --ca-cert).
func (s crawlSettings) transport() ([]fetch.Override, *x509.CertPool, error) {
	var overrides []fetch.Override
	for _, r := range s.Resolve {
		o, err := fetch.ParseOverride(r)
		if err != nil {
			return nil, nil, fmt.Errorf("--resolve: %w", err)
		}
		overrides = append(overrides, o)
	}
	if s.CACert == "" {
		return overrides, nil, nil
	}
	pemBytes, err := os.ReadFile(s.CACert)
	if err != nil {
		return nil, nil, fmt.Errorf("--ca-cert: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool() // no system roots: trust only the file's
	}
	if !pool.AppendCertsFromPEM(pemBytes) {
		return nil, nil, fmt.Errorf("--ca-cert %s: no PEM certificate in it", s.CACert)
	}
	return overrides, pool, nil
}

// ipResolver is the frontier's address lookup for the IP budget: the
// fetch client's (its overrides and DNS cache). Through a proxy there is
// none: the crawler connects to the proxy, not to the hosts' addresses.
func ipResolver(c *fetch.Client) func(context.Context, string) ([]netip.Addr, error) {
	if c.Proxied() {
		return nil
	}
	return c.LookupHost
}
