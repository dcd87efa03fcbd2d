package robots

import (
	"bytes"
	"encoding/binary"
)

// rule is a compiled Allow or Disallow pattern.
type rule struct {
	prefix   []byte   // literal text before the first '*'
	parts    [][]byte // literal text after each '*'; nil without '*'
	need     uint64   // byteSet of the bytes of parts
	length   int      // priority: the length of the normalized pattern
	line     int32    // line of the file, from 1; 0 when not from a file
	src      int32    // index of the rule's group in Group.sources
	allow    bool
	anchored bool // the pattern ends in '$'
}

// ruleHead is the first bytes of a rule's prefix, as by [head], and the
// mask that selects them. A Group keeps them in an array of their own, in
// rule order, so that the scan for the deciding rule reads 16 contiguous
// bytes per rule and touches the rule itself only when its head agrees
// with the path's.
type ruleHead struct {
	head, mask uint64
}

// headOf returns the ruleHead of r.
func headOf(r *rule) ruleHead {
	n := min(len(r.prefix), 8)
	return ruleHead{head: head(r.prefix[:n]), mask: ^uint64(0) >> (64 - 8*uint(n))} // mask 0 when n is 0
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
		for _, part := range r.parts {
			r.need |= byteSet(part)
		}
	}
	return r
}

// byteSet returns the set of the bytes of b, folded onto 64 bits: a rule
// with '*' can match a path only if the path's set contains the rule's
// need. Wildcard rules often start with "/*" (as in "/*?sort="), so their
// heads match every path; the sets spare most of them a search.
func byteSet(b []byte) uint64 {
	var s uint64
	for _, c := range b {
		s |= 1 << (c & 63)
	}
	return s
}

// head packs the first 8 bytes of b (fewer if b is shorter, the rest
// zero) into an integer, so that most rules can be ruled out with one
// comparison instead of a call to bytes.HasPrefix: a path can start with
// a rule's prefix only if head(path) agrees with head(prefix) on the
// first min(len(prefix), 8) bytes. Normalized paths and patterns never
// contain a zero byte (controls are percent-encoded), so the zero padding
// of a short path never agrees with a pattern byte.
func head(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.LittleEndian.Uint64(b)
	}
	var h uint64
	for i := len(b) - 1; i >= 0; i-- {
		h = h<<8 | uint64(b[i])
	}
	return h
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
