package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"strconv"
	"time"
)

// Headers sent with every request unless Request.Header overrides them.
const (
	acceptHeader         = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	acceptEncodingHeader = "gzip, deflate, br, zstd"
)

const (
	// maxIdleConns caps idle connections over all hosts: a broad crawl
	// touches thousands of hosts a minute, and each idle connection is a
	// file descriptor.
	maxIdleConns           = 1024
	idleConnTimeout        = 90 * time.Second
	tcpKeepAlive           = 30 * time.Second
	maxResponseHeaderBytes = 1 << 20
)

// errTimeout is the cancellation cause of a fetch's own deadline, so a cut
// body can be told apart from a caller cancelling.
var errTimeout = errors.New("fetch: timeout")

// Client fetches URLs. It is safe for concurrent use; Close it when done.
type Client struct {
	cfg        Config
	proxies    *proxies
	proxyAddrs []string
	direct     *net.Dialer // guarded unless AllowPrivate
	toProxy    *net.Dialer // unguarded: the configured proxy is trusted
	dns        *dnsCache
	noRecord   bool // only benchmarks set it, to measure the recorder's cost
	transport  *http.Transport
	http       *http.Client
}

// New returns a Client for cfg, after cfg.Default and cfg.Validate. It
// starts no goroutines; connections are made by Fetch.
func New(cfg Config) (*Client, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p, err := newProxies(cfg)
	if err != nil {
		return nil, fmt.Errorf("fetch: config: proxy: %w", err)
	}
	c := &Client{
		cfg:        cfg,
		proxies:    p,
		proxyAddrs: p.addrs(),
		direct:     &net.Dialer{Timeout: cfg.DialTimeout, KeepAlive: tcpKeepAlive},
		toProxy:    &net.Dialer{Timeout: cfg.DialTimeout, KeepAlive: tcpKeepAlive},
		dns:        newDNSCache(cfg, time.Now),
	}
	if !cfg.AllowPrivate {
		c.direct.Control = guardControl
	}

	// HTTP/2 only when cfg.HTTP2: WARC 1.1 defines no archival form of an
	// HTTP/2 exchange, so the capture translates one into HTTP/1.1 form
	// (capture.result) and the archive says so (WARC-Protocol: h2).
	// Otherwise ALPN offers only http/1.1, both in dialTLS and in the TLS
	// the transport runs inside proxy tunnels.
	// net/http pools the connections of every http:// URL sent through an
	// HTTP proxy under one key (the proxy), so through a proxy the
	// per-host idle limit is a limit on the whole crawl: with more workers
	// than it, connections are closed and dialled again on every request.
	// There the total cap stands in for it.
	perHost := cfg.MaxIdleConnsPerHost
	if len(c.proxyAddrs) > 0 {
		perHost = maxIdleConns
	}
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(cfg.HTTP2)
	alpn := []string{"http/1.1"}
	if cfg.HTTP2 {
		alpn = []string{"h2", "http/1.1"}
	}
	c.transport = &http.Transport{
		Proxy: func(r *http.Request) (*url.URL, error) { return c.proxies.forURL(r.URL), nil },
		// Every connection is wrapped for the capture; https ones are
		// set up by dialTLS so the wrapper sits above TLS.
		DialContext:    c.dialRecorded,
		DialTLSContext: c.dialTLS,
		// With a custom DialTLSContext, net/http speaks HTTP/2 only when
		// forced to; the connection dialTLS returns is then a *tls.Conn.
		ForceAttemptHTTP2: cfg.HTTP2,
		Protocols:         protocols,
		TLSClientConfig: &tls.Config{
			MinVersion: tls.VersionTLS12,
			NextProtos: alpn,
			RootCAs:    cfg.RootCAs,
		},
		TLSHandshakeTimeout:    cfg.TLSHandshakeTimeout,
		ResponseHeaderTimeout:  cfg.ResponseHeaderTimeout,
		MaxIdleConns:           maxIdleConns,
		MaxIdleConnsPerHost:    perHost,
		IdleConnTimeout:        idleConnTimeout,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
		// We send Accept-Encoding ourselves and keep the body exactly as
		// it came (content-encoded) for the archive; Decode undoes it.
		DisableCompression: true,
	}
	c.http = &http.Client{
		Transport: c.transport,
		// Redirects are the crawler's business: the target is queued like
		// any other discovered URL, subject to scope and politeness.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c, nil
}

// DNSStats returns the DNS cache's counters.
func (c *Client) DNSStats() DNSStats {
	return c.dns.snapshot()
}

// Close closes idle connections. Connections still in use by a Fetch close
// when it returns.
func (c *Client) Close() error {
	c.transport.CloseIdleConnections()
	return nil
}

// Request is one URL to fetch.
type Request struct {
	// URL is an absolute http or https URL, already normalized.
	URL string
	// Header holds extra headers (If-None-Match, a different Accept for
	// robots.txt); they override the defaults. Cookie is never sent and
	// Host is ignored.
	Header http.Header
	// Wrote, if set, is called once, on a transport goroutine, as soon as
	// the request is on the wire: the whole request handed to the
	// connection (for HTTP/1.1 after the transport flushed its buffer;
	// for HTTP/2 after its frames were flushed). Not called when the
	// request was not written. The IP budget spaces request starts by it
	// (docs/frontier.md, "IP budget").
	Wrote func(at time.Time)
}

// Fetch sends one GET for req.URL and reads the response body, subject to
// the Client's limits. Redirects are not followed. Any HTTP status is a
// Response, not an error; errors are for requests that got no response
// (see Classify). A body cut by MaxBodyBytes or Timeout is still a
// Response, with Truncated set.
func (c *Client) Fetch(ctx context.Context, req Request) (*Response, error) {
	u, err := parseTarget(req.URL)
	if err != nil {
		return nil, err
	}
	proxy := c.proxies.forURL(u)
	if !c.cfg.AllowPrivate {
		if err := checkHost(u.Hostname()); err != nil {
			return nil, fmt.Errorf("fetch: get %s: %w", req.URL, err)
		}
	}

	ctx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errTimeout)
	defer cancel()
	capt := newCapture(c.cfg.MaxBodyBytes, !c.noRecord)
	capt.onWire = req.Wrote
	defer capt.disarm() // also on the error paths
	ctx = httptrace.WithClientTrace(ctx, capt.trace())

	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, req.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch: get %s: %w: %w", req.URL, ErrInvalidURL, err)
	}
	hreq.Header = c.header(req.Header)

	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, c.requestError(ctx, req.URL, err)
	}
	defer resp.Body.Close()
	if !chunked(resp) || !bodyAllowed(resp.StatusCode) {
		capt.stopBodyReads()
	}

	body, truncated, err := readBody(resp, c.cfg.MaxBodyBytes)
	end := time.Now()
	capt.disarm()
	if err != nil {
		if context.Cause(ctx) != errTimeout {
			return nil, c.requestError(ctx, req.URL, err)
		}
		truncated = TruncatedTime // slow drip: keep what arrived by the deadline
	}

	// http/https targets through an http(s) proxy are sent in absolute-form;
	// https goes through a CONNECT tunnel and socks is a plain tunnel, both
	// origin-form. That is what net/http does (persistConn.isProxy).
	absolute := proxy != nil && u.Scheme == "http" && (proxy.Scheme == "http" || proxy.Scheme == "https")
	w := capt.result(hreq, resp, body, truncated != "", absolute)
	tlsVersion := ""
	switch {
	case resp.TLS != nil:
		tlsVersion = tlsName(resp.TLS.Version)
	case proxy == nil && u.Scheme == "https":
		tlsVersion = w.tls // the connection dialTLS made
	}
	return &Response{
		URL:          req.URL,
		Status:       resp.StatusCode,
		Proto:        resp.Proto,
		Protocol:     protocolName(resp),
		TLSVersion:   tlsVersion,
		Header:       resp.Header,
		Body:         body,
		Truncated:    truncated,
		IP:           w.ip,
		Start:        w.start,
		FirstByte:    w.firstByte,
		End:          end,
		RawRequest:   w.request,
		RawHeader:    w.header,
		RawBody:      w.body,
		Reserialized: w.reserialized,
	}, nil
}

// parseTarget checks that s is an absolute http(s) URL with a host.
func parseTarget(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("fetch: get %s: %w: %w", s, ErrInvalidURL, err)
	}
	switch u.Scheme {
	case "http", "https":
	case "":
		return nil, fmt.Errorf("fetch: get %s: %w: not absolute", s, ErrInvalidURL)
	default:
		return nil, fmt.Errorf("fetch: get %s: %w %q", s, ErrUnsupportedScheme, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("fetch: get %s: %w: no host", s, ErrInvalidURL)
	}
	return u, nil
}

// header builds the request header: our defaults, then the caller's
// extras, minus cookies (a crawler keeps no session).
func (c *Client) header(extra http.Header) http.Header {
	h := http.Header{
		"User-Agent":      {c.cfg.UserAgent},
		"Accept":          {acceptHeader},
		"Accept-Encoding": {acceptEncodingHeader},
	}
	for k, vv := range extra {
		h[textproto.CanonicalMIMEHeaderKey(k)] = append([]string(nil), vv...)
	}
	h.Del("Cookie")
	return h
}

// requestError wraps an error from sending the request or reading the body.
// url.Error is unwrapped: it would repeat the URL in Go's "Get "…"" form.
func (c *Client) requestError(ctx context.Context, rawURL string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if context.Cause(ctx) == errTimeout && !errors.Is(err, errTimeout) {
		return fmt.Errorf("fetch: get %s: timeout after %v: %w", rawURL, c.cfg.Timeout, err)
	}
	return fmt.Errorf("fetch: get %s: %w", rawURL, err)
}

// readBody reads at most limit bytes of the body (one more to tell
// "exactly limit" from "more"). On a read error it returns the bytes read
// before it.
func readBody(resp *http.Response, limit int64) (body []byte, truncated string, err error) {
	body, over, err := readAtMost(resp.Body, limit, resp.ContentLength+1)
	if over {
		return body, TruncatedLength, nil
	}
	return body, "", err
}

// protocolName is resp's protocol as ALPN and the WARC-Protocol field
// name it: "h2", "http/1.1", "http/1.0".
func protocolName(resp *http.Response) string {
	if resp.ProtoMajor == 2 {
		return "h2"
	}
	return "http/" + strconv.Itoa(resp.ProtoMajor) + "." + strconv.Itoa(resp.ProtoMinor)
}

// tlsName is a TLS version as the WARC-Protocol field names it
// ("tls/1.3"), "" for none.
func tlsName(v uint16) string {
	switch v {
	case tls.VersionTLS10:
		return "tls/1.0"
	case tls.VersionTLS11:
		return "tls/1.1"
	case tls.VersionTLS12:
		return "tls/1.2"
	case tls.VersionTLS13:
		return "tls/1.3"
	}
	return ""
}
