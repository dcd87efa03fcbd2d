package extract

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
)

// queryEncoder percent-encodes the query of a link as the WHATWG URL
// parser does for http(s) URLs given the document's encoding: its
// non-ASCII characters become the percent-encoded bytes of the document's
// encoding, not of UTF-8, so that a form-like link of a Shift_JIS page
// asks the server for what the server expects; characters the encoding
// cannot represent become "%26%23" NNNN "%3B", the escaped "&#NNNN;". The
// rest of a URL (path, fragment) is always UTF-8. The zero value, or one
// made for UTF-8, UTF-16 or replacement, encodes in UTF-8.
type queryEncoder struct {
	enc encoding.Encoding // nil for UTF-8
	e   *encoding.Encoder // made on first use, then reused
}

// newQueryEncoder returns the query encoder of a document in c; the URL
// standard's "get an output encoding" turns UTF-16 and replacement into
// UTF-8.
func newQueryEncoder(c charset) *queryEncoder {
	switch c.name {
	case "utf-8", "utf-16le", "utf-16be", "replacement":
		return &queryEncoder{}
	}
	return &queryEncoder{enc: c.enc}
}

// inQuerySet reports whether ASCII byte c is in the special-query
// percent-encode set: C0 controls, space, the double quote, '#', '<',
// '>', the apostrophe and DEL.
func inQuerySet(c byte) bool {
	return c <= ' ' || c == '"' || c == '#' || c == '<' || c == '>' || c == '\'' || c == 0x7f
}

// encode returns q, the query of a URL without its '?', percent-encoded.
// Existing escapes ("%41") are left alone.
func (qe *queryEncoder) encode(q string) string {
	i := 0
	for i < len(q) && q[i] < utf8.RuneSelf && !inQuerySet(q[i]) {
		i++
	}
	if i == len(q) {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	b.WriteString(q[:i])
	for i < len(q) {
		if c := q[i]; c < utf8.RuneSelf {
			writeQueryByte(&b, c)
			i++
			continue
		}
		j := i + 1
		for j < len(q) && q[j] >= utf8.RuneSelf {
			j++
		}
		qe.writeRun(&b, q[i:j])
		i = j
	}
	return b.String()
}

// writeRun writes run, non-ASCII text, encoded and percent-encoded. The
// run is encoded whole, for the stateful ISO-2022-JP, and rune by rune
// only when it has a character the encoding lacks.
func (qe *queryEncoder) writeRun(b *strings.Builder, run string) {
	if qe.enc == nil {
		writeQueryBytes(b, run)
		return
	}
	if qe.e == nil {
		qe.e = qe.enc.NewEncoder()
	}
	if out, err := qe.e.String(run); err == nil {
		writeQueryBytes(b, out)
		return
	}
	for _, r := range run {
		out, err := qe.e.String(string(r))
		if err != nil {
			b.WriteString("%26%23")
			b.WriteString(strconv.Itoa(int(r)))
			b.WriteString("%3B")
			continue
		}
		writeQueryBytes(b, out)
	}
}

func writeQueryBytes(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		writeQueryByte(b, s[i])
	}
}

// writeQueryByte writes c, a byte of the encoded query, percent-encoded
// if it is not ASCII or is in the special-query set.
func writeQueryByte(b *strings.Builder, c byte) {
	const hex = "0123456789ABCDEF"
	if c < utf8.RuneSelf && !inQuerySet(c) {
		b.WriteByte(c)
		return
	}
	b.WriteByte('%')
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&15])
}
