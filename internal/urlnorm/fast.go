package urlnorm

import (
	"net/url"
	"strings"
)

// The fast path of Parse. Most links a crawl parses are absolute URLs
// already in the crawl's normal form, or nearly ("http://example.com/a/b?q=1",
// as a page's links come out of extract): for those the WHATWG parser and
// the normalization after it change nothing but, at most, the case of the
// host, a default port and the fragment. parseFast recognizes that shape in
// one look at the bytes and builds the result directly; anything else
// (escapes, dot segments, userinfo, IP or internationalized hosts, spaces,
// controls, backslashes, non-ASCII, odd slashes) goes to the full parser.
// TestParseFastIsParse and FuzzParseFast check that both give the same
// URL and string for every input the fast path takes.

// parseFast parses raw when it has the common shape, returning the URL
// Parse returns, its String form when raw is already normal (raw itself,
// or raw without its fragment; "" otherwise), and true; otherwise false.
func parseFast(raw string) (*url.URL, string, bool) {
	var scheme, rest string
	switch {
	case strings.HasPrefix(raw, "http://"):
		scheme, rest = "http", raw[len("http://"):]
	case strings.HasPrefix(raw, "https://"):
		scheme, rest = "https", raw[len("https://"):]
	default:
		return nil, "", false
	}
	// The host: ASCII letters, digits, '-' and '.', in labels that are
	// not empty and not punycode ("xn--"), the last one starting with a
	// letter (else the standard may read an IPv4 address: "1.2.3.4",
	// "0x7f"). Such a domain is its own IDNA form, lower-cased.
	i, label, upper := 0, 0, false
	for ; i < len(rest); i++ {
		c := rest[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-':
			continue
		case 'A' <= c && c <= 'Z':
			upper = true
			continue
		case c == '.':
			if i == label || punycodeLabel(rest[label:i]) {
				return nil, "", false
			}
			label = i + 1
			continue
		}
		break
	}
	host := rest[:i]
	if i == label || punycodeLabel(rest[label:i]) || !isLetter(rest[label]) {
		return nil, "", false // empty (or trailing-dot) last label, or not a name
	}
	// The port: digits, not starting with 0, at most 65535.
	port := ""
	if i < len(rest) && rest[i] == ':' {
		j := i + 1
		for j < len(rest) && '0' <= rest[j] && rest[j] <= '9' {
			j++
		}
		port = rest[i+1 : j]
		if port == "" || port[0] == '0' || len(port) > 5 || len(port) == 5 && port > "65535" {
			return nil, "", false
		}
		i = j
	}
	// The path: bytes that neither the standard's path set nor the
	// crawl's normalization change, and that net/url leaves as they are
	// (plainPath), without dot segments. It must start with '/'; an
	// empty path is "/".
	pathStart := i
	if i < len(rest) && rest[i] == '/' {
		for ; i < len(rest); i++ {
			if !plainPathByte[rest[i]] {
				break
			}
		}
	}
	path := rest[pathStart:i]
	if path != "" && hasDotSegment(path) {
		return nil, "", false
	}
	// The query: printable ASCII that neither the standard's special-query
	// set nor the crawl's normalization encodes, and no '%'.
	query, hasQuery := "", false
	if i < len(rest) && rest[i] == '?' {
		hasQuery = true
		j := i + 1
		for ; j < len(rest); j++ {
			if !plainQueryByte[rest[j]] {
				break
			}
		}
		query = rest[i+1 : j]
		i = j
	}
	end := i // the end of the URL without its fragment
	if i < len(rest) {
		if rest[i] != '#' {
			return nil, "", false // a byte the fast path does not take
		}
		// The fragment is dropped; it must still be of bytes that the
		// full parser would not trim or remove (nothing to check for
		// validity: a fragment cannot fail).
		for j := i + 1; j < len(rest); j++ {
			if c := rest[j]; c <= ' ' || c >= 0x7f {
				return nil, "", false
			}
		}
	}

	normal := !upper && path != ""
	if port != "" && (port == "80" && scheme == "http" || port == "443" && scheme == "https") {
		normal = false
		port = ""
	}
	if upper {
		host = strings.ToLower(host)
	}
	hostport := host
	if port != "" {
		hostport = rest[:len(host)+1+len(port)]
		if upper {
			hostport = host + ":" + port
		}
	}
	if path == "" {
		path = "/"
	}
	u := &url.URL{Scheme: scheme, Host: hostport, Path: path, RawQuery: query, ForceQuery: hasQuery && query == ""}
	if !normal {
		return u, "", true
	}
	return u, raw[:len(raw)-len(rest)+end], true
}

// plainDomain reports whether h is a domain in the normal form that the
// fast path of Parse recognizes (lower-case letters, digits, '-' and '.'
// in non-empty labels, none punycode, the last starting with a letter),
// with no port: its own host key.
func plainDomain(h string) bool {
	label := 0
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-':
		case c == '.':
			if i == label || punycodeLabel(h[label:i]) {
				return false
			}
			label = i + 1
		default:
			return false
		}
	}
	return label < len(h) && !punycodeLabel(h[label:]) && isLetter(h[label])
}

// punycodeLabel reports whether a host label starts with the ACE prefix
// "xn--", in any case: IDNA decodes and validates it.
func punycodeLabel(l string) bool {
	return len(l) >= 4 && (l[0]|0x20) == 'x' && (l[1]|0x20) == 'n' && l[2] == '-' && l[3] == '-'
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// plainPathByte are the bytes of plainPath; plainQueryByte are the
// printable ASCII bytes that a query keeps as they are (not in the
// special-query percent-encode set, not '%', not '#').
var plainPathByte, plainQueryByte = func() (p, q [256]bool) {
	for c := 0; c < 256; c++ {
		p[c] = plainPath(string(rune(c))) && c < 0x80
		q[c] = c > ' ' && c < 0x7f && classes[c]&encQuery == 0 && c != '%' && c != '#'
	}
	return p, q
}()

// ParseString is [Parse], and also returns the URL's String form, which
// it often has without building it: a link already in normal form is its
// own String form.
func ParseString(raw string) (*url.URL, string, error) {
	if u, s, ok := parseFast(raw); ok {
		if s == "" {
			s = u.String()
		}
		return u, s, nil
	}
	u, err := parse(nil, raw)
	if err != nil {
		return nil, "", err
	}
	return u, u.String(), nil
}
