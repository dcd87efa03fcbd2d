package urlnorm

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// parts is a URL split into its normalized components.
type parts struct {
	scheme     string // "http" or "https"
	host       string // normalized host, with ":port" when not the default
	path       string // escaped, normalized, starts with '/'
	query      string // escaped, normalized; without '?'
	forceQuery bool   // a '?' with an empty query
}

// split normalizes the components of u. In strict mode a host that fails
// validation is an error; otherwise it is only lower-cased.
func split(u *url.URL, strict bool) (parts, error) {
	var p parts
	switch {
	case u.Scheme == "http" || u.Scheme == "https":
		p.scheme = u.Scheme
	case strings.EqualFold(u.Scheme, "http"):
		p.scheme = "http"
	case strings.EqualFold(u.Scheme, "https"):
		p.scheme = "https"
	default:
		return p, &urlError{ErrNotHTTP, "scheme " + quote(u.Scheme)}
	}
	if u.Opaque != "" {
		return p, &urlError{ErrInvalid, "no authority"}
	}
	host, err := normHost(u.Hostname())
	if err != nil {
		if strict {
			return p, err
		}
		host = lowerHost(u.Hostname())
	}
	port, err := normPort(u.Port(), p.scheme)
	if err != nil {
		if strict {
			return p, err
		}
		port = u.Port()
	}
	p.host = host
	if port != "" {
		p.host = host + ":" + port
	}
	p.path = normPath(u.EscapedPath())
	p.query = normEscapes(u.RawQuery, encQuery)
	p.forceQuery = u.ForceQuery && p.query == ""
	return p, nil
}

// url builds the *url.URL of p.
func (p parts) url() *url.URL {
	u := &url.URL{Scheme: p.scheme, Host: p.host, RawQuery: p.query, ForceQuery: p.forceQuery}
	if plainPath(p.path) {
		// Path is the escaped path itself, and net/url spells it the same.
		u.Path = p.path
		return u
	}
	path, err := url.PathUnescape(p.path)
	if err != nil { // cannot happen: p.path has only valid escapes
		path = p.path
	}
	u.Path = path
	// Keep RawPath only when net/url would not spell Path as we do, the
	// same rule as url.URL.setPath.
	if u.EscapedPath() != p.path {
		u.RawPath = p.path
	}
	return u
}

// plainPath reports whether p has only bytes that net/url leaves as they
// are in a path: then Path and the escaped path are the same string.
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			continue
		}
		switch c {
		case '-', '_', '.', '~', '$', '&', '+', ',', '/', ':', ';', '=', '@':
			continue
		}
		return false
	}
	return true
}

// normHost returns the normal form of a hostname as url.URL.Hostname
// returns it (without port or brackets): the WHATWG host parser's result
// (lower case, IDNA-mapped to ASCII, IPv4 in dotted decimal, IPv6
// compressed and bracketed), then the crawl's rules (see crawlHost).
func normHost(h string) (string, error) {
	if h == "" {
		return "", &urlError{ErrInvalid, "empty host"}
	}
	if strings.IndexByte(h, ':') >= 0 {
		a, ok := parseIPv6(h)
		if !ok {
			return "", &urlError{ErrInvalid, "invalid IPv6 address " + quote(h)}
		}
		return "[" + formatIPv6(a) + "]", nil
	}
	host, kind, err := parseHost(h, false)
	if err != nil {
		return "", &urlError{ErrInvalid, err.Error()}
	}
	return crawlHost(host, kind)
}

// crawlHost applies the crawl's rules on top of the WHATWG host parser:
// trailing dots of a domain are removed (DNS resolves "example.com." and
// "example.com" alike), and hosts net/url cannot represent are refused
// (a backquote or braces, which the standard allows and DNS does not).
func crawlHost(host string, kind hostKind) (string, error) {
	if kind != hostDomain {
		return host, nil
	}
	if trimmed := strings.TrimRight(host, "."); trimmed != host {
		if trimmed == "" {
			return "", &urlError{ErrInvalid, "empty host"}
		}
		// Without its dots the host may read differently ("0.." is a
		// domain, "0" an IPv4 address): parse it again.
		h, k, err := parseHost(trimmed, false)
		if err != nil {
			return "", &urlError{ErrInvalid, err.Error()}
		}
		if k != hostDomain {
			return h, nil
		}
		host = h
	}
	if i := strings.IndexAny(host, "`{}"); i >= 0 {
		return "", &urlError{ErrInvalid, "forbidden character " + strconv.QuoteRune(rune(host[i])) + " in host"}
	}
	return host, nil
}

// lowerHost is the best-effort form of a host that failed normHost.
func lowerHost(h string) string {
	h = strings.ToLower(h)
	if strings.IndexByte(h, ':') >= 0 {
		return "[" + h + "]"
	}
	return h
}

// normPort returns the port without leading zeros, or "" for the scheme's
// default port and for no port at all.
func normPort(port, scheme string) (string, error) {
	if port == "" {
		return "", nil
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return "", &urlError{ErrInvalid, "invalid port " + quote(port)}
	}
	if n == 80 && scheme == "http" || n == 443 && scheme == "https" {
		return "", nil
	}
	if port[0] == '0' {
		return strconv.FormatUint(n, 10), nil
	}
	return port, nil
}

// Host returns the host key of u, which identifies a host for politeness
// (one request at a time, delays, robots.txt) and for sharding: its
// normalized hostname, plus ":port" only when the port is not the default
// of the scheme. IPv6 addresses keep their brackets ("[2001:db8::1]:8080").
// http and https on their default ports are one host.
func Host(u *url.URL) string {
	if plainDomain(u.Host) {
		// Its own normal form, and no port (what Parse returns for most
		// links): no parsing, no allocation.
		return u.Host
	}
	return hostSlow(u)
}

// hostSlow is Host without its shortcut.
func hostSlow(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	hostname, rawPort := u.Hostname(), u.Port()
	host, err := normHost(hostname)
	if err != nil {
		host = lowerHost(hostname)
	}
	port, err := normPort(rawPort, scheme)
	if err != nil {
		port = rawPort
	}
	switch {
	case port == "":
		return host
	case host == hostname && port == rawPort && len(u.Host) == len(host)+1+len(port):
		return u.Host // already normal: no allocation
	}
	return host + ":" + port
}

// mayBeIP reports whether h could parse as an IP address: an IPv6
// address has a colon, an IPv4 address ends in a digit, a domain name
// does neither. It spares netip.ParseAddr on every domain name, whose
// refusal allocates its error (Domain runs once per link found).
func mayBeIP(h string) bool {
	if strings.IndexByte(h, ':') >= 0 {
		return true
	}
	last := h[strings.LastIndexByte(h, '.')+1:]
	return last != "" && last[0] >= '0' && last[0] <= '9'
}

// Domain returns the registrable domain of host (eTLD+1 by the public
// suffix list, e.g. "example.co.uk" for "www.example.co.uk"). IP addresses,
// "localhost", single-label hosts and hosts that are themselves public
// suffixes are returned as they are. host may carry a port, as [Host]
// returns it; the port is ignored.
func Domain(host string) string {
	h := host
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 {
			return h[:i+1]
		}
		return h
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 && strings.IndexByte(h, ':') == i {
		h = h[:i]
	}
	h = strings.ToLower(strings.TrimRight(h, "."))
	if mayBeIP(h) {
		if _, err := netip.ParseAddr(h); err == nil {
			return h
		}
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(h)
	if err != nil {
		return h
	}
	return d
}
