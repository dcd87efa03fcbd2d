package urlnorm

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Sentinel errors; every error returned by this package wraps one of them.
var (
	// ErrNotHTTP reports a URL whose scheme is not http or https.
	ErrNotHTTP = errors.New("urlnorm: not an http(s) URL")
	// ErrInvalid reports a URL that cannot be parsed or has no usable host.
	ErrInvalid = errors.New("urlnorm: invalid URL")
)

// Parse parses an absolute http(s) URL as a browser does (the WHATWG URL
// Standard) and returns it normalized (see [Normalize]). Userinfo and the
// fragment are dropped. Errors wrap [ErrNotHTTP] for other schemes and
// [ErrInvalid] otherwise (relative references, empty or malformed hosts,
// bad ports).
func Parse(raw string) (*url.URL, error) {
	if u, _, ok := parseFast(raw); ok {
		return u, nil
	}
	return parse(nil, raw)
}

// Resolve resolves the reference ref, as found in a page, against base as
// a browser does (the WHATWG URL Standard: whitespace trimmed, tabs and
// newlines removed, backslashes as slashes, "http:page" relative to an
// http base) and returns the result normalized. A nil base makes Resolve
// equivalent to [Parse]. Protocol-relative ("//host/p"), query-only
// ("?q"), fragment-only ("#f") and dot-segment ("./", "../") references
// are all supported.
func Resolve(base *url.URL, ref string) (*url.URL, error) {
	return parse(base, ref)
}

// Normalize returns the fetchable form of an http(s) URL: lower-case scheme
// and host, trailing dots of the host removed, IDN host in punycode, IPv4
// hosts in dotted decimal, default port removed, empty path as "/", dot
// segments resolved, percent-encoding normalized, userinfo and fragment
// removed; query order is kept. u is not modified.
//
// Normalize is meant for URLs from [Parse] and [Resolve] (on which it is the
// identity) or from trusted code. It cannot fail: a host that does not pass
// validation is only lower-cased, and a URL that is not http(s) is
// returned as an unchanged copy.
func Normalize(u *url.URL) *url.URL {
	p, err := split(u, false)
	if err != nil {
		c := *u
		return &c
	}
	return p.url()
}

// parse implements Parse and Resolve: the WHATWG parser, then the crawl's
// own normalization of the result.
func parse(base *url.URL, raw string) (*url.URL, error) {
	s := trimControlSpace(raw)
	if strings.ContainsAny(s, "\t\n\r") {
		s = removeTabNewline(s)
	}
	// Other schemes are refused before any parsing: "javascript:" links
	// need not be well-formed URLs to be recognized as not ours.
	if scheme, _, ok := splitScheme(s); ok && !isHTTP(scheme) {
		return nil, fail(ErrNotHTTP, raw, "scheme "+quote(strings.ToLower(scheme)))
	}
	var b *record
	if base != nil {
		br := baseRecord(base)
		b = &br
	}
	r, err := parseWHATWG(s, b)
	if err != nil {
		return nil, fail(ErrInvalid, raw, err.Error())
	}
	if !isHTTP(r.scheme) {
		return nil, fail(ErrNotHTTP, raw, "scheme "+quote(r.scheme))
	}
	p, err := fromRecord(&r)
	if err != nil {
		var ue *urlError
		if errors.As(err, &ue) {
			return nil, fail(ue.kind, raw, ue.detail)
		}
		return nil, err
	}
	return p.url(), nil
}

func isHTTP(scheme string) bool {
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")
}

// hostUnchecked marks a host copied from a *url.URL base: fromRecord
// normalizes it rather than trusting it.
const hostUnchecked hostKind = 255

// baseRecord views u as a parsed URL, to resolve references against it.
// It allocates nothing; u's components are used as they are.
func baseRecord(u *url.URL) record {
	r := record{scheme: lowerASCII(u.Scheme), query: u.RawQuery, hasQuery: u.ForceQuery || u.RawQuery != ""}
	if u.Opaque != "" {
		r.opaque, r.path = true, u.Opaque
		return r
	}
	_, special := specialPort(r.scheme)
	if u.Host != "" || special {
		r.hasHost, r.hostKind = true, hostUnchecked
		r.host = u.Host
		if i := strings.LastIndexByte(u.Host, ':'); i > strings.LastIndexByte(u.Host, ']') {
			r.host, r.port = u.Host[:i], u.Host[i+1:]
		}
	}
	r.path = u.EscapedPath()
	if special && !strings.HasPrefix(r.path, "/") {
		r.path = "/" + r.path
	}
	return r
}

// fromRecord applies the crawl's normalization to an http(s) URL parsed
// by the WHATWG parser.
func fromRecord(r *record) (parts, error) {
	p := parts{scheme: r.scheme}
	host, port := r.host, r.port
	if r.hostKind == hostUnchecked {
		h, err := normHost(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
		if err != nil {
			return p, err
		}
		if port, err = normPort(port, r.scheme); err != nil {
			return p, err
		}
		host = h
	} else {
		h, err := crawlHost(host, r.hostKind)
		if err != nil {
			return p, err
		}
		host = h
	}
	p.host = host
	if port != "" {
		p.host = host + ":" + port
	}
	p.path = normPath(r.path)
	p.query = normEscapes(r.query, encQuery)
	p.forceQuery = r.hasQuery && p.query == ""
	return p, nil
}

// fail builds an error wrapping sentinel that names the offending input.
func fail(sentinel error, raw, detail string) error {
	return fmt.Errorf("%w %s: %s", sentinel, quote(raw), detail)
}

// urlError is an error of a URL component, before it is attributed to the
// input URL by fail.
type urlError struct {
	kind   error // ErrNotHTTP or ErrInvalid
	detail string
}

func (e *urlError) Error() string { return e.kind.Error() + ": " + e.detail }
func (e *urlError) Unwrap() error { return e.kind }

// quote quotes s for an error message, shortened so that a hostile URL
// cannot flood a log line.
func quote(s string) string {
	const max = 200
	if len(s) > max {
		s = s[:max] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// splitScheme splits "scheme:rest" when s starts with a URL scheme.
func splitScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i], s[i+1:], true
		default:
			return "", s, false
		}
	}
	return "", s, false
}
