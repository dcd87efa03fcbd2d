package robots

import "bytes"

// rule is a compiled Allow or Disallow pattern.
type rule struct {
	allow    bool
	length   int      // priority: the length of the normalized pattern
	prefix   []byte   // literal text before the first '*'
	parts    [][]byte // literal text after each '*'; nil without '*'
	anchored bool     // the pattern ends in '$'
}

// compile compiles a normalized, non-empty pattern.
func compile(allow bool, pattern []byte) rule {
	r := rule{allow: allow, length: len(pattern)}
	body := pattern
	if n := len(body); body[n-1] == '$' {
		r.anchored = true
		body = body[:n-1]
	}
	parts := bytes.Split(body, []byte("*"))
	r.prefix = parts[0]
	if len(parts) > 1 {
		r.parts = parts[1:]
	}
	return r
}

// match reports whether the normalized path p matches the rule. Middle
// parts are matched leftmost-first, which leaves the most room for the
// rest, so no backtracking is needed.
func (r *rule) match(p []byte) bool {
	if !bytes.HasPrefix(p, r.prefix) {
		return false
	}
	if r.parts == nil {
		return !r.anchored || len(p) == len(r.prefix)
	}
	p = p[len(r.prefix):]
	last := len(r.parts) - 1
	for _, part := range r.parts[:last] {
		i := bytes.Index(p, part)
		if i < 0 {
			return false
		}
		p = p[i+len(part):]
	}
	if r.anchored {
		return bytes.HasSuffix(p, r.parts[last])
	}
	return bytes.Contains(p, r.parts[last])
}

// Character classes of normalization.
const (
	unreserved = 1 << iota // RFC 3986 unreserved: kept raw, decoded if escaped
	encode                 // always percent-encoded
)

var classes = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			t[c] = unreserved
		case c <= ' ', c >= 0x7f, bytes.IndexByte([]byte("\"<>\\^`{|}"), byte(c)) >= 0:
			// Bytes that cannot appear raw in a request line: clients send
			// them encoded, so patterns written raw must be encoded too.
			t[c] = encode
		}
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

func upper(c byte) byte {
	if 'a' <= c && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

// appendNormalized appends s in the percent-encoding that patterns and
// paths are compared in: escapes of unreserved characters decoded, other
// escapes upper-cased, and bytes that cannot appear raw encoded. '*' and
// '$' are left alone. A '%' that starts no escape is kept as it is.
func appendNormalized[S string | []byte](dst []byte, s S) []byte {
	i := 0
	for i < len(s) && s[i] != '%' && classes[s[i]]&encode == 0 {
		i++
	}
	dst = append(dst, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]):
			if v := unhex(s[i+1])<<4 | unhex(s[i+2]); classes[v]&unreserved != 0 {
				dst = append(dst, v)
			} else {
				dst = append(dst, '%', upper(s[i+1]), upper(s[i+2]))
			}
			i += 2
		case classes[c]&encode != 0:
			dst = append(dst, '%', upperhex[c>>4], upperhex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
