package fetch

import (
	"cmp"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Defaults applied by Config.Default to zero fields.
const (
	DefaultTimeout               = 30 * time.Second
	DefaultDialTimeout           = 10 * time.Second
	DefaultTLSHandshakeTimeout   = 10 * time.Second
	DefaultResponseHeaderTimeout = 20 * time.Second
	DefaultMaxBodyBytes          = 10 << 20 // 10 MiB
	DefaultMaxIdleConnsPerHost   = 2
	DefaultDNSCacheTTL           = 5 * time.Minute
	DefaultDNSMinTTL             = 30 * time.Second
	DefaultDNSMaxTTL             = time.Hour
	DefaultDNSNegativeTTL        = time.Minute
	DefaultDNSCacheSize          = 100_000
	// DefaultDecodedFactor times MaxBodyBytes is the default MaxDecodedBytes.
	// A page is read up to 10 MiB on the wire and parsed up to 20 MiB of
	// decoded HTML: real pages that large are rare, and every worker may
	// hold one at a time, so this factor multiplies the crawl's worst-case
	// memory (docs/benchmarks.md, "hostile web").
	DefaultDecodedFactor = 2
)

// Config configures a Client. It is plain data: the zero value plus a
// UserAgent is usable, Default fills in zero fields, and Validate checks it.
// Only cmd/godwit reads flags, files and the environment; it fills ProxyEnv
// with ProxyEnvFrom(os.Getenv).
type Config struct {
	// UserAgent is sent with every request. Required.
	UserAgent string

	// Proxy is a forward proxy URL ("http://host:port"; https, socks5 and
	// socks5h proxies work too; "host:port" means http). When set, every
	// request goes through it and ProxyEnv is ignored.
	Proxy string
	// ProxyEnv selects a proxy per request the way
	// net/http.ProxyFromEnvironment does, from values the caller read from
	// the environment. Used only when Proxy is empty; its zero value means
	// "connect directly".
	ProxyEnv ProxyEnv

	// AllowPrivate turns the SSRF guard off: connections to loopback,
	// private, link-local and similar addresses are then allowed. Tests
	// and crawls of an intranet set it.
	AllowPrivate bool

	// Timeout bounds the whole fetch, body included. A body still arriving
	// at the deadline is cut and kept, with Response.Truncated "time".
	Timeout time.Duration
	// DialTimeout bounds one TCP connect.
	DialTimeout time.Duration
	// TLSHandshakeTimeout bounds one TLS handshake.
	TLSHandshakeTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for the response header after
	// the request was written.
	ResponseHeaderTimeout time.Duration

	// MaxBodyBytes caps the raw (still content-encoded) body kept per
	// response; beyond it the body is cut with Truncated "length".
	MaxBodyBytes int64
	// MaxDecodedBytes caps what Decode produces. Default
	// DefaultDecodedFactor × MaxBodyBytes.
	MaxDecodedBytes int64

	// MaxIdleConnsPerHost bounds the keep-alive connections kept per host.
	// Politeness means one request in flight per host, so few are needed.
	// Through an HTTP proxy, which net/http pools as one host for every
	// http:// URL, it does not apply (the cap over all hosts does).
	MaxIdleConnsPerHost int

	// Resolver answers the DNS cache's misses; nil means
	// net.DefaultResolver. Tests inject a fake.
	Resolver Resolver
	// DNSCacheTTL is how long an answer is kept when the Resolver does not
	// report a TTL (net.Resolver does not).
	DNSCacheTTL time.Duration
	// DNSMinTTL and DNSMaxTTL clamp the TTLs a TTLResolver reports.
	DNSMinTTL, DNSMaxTTL time.Duration
	// DNSNegativeTTL is how long "no such host" is kept. Other failures
	// (timeouts, SERVFAIL) are not cached.
	DNSNegativeTTL time.Duration
	// DNSCacheSize bounds the number of host names cached (about 200
	// bytes each); when full, the entry inserted longest ago goes.
	DNSCacheSize int

	// Overrides send the connections of some host names to fixed
	// addresses instead of asking DNS (curl's --resolve). The SSRF guard
	// still applies to the fixed address.
	Overrides []Override
	// HTTP2 offers HTTP/2 ("h2") besides HTTP/1.1 by ALPN on TLS
	// connections; a server that picks it is spoken to in HTTP/2, and the
	// exchange is archived in HTTP/1.1 form (Response.Protocol "h2",
	// Reserialized). Off, only http/1.1 is offered.
	HTTP2 bool
	// RootCAs verifies servers' certificates; nil means the system's
	// roots. cmd/godwit passes the system pool plus --ca-cert.
	RootCAs *x509.CertPool
}

// ProxyEnv holds the proxy environment variables, already read by the
// caller. Selection follows net/http.ProxyFromEnvironment: HTTPProxy for
// http URLs, HTTPSProxy for https URLs, no proxy for hosts matching
// NoProxy, for "localhost" and for loopback addresses.
type ProxyEnv struct {
	HTTPProxy  string // HTTP_PROXY or http_proxy
	HTTPSProxy string // HTTPS_PROXY or https_proxy
	NoProxy    string // NO_PROXY or no_proxy
}

// ProxyEnvFrom reads the proxy variables through getenv (os.Getenv in
// cmd/godwit), preferring the upper-case name as net/http does.
func ProxyEnvFrom(getenv func(string) string) ProxyEnv {
	return ProxyEnv{
		HTTPProxy:  cmp.Or(getenv("HTTP_PROXY"), getenv("http_proxy")),
		HTTPSProxy: cmp.Or(getenv("HTTPS_PROXY"), getenv("https_proxy")),
		NoProxy:    cmp.Or(getenv("NO_PROXY"), getenv("no_proxy")),
	}
}

// Default fills zero fields with their defaults.
func (c *Config) Default() {
	setDefault(&c.Timeout, DefaultTimeout)
	setDefault(&c.DialTimeout, DefaultDialTimeout)
	setDefault(&c.TLSHandshakeTimeout, DefaultTLSHandshakeTimeout)
	setDefault(&c.ResponseHeaderTimeout, DefaultResponseHeaderTimeout)
	setDefault(&c.MaxBodyBytes, DefaultMaxBodyBytes)
	setDefault(&c.MaxDecodedBytes, DefaultDecodedFactor*c.MaxBodyBytes)
	setDefault(&c.MaxIdleConnsPerHost, DefaultMaxIdleConnsPerHost)
	setDefault(&c.DNSCacheTTL, DefaultDNSCacheTTL)
	setDefault(&c.DNSMinTTL, DefaultDNSMinTTL)
	setDefault(&c.DNSMaxTTL, DefaultDNSMaxTTL)
	setDefault(&c.DNSNegativeTTL, DefaultDNSNegativeTTL)
	setDefault(&c.DNSCacheSize, DefaultDNSCacheSize)
}

func setDefault[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

// Validate reports the first problem with c. Zero fields are valid (Default
// fills them); negative limits, a missing UserAgent and unparseable proxy
// URLs are not.
func (c Config) Validate() error {
	if c.UserAgent == "" {
		return errors.New("fetch: config: user agent is required")
	}
	if strings.ContainsAny(c.UserAgent, "\r\n\x00") {
		return errors.New("fetch: config: user agent contains a control character")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"timeout", c.Timeout},
		{"dial timeout", c.DialTimeout},
		{"tls handshake timeout", c.TLSHandshakeTimeout},
		{"response header timeout", c.ResponseHeaderTimeout},
		{"dns cache ttl", c.DNSCacheTTL},
		{"dns min ttl", c.DNSMinTTL},
		{"dns max ttl", c.DNSMaxTTL},
		{"dns negative ttl", c.DNSNegativeTTL},
	} {
		if d.v < 0 {
			return fmt.Errorf("fetch: config: negative %s %v", d.name, d.v)
		}
	}
	if c.MaxBodyBytes < 0 || c.MaxDecodedBytes < 0 || c.MaxIdleConnsPerHost < 0 || c.DNSCacheSize < 0 {
		return errors.New("fetch: config: negative size limit")
	}
	if c.DNSMinTTL > c.DNSMaxTTL && c.DNSMaxTTL != 0 {
		return fmt.Errorf("fetch: config: dns min ttl %v above max ttl %v", c.DNSMinTTL, c.DNSMaxTTL)
	}
	for _, o := range c.Overrides {
		if o.Host == "" || !o.Addr.IsValid() {
			return fmt.Errorf("fetch: config: override %q has no host or address", o.String())
		}
	}
	if c.Proxy != "" {
		if _, err := parseProxy(c.Proxy); err != nil {
			return fmt.Errorf("fetch: config: proxy: %w", err)
		}
	}
	for _, p := range []struct{ name, v string }{
		{"http proxy", c.ProxyEnv.HTTPProxy},
		{"https proxy", c.ProxyEnv.HTTPSProxy},
	} {
		if p.v == "" {
			continue
		}
		if _, err := parseProxy(p.v); err != nil {
			return fmt.Errorf("fetch: config: %s from environment: %w", p.name, err)
		}
	}
	return nil
}
