package fetch

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Override sends connections for one host name (and optionally one port)
// to a fixed address instead of the address DNS gives, the way curl's
// --resolve and --connect-to do. The TLS server name and the Host header
// stay the URL's; only the TCP connection goes elsewhere. The SSRF guard
// still checks the address (loopback needs AllowPrivate).
type Override struct {
	// Host is the host name, lower case, without a port.
	Host string
	// Port limits the override to one port of Host; 0 means every port.
	Port uint16
	// Addr is the address connected to instead of Host's DNS answer.
	Addr netip.Addr
	// ToPort replaces the port connected to; 0 keeps the URL's port.
	ToPort uint16
}

// ParseOverride parses "HOST[:PORT]:ADDR[:TOPORT]": HOST is a name,
// PORT the URL port the override applies to (every port when absent),
// ADDR an IPv4 address or a bracketed IPv6 address ("[::1]"), TOPORT
// the port connected to (the URL's when absent). "h1.example:127.0.0.2",
// "h1.example:443:127.0.0.2" (curl's --resolve form) and
// "h1.example:443:127.0.0.2:8443" are all valid.
func ParseOverride(s string) (Override, error) {
	bad := func(why string) (Override, error) {
		return Override{}, fmt.Errorf("override %q: %s (want HOST[:PORT]:ADDR[:PORT], IPv6 in brackets)", s, why)
	}
	host, rest, ok := strings.Cut(s, ":")
	if !ok || host == "" || rest == "" {
		return bad("no address")
	}
	if strings.ContainsAny(host, "[]/ ") {
		return bad("bad host name")
	}
	var o Override
	o.Host = strings.ToLower(strings.TrimSuffix(host, "."))
	if p, after, ok := strings.Cut(rest, ":"); ok && p != "" && isDigits(p) {
		port, err := strconv.ParseUint(p, 10, 16)
		if err != nil || port == 0 {
			return bad("bad port " + p)
		}
		o.Port, rest = uint16(port), after
	}
	if ap, err := netip.ParseAddrPort(rest); err == nil {
		if ap.Port() == 0 {
			return bad("port 0")
		}
		o.Addr, o.ToPort = ap.Addr(), ap.Port()
	} else {
		a := strings.TrimSuffix(strings.TrimPrefix(rest, "["), "]")
		ip, err := netip.ParseAddr(a)
		if err != nil || (ip.Is6() && !strings.HasPrefix(rest, "[")) {
			return bad("bad address " + rest)
		}
		o.Addr = ip
	}
	o.Addr = o.Addr.Unmap()
	return o, nil
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// String formats o as ParseOverride reads it.
func (o Override) String() string {
	s := o.Host
	if o.Port != 0 {
		s += ":" + strconv.Itoa(int(o.Port))
	}
	if o.ToPort != 0 {
		return s + ":" + netip.AddrPortFrom(o.Addr, o.ToPort).String()
	}
	if o.Addr.Is6() {
		return s + ":[" + o.Addr.String() + "]"
	}
	return s + ":" + o.Addr.String()
}

// override finds the override for host and port: one for that exact port
// wins over one for every port.
func (c *Client) override(host string, port uint16) (Override, bool) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	var any Override
	found := false
	for _, o := range c.cfg.Overrides {
		if o.Host != host {
			continue
		}
		if o.Port == port {
			return o, true
		}
		if o.Port == 0 && !found {
			any, found = o, true
		}
	}
	return any, found
}
