package extract

import (
	"bytes"

	"golang.org/x/net/html"
)

// attrReader reads the attributes of the current start tag of a
// tokenizer: each key, lower-cased, and value, in order, the first of
// repeated keys only, which is what z.TagAttr hands out. Use it on the
// stack:
//
//	var r attrReader
//	r.init(z)
//	for k, v, ok := r.next(); ok; k, v, ok = r.next() { ... }
//
// The slices are valid until the next call of next.
//
// z.TagAttr copies every key and value it returns (to replace NUL
// bytes), two allocations an attribute. attrReader reads the attributes
// from the tag's raw text instead, as the tokenizer reads them
// (rawAttrs), when nothing in the raw text needs changing: no character
// reference ('&'), no carriage return, no NUL. Other tags go through
// z.TagAttr. Reading the raw text does not use up the tokenizer's
// attributes; z.TagAttr still hands them out after.
type attrReader struct {
	z        *html.Tokenizer
	raw      []byte
	fallback bool // through z.TagAttr
	done     bool // z.TagAttr has handed out the last one
	spans    [maxRawAttrs]attrSpan
	n, i     int
	key      [maxRawKey]byte
}

func (r *attrReader) init(z *html.Tokenizer) {
	r.z, r.raw = z, z.Raw()
	var ok bool
	r.n, ok = rawAttrs(r.raw, &r.spans)
	r.fallback = !ok
}

// next returns the next attribute, or ok false.
func (r *attrReader) next() (key, val []byte, ok bool) {
	if r.fallback {
		for !r.done {
			k, v, more := r.z.TagAttr()
			r.done = !more
			if len(k) > 0 {
				return k, v, true
			}
		}
		return nil, nil, false
	}
	if r.i == r.n {
		return nil, nil, false
	}
	s := r.spans[r.i]
	r.i++
	k := r.key[:0]
	for _, c := range r.raw[s.k0:s.k1] {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		k = append(k, c)
	}
	return k, r.raw[s.v0:s.v1], true
}

// attrSpan is an attribute in a tag's raw text: raw[k0:k1] is its key,
// raw[v0:v1] its value.
type attrSpan struct{ k0, k1, v0, v1 int }

const (
	// maxRawAttrs and maxRawKey bound what rawAttrs reads: tags with more
	// attributes, or longer keys, go through z.TagAttr.
	maxRawAttrs = 16
	maxRawKey   = 64
)

// rawAttrs finds the attributes of raw, the raw text of a start tag, as
// html.Tokenizer's readTag does (tokenizer states 13.2.5.32 to 13.2.5.39
// of the HTML standard, as that tokenizer implements them): the spans of
// the keys and values it keeps, the first of repeated keys (compared
// ASCII case-insensitively) only. ok is false when the values would need
// unescaping or other changes, or there are too many attributes: then the
// caller must use z.TagAttr.
func rawAttrs(raw []byte, spans *[maxRawAttrs]attrSpan) (n int, ok bool) {
	if bytes.IndexByte(raw, '&') >= 0 || bytes.IndexByte(raw, '\r') >= 0 || bytes.IndexByte(raw, 0) >= 0 {
		return 0, false
	}
	end := len(raw)
	// The name: raw[1] is its first letter.
	i := 2
	for i < end && !tagSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	i = skipTagSpace(raw, i)
	for i < end && raw[i] != '>' {
		start := i
		// The key. An '=' first is part of it.
		k0 := i
		for i < end {
			c := raw[i]
			if c == '=' && i > k0 || tagSpace(c) || c == '/' || c == '>' {
				break
			}
			i++
		}
		k1 := i
		// The value.
		v0, v1 := k1, k1
		if j := skipTagSpace(raw, i); j < end {
			switch raw[j] {
			case '/':
				i = j + 1
			case '=':
				j = skipTagSpace(raw, j+1)
				switch {
				case j >= end:
					i = j
				case raw[j] == '>':
					i = j
				case raw[j] == '"' || raw[j] == '\'':
					v0 = j + 1
					if q := bytes.IndexByte(raw[v0:], raw[j]); q >= 0 {
						v1, i = v0+q, v0+q+1
					} else {
						v1, i = end, end
					}
				default:
					v0 = j
					i = j + 1
					for i < end && !tagSpace(raw[i]) && raw[i] != '>' {
						i++
					}
					v1 = i
				}
			default:
				i = j
			}
		} else {
			i = j
		}
		if k1 > k0 && !seenKey(raw, spans[:n], raw[k0:k1]) {
			if n == maxRawAttrs || k1-k0 > maxRawKey {
				return 0, false
			}
			spans[n] = attrSpan{k0, k1, v0, v1}
			n++
		}
		if i == start {
			return 0, false // no progress: not a case the tokenizer has
		}
		i = skipTagSpace(raw, i)
	}
	return n, true
}

// seenKey reports whether key is the key of one of spans, ASCII
// case-insensitively.
func seenKey(raw []byte, spans []attrSpan, key []byte) bool {
next:
	for _, s := range spans {
		k := raw[s.k0:s.k1]
		if len(k) != len(key) {
			continue
		}
		for i, c := range k {
			d := key[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if 'A' <= d && d <= 'Z' {
				d += 'a' - 'A'
			}
			if c != d {
				continue next
			}
		}
		return true
	}
	return false
}

func tagSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

func skipTagSpace(raw []byte, i int) int {
	for i < len(raw) && tagSpace(raw[i]) {
		i++
	}
	return i
}
