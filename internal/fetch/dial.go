package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// minDialSlice is the least time one address gets when a dial timeout is
// split between several addresses (net.Dialer uses the same floor).
const minDialSlice = 2 * time.Second

// dial connects to addr ("host:port"). The configured proxies' addresses
// are dialed directly and unguarded. A host with an Override goes to its
// fixed address (and port); any other host is resolved through the DNS
// cache (a literal IP skips it); unless AllowPrivate, a host with
// any forbidden address is refused before a connection is attempted, and
// the socket-level guard (guardControl) checks the address again. The
// allowed addresses are tried in the resolver's order, the dial timeout
// split between them.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	for _, p := range c.proxyAddrs {
		if strings.EqualFold(addr, p) {
			return c.toProxy.DialContext(ctx, network, addr)
		}
	}
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("dial %s: bad port %q", addr, portStr)
	}

	ctx, cancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	defer cancel()
	var ips []netip.Addr
	if o, ok := c.override(host, uint16(port)); ok {
		ips = []netip.Addr{o.Addr}
		if o.ToPort != 0 {
			port = uint64(o.ToPort)
		}
	} else if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = c.dns.lookup(ctx, host); err != nil {
		return nil, err
	}
	if !c.cfg.AllowPrivate {
		for _, ip := range ips {
			if forbidden(ip) {
				// One inside address is enough to refuse the name: which
				// address gets dialed must not decide whether we reach
				// the inside, and a public name pointing there is broken
				// or hostile.
				return nil, &forbiddenError{host: host, addr: ip}
			}
		}
	}

	var firstErr error
	tried := 0
	for i, ip := range ips {
		if !familyMatches(network, ip) {
			continue
		}
		tried++
		dctx, dcancel := ctx, context.CancelFunc(func() {})
		if deadline, ok := ctx.Deadline(); ok {
			left := time.Until(deadline) / time.Duration(countFamily(network, ips[i:]))
			dctx, dcancel = context.WithTimeout(ctx, max(left, minDialSlice))
		}
		conn, err := c.direct.DialContext(dctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		dcancel()
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if tried == 0 {
		return nil, &net.DNSError{Err: "no suitable address", Name: host, IsNotFound: true}
	}
	return nil, firstErr
}

func familyMatches(network string, ip netip.Addr) bool {
	switch network {
	case "tcp4":
		return ip.Unmap().Is4()
	case "tcp6":
		return ip.Is6() && !ip.Is4In6()
	}
	return true
}

func countFamily(network string, ips []netip.Addr) int {
	n := 0
	for _, ip := range ips {
		if familyMatches(network, ip) {
			n++
		}
	}
	return max(n, 1)
}

// dialRecorded is the transport's DialContext: dial, wrapped in a
// recording conn.
func (c *Client) dialRecorded(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := c.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &recConn{Conn: conn}, nil
}

// dialTLS is the transport's DialTLSContext, used for https targets
// reached directly and for https proxies: dial as dialRecorded does, then
// the TLS handshake with the transport's TLS settings, offering HTTP/1.1
// by ALPN, and h2 too when Config.HTTP2. The recorder wraps the *tls.Conn
// of an HTTP/1.1 connection, so it sees the plaintext HTTP messages; an
// h2 connection is returned bare, as net/http needs it.
func (c *Client) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := c.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	var cfg *tls.Config
	if c.transport.TLSClientConfig != nil {
		cfg = c.transport.TLSClientConfig.Clone()
	} else {
		cfg = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			conn.Close()
			return nil, err
		}
		cfg.ServerName = host
	}
	for _, p := range c.proxyAddrs {
		if strings.EqualFold(addr, p) {
			// An https proxy is spoken to in HTTP/1.1 (CONNECT, or
			// absolute-form requests): net/http has no HTTP/2 proxies.
			cfg.NextProtos = []string{"http/1.1"}
		}
	}
	tc := tls.Client(conn, cfg)

	hctx, cancel := ctx, context.CancelFunc(func() {})
	if d := c.transport.TLSHandshakeTimeout; d > 0 {
		hctx, cancel = context.WithTimeoutCause(ctx, d, errTLSHandshakeTimeout)
	}
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		conn.Close()
		ip := ""
		if ta, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
			ip = ta.IP.String() // the server that presented the certificate (ErrorIP)
		}
		if cause := context.Cause(hctx); errors.Is(cause, errTLSHandshakeTimeout) && ctx.Err() == nil {
			return nil, &addrError{ip: ip, err: fmt.Errorf("%w: %w", cause, err)}
		}
		return nil, &addrError{ip: ip, err: fmt.Errorf("%w: %w", errTLSHandshake, err)}
	}
	state := tc.ConnectionState()
	if state.NegotiatedProtocol == "h2" {
		// net/http speaks HTTP/2 only on a *tls.Conn; the capture
		// rebuilds the exchange from what the transport parsed.
		return tc, nil
	}
	return &recConn{Conn: tc, tls: state.Version}, nil
}

// errTLSHandshakeTimeout says TLSHandshakeTimeout ran out.
var errTLSHandshakeTimeout = errors.New("tls handshake timeout")
