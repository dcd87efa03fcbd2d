package urlnorm

import "strings"

// Character classes, as bit flags in a read-only table.
const (
	unreserved = 1 << iota // RFC 3986 unreserved: ALPHA DIGIT - . _ ~
	encPath                // must be percent-encoded in a path
	encQuery               // must be percent-encoded in a query
)

var classes = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~", byte(c)) >= 0:
			t[c] |= unreserved
		case c <= ' ', c >= 0x7f:
			// Controls, space, DEL and every byte of a non-ASCII character.
			t[c] |= encPath | encQuery
		}
	}
	// In a path, everything net/url would not leave raw (so that the URL's
	// String form is exactly our escaped path). The WHATWG path set leaves
	// '^' and '|' raw; servers decode both spellings alike.
	for _, c := range []byte("\"#<>?\\^`{|}") {
		t[c] |= encPath
	}
	// In a query, the WHATWG special-query percent-encode set.
	for _, c := range []byte("\"#<>'") {
		t[c] |= encQuery
	}
	return t
}()

const upperhex = "0123456789ABCDEF"

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}

// validEscape reports whether s[i] is a '%' followed by two hex digits.
func validEscape(s string, i int) bool {
	return i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2])
}

func writeEscape(b *strings.Builder, c byte) {
	b.WriteByte('%')
	b.WriteByte(upperhex[c>>4])
	b.WriteByte(upperhex[c&15])
}

// escapeNeedsWork reports whether the escape at s[i] is not in normal form:
// it encodes an unreserved character or uses lower-case hex.
func escapeNeedsWork(s string, i int) bool {
	h, l := s[i+1], s[i+2]
	return classes[unhex(h)<<4|unhex(l)]&unreserved != 0 || 'a' <= h || 'a' <= l
}

// normEscapes returns s with its percent-encoding normalized: escapes of
// unreserved characters decoded, other escapes upper-cased, a stray '%'
// encoded as "%25", and the bytes of class enc encoded. It returns s itself,
// without allocating, when s is already normal.
func normEscapes(s string, enc uint8) string {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if !validEscape(s, i) || escapeNeedsWork(s, i) {
				break
			}
			i += 2
			continue
		}
		if classes[c]&enc != 0 {
			break
		}
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && validEscape(s, i):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if classes[v]&unreserved != 0 {
				b.WriteByte(v)
			} else {
				writeEscape(&b, v)
			}
			i += 2
		case c == '%' || classes[c]&enc != 0:
			writeEscape(&b, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// normPath returns the normal form of an escaped absolute path: escapes
// normalized, then dot segments removed (after decoding, so "%2E%2E" is
// ".." too, as in browsers), and "" as "/".
func normPath(p string) string {
	if p == "" {
		return "/"
	}
	p = normEscapes(p, encPath)
	if p[0] != '/' {
		p = "/" + p
	}
	return removeDots(p)
}

// hasDotSegment reports whether the absolute path p has a "." or ".."
// segment.
func hasDotSegment(p string) bool {
	for {
		i := strings.Index(p, "/.")
		if i < 0 {
			return false
		}
		p = p[i+2:]
		if p == "" || p[0] == '/' || p[0] == '.' && (len(p) == 1 || p[1] == '/') {
			return true
		}
	}
}

// removeDots removes the dot segments of the absolute path p (RFC 3986
// section 5.2.4). A path ending in a dot segment keeps its trailing slash.
func removeDots(p string) string {
	if !hasDotSegment(p) {
		return p
	}
	segs := strings.Split(p[1:], "/")
	out := segs[:0]
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
			continue
		}
		if last {
			out = append(out, "")
		}
	}
	return "/" + strings.Join(out, "/")
}

// The percent-encode sets of the WHATWG URL Standard
// (https://url.spec.whatwg.org/#percent-encoded-bytes), as bit flags in a
// read-only table. Bytes of non-ASCII characters are in every set.
const (
	setC0           uint8 = 1 << iota // C0 controls and everything above '~'
	setFragment                       // C0, space " < > `
	setQuery                          // C0, space " # < >
	setSpecialQuery                   // query and '
	setPath                           // query and ? ^ ` { }
	setUserinfo                       // path and / : ; = @ [ \ ] |
)

var pctSets = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		if c < 0x20 || c > 0x7e {
			t[c] = setC0 | setFragment | setQuery | setSpecialQuery | setPath | setUserinfo
		}
	}
	add := func(set uint8, chars string) {
		for i := 0; i < len(chars); i++ {
			t[chars[i]] |= set
		}
	}
	add(setFragment, " \"<>`")
	add(setQuery|setSpecialQuery|setPath|setUserinfo, " \"#<>")
	add(setSpecialQuery, "'")
	add(setPath|setUserinfo, "?^`{}")
	add(setUserinfo, "/:;=@[\\]|")
	return t
}()

// appendEncoded appends c to b, percent-encoded if it is in set.
func appendEncoded(b []byte, c byte, set uint8) []byte {
	if pctSets[c]&set == 0 {
		return append(b, c)
	}
	return append(b, '%', upperhex[c>>4], upperhex[c&15])
}
