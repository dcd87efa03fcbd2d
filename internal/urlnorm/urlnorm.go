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

// Parse parses an absolute http(s) URL and returns it normalized (see
// [Normalize]). Surrounding whitespace, userinfo and the fragment are
// dropped. Errors wrap [ErrNotHTTP] for other schemes and [ErrInvalid]
// otherwise (relative references, empty or malformed hosts, bad ports).
func Parse(raw string) (*url.URL, error) {
	return parse(nil, raw)
}

// Resolve resolves the reference ref, as found in a page, against base the
// way a browser does (RFC 3986 resolution after WHATWG clean-up: whitespace
// trimmed, tabs and newlines removed, backslashes as slashes) and returns the
// result normalized. A nil base makes Resolve equivalent to [Parse].
// Protocol-relative ("//host/p"), query-only ("?q"), fragment-only ("#f")
// and dot-segment ("./", "../") references are all supported.
func Resolve(base *url.URL, ref string) (*url.URL, error) {
	return parse(base, ref)
}

// Normalize returns the fetchable form of an http(s) URL: lower-case scheme
// and host, trailing dots of the host removed, IDN host in punycode, default
// port removed, empty path as "/", dot segments resolved, percent-encoding
// normalized, userinfo and fragment removed; query order is kept. u is not
// modified.
//
// Normalize is meant for URLs from [Parse] and [Resolve] (on which it is the
// identity) or from trusted code. It cannot fail: a host that does not pass
// IDNA validation is only lower-cased, and a URL that is not http(s) is
// returned as an unchanged copy.
func Normalize(u *url.URL) *url.URL {
	p, err := split(u, false)
	if err != nil {
		c := *u
		return &c
	}
	return p.url()
}

// parse implements Parse and Resolve.
func parse(base *url.URL, raw string) (*url.URL, error) {
	s := clean(raw)
	scheme, rest, ok := splitScheme(s)
	switch {
	case ok:
		scheme = strings.ToLower(scheme)
		if scheme != "http" && scheme != "https" {
			return nil, fail(ErrNotHTTP, raw, "scheme "+quote(scheme))
		}
		rest = backslashes(rest)
		if base != nil && strings.EqualFold(base.Scheme, scheme) && !strings.HasPrefix(rest, "//") {
			// WHATWG: "http:page" against an http base is a relative reference.
			s = rest
		} else {
			// WHATWG: any number of slashes (even none) introduce the authority.
			s = scheme + "://" + strings.TrimLeft(rest, "/")
		}
	case base == nil:
		return nil, fail(ErrInvalid, raw, "not an absolute URL")
	default:
		s = backslashes(s)
	}
	u, err := url.Parse(escapeStray(s))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fail(ErrInvalid, raw, err.Error())
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	p, err := split(u, true)
	if err != nil {
		var ue *urlError
		if errors.As(err, &ue) {
			return nil, fail(ue.kind, raw, ue.detail)
		}
		return nil, err
	}
	return p.url(), nil
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

// clean removes leading and trailing C0 controls and spaces, and all tabs
// and newlines, as the WHATWG URL parser does before anything else.
func clean(s string) string {
	start, end := 0, len(s)
	for start < end && s[start] <= ' ' {
		start++
	}
	for end > start && s[end-1] <= ' ' {
		end--
	}
	s = s[start:end]
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '\t' && c != '\n' && c != '\r' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// splitScheme splits "scheme:rest" when s starts with an RFC 3986 scheme.
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

// backslashes turns '\' into '/' before the query and fragment, as browsers
// do for http(s) URLs.
func backslashes(s string) string {
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	if !strings.Contains(s[:end], `\`) {
		return s
	}
	return strings.ReplaceAll(s[:end], `\`, "/") + s[end:]
}

// escapeStray percent-encodes what net/url would reject but browsers accept:
// a '%' that does not start a valid escape, and control characters (which
// then fail host validation, or stay encoded in the path and query).
func escapeStray(s string) string {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c == '%' && !validEscape(s, i) {
			break
		}
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c == '%' && !validEscape(s, i) {
			writeEscape(&b, c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
