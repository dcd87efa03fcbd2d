package extract

import (
	"bytes"
	"net/url"
	"strings"
)

// The fast path of resolve. Nearly every link of a page is a reference of
// a few plain shapes ("/p/15", "16", "../p/10", "?page=2",
// "http://h0.example/p/19", "//h0.example/r/4") made of bytes that none of
// resolve's clean-ups (trimming, tabs and newlines, backslashes, stray
// '%', the query's encoding) touches. For those, fastBase.resolve writes
// the string that resolve and url.URL.String give (net/url's reference
// resolution, RFC 3986) straight into one buffer: one allocation a link,
// the string, instead of the three URLs and their strings. Anything else
// goes to resolve. TestFastResolveIsResolve and FuzzFastResolve check
// that the two agree on every reference the fast path takes.

// fastBase is what the fast path needs of a base URL, once a page.
type fastBase struct {
	ok     bool   // the base is plain enough for the fast path
	scheme string // "http" or "https"
	origin string // scheme "://" host, as url.URL.String writes them
	path   string // the base's escaped path
	buf    []byte // the result being built
	full   []byte // the path being resolved
}

// newFastBase prepares the fast path for base; fb.ok is false when base
// is not of the shape it handles (userinfo, an upper-case scheme, a host
// or path with bytes net/url would escape).
func newFastBase(base *url.URL) *fastBase {
	fb := &fastBase{}
	if base.Scheme != "http" && base.Scheme != "https" || base.Opaque != "" || base.User != nil ||
		!plainAuthority(base.Host) {
		return fb
	}
	path := base.EscapedPath()
	for i := 0; i < len(path); i++ {
		if !plainPathByte[path[i]] {
			return fb
		}
	}
	fb.ok, fb.scheme, fb.origin, fb.path = true, base.Scheme, base.Scheme+"://"+base.Host, path
	return fb
}

// resolve returns what resolve(base, ref, qe) and String give, and true,
// when ref is of a shape the fast path handles; otherwise false.
func (fb *fastBase) resolve(ref string) (string, bool) {
	if !fb.ok || ref == "" {
		return "", false
	}
	// Split ref into its authority (with "//"), path, query and fragment,
	// checking every byte on the way.
	rest := ref
	scheme, authority := "", ""
	switch {
	case strings.HasPrefix(rest, "http://"):
		scheme, rest = "http", rest[len("http:"):]
	case strings.HasPrefix(rest, "https://"):
		scheme, rest = "https", rest[len("https:"):]
	}
	if strings.HasPrefix(rest, "//") {
		end := 2
		for end < len(rest) && rest[end] != '/' && rest[end] != '?' && rest[end] != '#' {
			end++
		}
		authority, rest = rest[2:end], rest[end:]
		if !plainAuthority(authority) {
			return "", false
		}
		if scheme == "" {
			scheme = fb.scheme
		}
	} else if scheme != "" {
		return "", false
	}
	i := 0
	for i < len(rest) && plainPathByte[rest[i]] {
		if rest[i] == ':' && authority == "" && !strings.Contains(rest[:i], "/") {
			return "", false // a scheme, or a colon net/url refuses in a first segment
		}
		i++
	}
	path := rest[:i]
	query, hasQuery := "", false
	if i < len(rest) && rest[i] == '?' {
		j := i + 1
		for j < len(rest) && plainQueryByte[rest[j]] {
			j++
		}
		query, hasQuery, i = rest[i+1:j], true, j
	}
	fragment := ""
	if i < len(rest) && rest[i] == '#' {
		j := i + 1
		for j < len(rest) && plainFragmentByte[rest[j]] {
			j++
		}
		fragment, i = rest[i+1:j], j
	}
	if i < len(rest) {
		return "", false // a byte the fast path does not take
	}
	if path == "" && !hasQuery {
		return "", false // "#f", or "//host" alone: resolve's special cases
	}

	// The path to resolve, in fb.full: the reference's own, or for "?q"
	// the base's, or the reference's joined to the base's directory.
	full := fb.full[:0]
	switch {
	case authority != "" || path != "" && path[0] == '/':
		full = append(full, path...)
	case path == "":
		full = append(full, fb.path...)
	default:
		full = append(full, fb.path[:strings.LastIndexByte(fb.path, '/')+1]...)
		full = append(full, path...)
	}
	fb.full = full
	b := fb.buf[:0]
	if authority != "" {
		b = append(b, scheme...)
		b = append(b, "://"...)
		b = append(b, authority...)
	} else {
		b = append(b, fb.origin...)
	}
	b = appendResolvedPath(b, full)
	if hasQuery {
		b = append(b, '?')
		b = append(b, query...)
	}
	if fragment != "" {
		b = append(b, '#')
		b = append(b, fragment...)
	}
	fb.buf = b
	return string(b), true
}

// resolveString is resolve(base, ref, qe) as a string, by the fast path
// when it takes ref (fb is of base).
func resolveString(fb *fastBase, base *url.URL, ref string, qe *queryEncoder) (string, bool) {
	if s, ok := fb.resolve(ref); ok {
		return s, true
	}
	u, ok := resolve(base, ref, qe)
	if !ok {
		return "", false
	}
	return u.String(), true
}

// appendResolvedPath appends full with its dot segments removed, as
// net/url's resolvePath does (RFC 3986 section 5.2.4, and a path that
// ends in a dot segment keeps its trailing slash); "" stays "".
func appendResolvedPath(b, full []byte) []byte {
	if len(full) == 0 {
		return b
	}
	start := len(b)
	b = append(b, '/')
	var elem []byte
	remaining, found, first := full, true, true
	for found {
		elem, remaining, found = bytes.Cut(remaining, slash)
		switch string(elem) {
		case ".":
			first = false
		case "..":
			if i := bytes.LastIndexByte(b[start+1:], '/'); i >= 0 {
				b = b[:start+i+1]
			} else {
				b = b[:start+1]
			}
			first = len(b) == start+1
		default:
			if !first {
				b = append(b, '/')
			}
			b = append(b, elem...)
			first = false
		}
	}
	if string(elem) == "." || string(elem) == ".." {
		b = append(b, '/')
	}
	// The leading '/' was written first; not two of them.
	if len(b) > start+1 && b[start+1] == '/' {
		b = append(b[:start], b[start+1:]...)
	}
	return b
}

var slash = []byte{'/'}

// plainAuthority reports whether h is a host of ASCII letters, digits,
// '-' and '.', with an optional port of digits: what net/url parses and
// writes back as it is.
func plainAuthority(h string) bool {
	host, port, hasPort := strings.Cut(h, ":")
	if host == "" || hasPort && port == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

// The bytes the fast path takes in each part of a reference: those that
// net/url keeps as they are in a path (letters, digits, "-_.~$&+,/:;=@")
// and in a fragment (those and '?'), and in a query printable ASCII
// outside the special-query percent-encode set, without '%' (a stray one
// is escaped) and '\' (left to resolve).
var plainPathByte, plainQueryByte, plainFragmentByte = func() (p, q, f [256]bool) {
	for c := 0; c < 256; c++ {
		p[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~$&+,/:;=@", byte(c)) >= 0
		q[c] = c > ' ' && c < 0x7f && !inQuerySet(byte(c)) && c != '%' && c != '\\'
		f[c] = p[c] || c == '?'
	}
	return p, q, f
}()
