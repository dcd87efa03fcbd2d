package fetch

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// LookupHost returns the addresses a fetch from host would dial, in the
// order the dialer tries them: its --resolve override, the address a
// literal names, or the DNS cache's answer (shared with Fetch, so a fetch
// that follows finds it cached). host is a politeness host key (see
// urlnorm.Host): a name or address, with ":port" when the port is not
// the scheme's default; without one, an override for port 443, then 80,
// then any port applies. The lookup is bounded by Config.DialTimeout.
// The frontier's IP budget groups hosts by the first address.
func (c *Client) LookupHost(ctx context.Context, host string) ([]netip.Addr, error) {
	name, port := host, uint16(0)
	if h, p, err := net.SplitHostPort(host); err == nil {
		if n, err := strconv.ParseUint(p, 10, 16); err == nil {
			name, port = h, uint16(n)
		}
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	ports := []uint16{port}
	if port == 0 {
		ports = []uint16{443, 80}
	}
	for _, p := range ports {
		if o, ok := c.override(name, p); ok {
			return []netip.Addr{o.Addr}, nil
		}
	}
	if ip, err := netip.ParseAddr(name); err == nil {
		return []netip.Addr{ip}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	defer cancel()
	return c.dns.lookup(ctx, name)
}

// Proxied reports whether the client sends requests through a proxy
// (Config.Proxy, or one the proxy environment names): the addresses it
// connects to are then the proxy's, not the hosts'.
func (c *Client) Proxied() bool { return len(c.proxyAddrs) > 0 }
