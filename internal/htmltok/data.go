package htmltok

import (
	"bytes"
	"unicode/utf8"
)

// Text returns the text of a text, comment or doctype token as x/net/html's
// Text does: CR LF and CR as LF, NUL as U+FFFD in raw text, RCDATA and
// comments, character references decoded except in raw text (script,
// style and the others). It is the input itself when nothing changes.
// Unlike x/net/html's, it can be called more than once.
func (z *Tokenizer) Text() []byte {
	switch z.tt {
	case TextToken, CommentToken, DoctypeToken:
	default:
		return nil
	}
	s := z.buf[z.data.start:z.data.end]
	nul := z.convertNUL || z.tt == CommentToken
	unescape := !z.textIsRaw
	if !needsWork(s, nul, unescape) {
		return s
	}
	z.text = decode(z.text[:0], s, nul, unescape, false)
	return z.text
}

// needsWork reports whether s has a CR, a NUL when nul, or an '&' when
// amp: bytes that decode changes.
func needsWork(s []byte, nul, amp bool) bool {
	for _, c := range s {
		if c == '\r' || c == 0 && nul || c == '&' && amp {
			return true
		}
	}
	return false
}

// decode appends s to dst with CR LF and CR as LF, NUL as U+FFFD if nul,
// and character references decoded (as in an attribute value if attr)
// if unescape: in that order, as x/net/html does.
func decode(dst, s []byte, nul, unescape, attr bool) []byte {
	start := len(dst)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			dst = append(dst, '\n')
		case c == 0 && nul:
			dst = append(dst, "\uFFFD"...)
		default:
			dst = append(dst, c)
		}
	}
	if !unescape {
		return dst
	}
	// Character references shrink or keep their length except for a few
	// (&gt as U+226B U+20D2 ...): decode in place when the result fits.
	return unescapeInPlace(dst, start, attr)
}

// unescapeInPlace decodes the character references of b[start:], as
// x/net/html's unescape.
func unescapeInPlace(b []byte, start int, attr bool) []byte {
	first := bytes.IndexByte(b[start:], '&')
	if first < 0 {
		return b
	}
	src := start + first
	// Decoding in place: the output is behind src, except where a
	// reference decodes longer than itself; then the rest goes through
	// a copy.
	out := src
	for src < len(b) {
		if b[src] != '&' {
			b[out] = b[src]
			out++
			src++
			continue
		}
		r1, r2, n := reference(b[src:], attr)
		if n == 0 {
			b[out] = '&'
			out++
			src++
			continue
		}
		l := utf8.RuneLen(r1)
		if r2 != 0 {
			l += utf8.RuneLen(r2)
		}
		if out+l > src+n {
			// Longer than the reference: finish in a new slice.
			rest := append([]byte(nil), b[src+n:]...)
			b = b[:out]
			b = utf8.AppendRune(b, r1)
			if r2 != 0 {
				b = utf8.AppendRune(b, r2)
			}
			k := len(b)
			b = append(b, rest...)
			return unescapeInPlace(b, k, attr)
		}
		out += utf8.EncodeRune(b[out:], r1)
		if r2 != 0 {
			out += utf8.EncodeRune(b[out:], r2)
		}
		src += n
	}
	return b[:out]
}

// TagName returns the lower-cased name of the current start, self-closing
// or end tag, NUL bytes as U+FFFD, as x/net/html's TagName; nil for other
// tokens. It is the input itself when that is already so.
func (z *Tokenizer) TagName() []byte {
	switch z.tt {
	case StartTagToken, SelfClosingTagToken, EndTagToken:
	default:
		return nil
	}
	return z.lower(z.buf[z.data.start:z.data.end], &z.name)
}

// RawName returns the name of the current tag as it is in the input.
func (z *Tokenizer) RawName() []byte {
	switch z.tt {
	case StartTagToken, SelfClosingTagToken, EndTagToken:
		return z.buf[z.data.start:z.data.end]
	}
	return nil
}

// lower returns s lower-cased, NUL as U+FFFD, in *buf if it changes.
func (z *Tokenizer) lower(s []byte, buf *[]byte) []byte {
	for _, c := range s {
		if 'A' <= c && c <= 'Z' || c == 0 {
			b := (*buf)[:0]
			for _, c := range s {
				if c == 0 {
					b = append(b, "\uFFFD"...)
					continue
				}
				b = append(b, toLower(c))
			}
			*buf = b
			return b
		}
	}
	return s
}

// NumAttr returns the number of attributes of the current start or
// self-closing tag: the first of each key (compared ASCII
// case-insensitively), as x/net/html's TagAttr hands them out.
func (z *Tokenizer) NumAttr() int { return len(z.attrs) }

// Attr returns the i-th attribute of the current start or self-closing
// tag: its key lower-cased and its value, both with NUL as U+FFFD, the
// value with CR LF and CR as LF and its character references decoded as
// in an attribute value: what x/net/html's TagAttr returns. They are the
// input itself when nothing changes, else valid until the next call of
// Attr or Next.
func (z *Tokenizer) Attr(i int) (key, val []byte) {
	a := z.attrs[i]
	key = z.lower(z.buf[a.key.start:a.key.end], &z.key)
	val = z.buf[a.val.start:a.val.end]
	if needsWork(val, true, true) {
		z.val = decode(z.val[:0], val, true, true, true)
		val = z.val
	}
	return key, val
}

// RawAttr returns the i-th attribute as it is in the input.
func (z *Tokenizer) RawAttr(i int) (key, val []byte) {
	a := z.attrs[i]
	return z.buf[a.key.start:a.key.end], z.buf[a.val.start:a.val.end]
}
