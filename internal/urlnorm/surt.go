package urlnorm

import (
	"net/url"
	"slices"
	"strings"
)

// SURT returns the SURT form of u (Sort-friendly URI Reordering
// Transform), the lookup key of CDXJ indexes: see [SURT].
func (c *Canonicalizer) SURT(u *url.URL) string { return SURT(c.Key(u)) }

// SURT returns the SURT form of a crawl key as [Canonicalizer.Key] returns
// it, following the default canonicalization of the Internet Archive's
// surt library, which pywb and OutbackCDX use to look captures up:
// the scheme is dropped, a leading "www", "www2"... label is dropped, the
// host's labels are reversed and joined by commas (an IPv4 address too;
// an IPv6 address is kept as it is), a non-default port follows with ':',
// then ')' and the path and query, lower-cased; the path loses a trailing
// slash (except "/" itself) and the query parameters are sorted by name,
// then value:
//
//	http://www.Example.com:8080/A/b/?q=2&a=1 → com,example:8080)/a/b?a=1&q=2
//
// Unlike the surt library, "www.com" keeps its "www" (the rest would not
// be a domain). Keys differing only in case, scheme or a "www." name one
// SURT: that is what a replay index wants, and why SURTs are not crawl keys.
func SURT(key string) string {
	rest := key
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	authority, pathQuery := rest, "/"
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority, pathQuery = rest[:i], rest[i:]
	}
	host, port := authority, ""
	if i := strings.LastIndexByte(authority, ':'); i > strings.LastIndexByte(authority, ']') {
		host, port = authority[:i], authority[i+1:]
	}
	path, query, _ := strings.Cut(pathQuery, "?")

	var b strings.Builder
	b.Grow(len(key))
	if strings.HasPrefix(host, "[") {
		b.WriteString(host)
	} else {
		host = stripWWW(strings.ToLower(host))
		for end := len(host); end > 0; {
			start := strings.LastIndexByte(host[:end], '.') + 1
			b.WriteString(host[start:end])
			if start > 0 {
				b.WriteByte(',')
			}
			end = start - 1
		}
	}
	if port != "" {
		b.WriteByte(':')
		b.WriteString(port)
	}
	b.WriteByte(')')
	path = strings.ToLower(path)
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		path = path[:len(path)-1]
	}
	b.WriteString(path)
	if query != "" {
		params := strings.Split(strings.ToLower(query), "&")
		slices.SortFunc(params, func(a, b string) int {
			an, av, aok := strings.Cut(a, "=")
			bn, bv, bok := strings.Cut(b, "=")
			switch {
			case an != bn:
				return strings.Compare(an, bn)
			case aok != bok: // "a" sorts before "a="
				if aok {
					return 1
				}
				return -1
			}
			return strings.Compare(av, bv)
		})
		b.WriteByte('?')
		b.WriteString(strings.Join(params, "&"))
	}
	return b.String()
}

// stripWWW removes a leading "www" label, with optional digits, when the
// rest is still a domain of two labels or more.
func stripWWW(host string) string {
	if !strings.HasPrefix(host, "www") {
		return host
	}
	i := 3
	for i < len(host) && '0' <= host[i] && host[i] <= '9' {
		i++
	}
	if i < len(host) && host[i] == '.' && strings.IndexByte(host[i+1:], '.') > 0 {
		return host[i+1:]
	}
	return host
}
