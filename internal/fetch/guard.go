package fetch

import (
	"fmt"
	"net/netip"
	"strings"
	"syscall"
)

// forbiddenPrefixes are the non-public ranges that netip's predicates do not
// already cover. Read-only.
var forbiddenPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // CGNAT shared address space
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and broadcast
	netip.MustParsePrefix("::/96"),          // IPv4-compatible (deprecated)
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("fec0::/10"),      // site-local (deprecated)
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96") // well-known NAT64: IPv4 in the last 32 bits
	sixToFour = netip.MustParsePrefix("2002::/16")    // 6to4: IPv4 in bits 16–47
)

// forbidden reports whether a is an address the SSRF guard refuses:
// loopback, private (RFC 1918, fc00::/7), link-local, multicast,
// unspecified, CGNAT, reserved, and IPv4-mapped or IPv6-embedded forms of
// any of these.
func forbidden(a netip.Addr) bool {
	if !a.IsValid() {
		return true
	}
	a = a.Unmap().WithZone("")
	if a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() {
		return true
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return forbidden(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(a):
			return forbidden(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	return false
}

// guardControl is a net.Dialer.Control hook. It runs after name resolution,
// on the exact address about to be connected to, so a DNS answer that
// changes between a check and the dial (rebinding) cannot slip through.
func guardControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparseable dial address %q", ErrForbiddenAddress, address)
	}
	if forbidden(ap.Addr()) {
		return fmt.Errorf("%w %s", ErrForbiddenAddress, ap.Addr())
	}
	return nil
}

// checkHost refuses target hosts that are forbidden without any lookup:
// literal forbidden IPs, names that by definition resolve to loopback
// (RFC 6761 "localhost"), and numeric-looking names that some resolvers
// read as IPv4 ("127.1", "0x7f.1", "2130706433"). It matters most behind a
// proxy, where the proxy resolves the name and the dial guard never sees the
// target's address; without a proxy it just refuses early.
func checkHost(host string) error {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if ip, err := netip.ParseAddr(h); err == nil {
		if forbidden(ip) {
			return fmt.Errorf("%w %s", ErrForbiddenAddress, ip)
		}
		return nil
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return fmt.Errorf("%w: host %q", ErrForbiddenAddress, host)
	}
	// The WHATWG URL parser treats a host whose last label is numeric as an
	// IPv4 address; a normalized URL therefore never has one that is not a
	// dotted quad. Anything else is ambiguous: refuse it.
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last != "" && isNumericLabel(last) {
		return fmt.Errorf("%w: ambiguous numeric host %q", ErrForbiddenAddress, host)
	}
	return nil
}

func isNumericLabel(s string) bool {
	if len(s) > 1 && (strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X")) {
		s = s[2:]
		return strings.Trim(s, "0123456789abcdefABCDEF") == ""
	}
	return strings.Trim(s, "0123456789") == ""
}

// forbiddenError is a refusal by the dial-time guard: host (a name, or the
// literal address itself) resolved to addr, which is forbidden. It wraps
// ErrForbiddenAddress; its text leaves out the sentinel's "fetch: " prefix,
// since it is always wrapped by a "fetch: get <url>: " error.
type forbiddenError struct {
	host string
	addr netip.Addr
}

func (e *forbiddenError) Error() string {
	if e.host == e.addr.String() {
		return "forbidden address: " + e.host
	}
	return "forbidden address: " + e.host + " resolves to " + e.addr.String()
}

func (e *forbiddenError) Unwrap() error { return ErrForbiddenAddress }
