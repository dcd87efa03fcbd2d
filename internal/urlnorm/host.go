package urlnorm

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// profile is UTS 46 lookup processing with the settings browsers use (the
// WHATWG "domain to ASCII"): unlike idna.Lookup it accepts '_' and labels
// with "--" in the third and fourth positions, both common on the web.
var profile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
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

// normHost returns the normal form of a hostname (without port or
// brackets): IPv6 in canonical form and bracketed, otherwise lower-case,
// IDNA-mapped to ASCII, trailing dots removed.
func normHost(h string) (string, error) {
	if h == "" {
		return "", &urlError{ErrInvalid, "empty host"}
	}
	if strings.IndexByte(h, ':') >= 0 {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", &urlError{ErrInvalid, "invalid IPv6 address " + quote(h)}
		}
		return "[" + a.String() + "]", nil
	}
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		h = strings.ToLower(strings.TrimRight(h, "."))
		// Punycode labels are validated (and so canonicalized) by IDNA.
		if strings.Contains(h, "xn--") {
			ascii = false
		}
	}
	if !ascii {
		if !utf8.ValidString(h) {
			return "", &urlError{ErrInvalid, "host is not UTF-8"}
		}
		a, err := profile.ToASCII(h)
		if err != nil {
			return "", &urlError{ErrInvalid, err.Error()}
		}
		// The result must be a fixed point, or a URL we return would not
		// parse back to itself.
		if a != h {
			if b, err := profile.ToASCII(a); err != nil || b != a {
				return "", &urlError{ErrInvalid, "unstable IDNA mapping of " + quote(h)}
			}
		}
		h = strings.TrimRight(a, ".")
	}
	if h == "" {
		return "", &urlError{ErrInvalid, "empty host"}
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; c <= ' ' || c >= 0x7f || strings.IndexByte("#%/:<>?@[\\]^|", c) >= 0 {
			return "", &urlError{ErrInvalid, "forbidden character " + quote(string(c)) + " in host"}
		}
	}
	return h, nil
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

// Host returns the politeness key of u: its lower-case hostname, plus
// ":port" only when the port is not the default of the scheme. IPv6
// addresses keep their brackets ("[2001:db8::1]:8080").
func Host(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host, err := normHost(u.Hostname())
	if err != nil {
		host = lowerHost(u.Hostname())
	}
	port, err := normPort(u.Port(), scheme)
	if err != nil {
		port = u.Port()
	}
	if port == "" {
		return host
	}
	return host + ":" + port
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
	if _, err := netip.ParseAddr(h); err == nil {
		return h
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(h)
	if err != nil {
		return h
	}
	return d
}
