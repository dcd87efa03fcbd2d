package extract

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/transform"
)

// The values of [Document.EncodingSource]: where the document's character
// encoding came from, in the order of precedence of the HTML standard.
const (
	SourceBOM     = "bom"     // a byte order mark
	SourceHeader  = "header"  // the charset parameter of Options.ContentType
	SourceMeta    = "meta"    // a <meta charset> or <meta http-equiv=content-type>
	SourceSniffed = "sniffed" // the body is valid UTF-8 with non-ASCII bytes
	SourceDefault = "default" // none of the above: windows-1252
)

const (
	// prescanLimit is how many bytes the <meta> prescan reads, the
	// number the HTML standard suggests and browsers use.
	prescanLimit = 1024
	// defaultEncoding is the fallback of the HTML standard for an
	// unknown locale.
	defaultEncoding = "windows-1252"
)

// charset is a document's character encoding and how it was determined.
type charset struct {
	name    string            // WHATWG name, lower-case: "utf-8", "shift_jis"
	enc     encoding.Encoding // decoder of name
	source  string            // one of the Source constants
	bom     int               // length of the byte order mark to skip
	certain bool              // false while a <meta> met by the tokenizer may still change it
}

// lookup returns the encoding labeled label ("latin1", " Shift_JIS "),
// as the Encoding Standard's "get an encoding": labels are trimmed of
// ASCII whitespace and compared case-insensitively.
func lookup(label string) (name string, enc encoding.Encoding, ok bool) {
	enc, err := htmlindex.Get(label)
	if err != nil {
		return "", nil, false
	}
	name, err = htmlindex.Name(enc)
	if err != nil {
		return "", nil, false
	}
	return name, enc, true
}

// mustLookup is lookup for the names this package spells itself.
func mustLookup(name string) encoding.Encoding {
	_, enc, ok := lookup(name)
	if !ok {
		panic("extract: no encoding " + name)
	}
	return enc
}

// fromMeta is the encoding named by label in a <meta>, where the HTML
// standard reads UTF-16 as UTF-8 (a page that can declare its encoding
// in ASCII is not UTF-16) and x-user-defined as windows-1252.
func fromMeta(label string) (name string, enc encoding.Encoding, ok bool) {
	name, enc, ok = lookup(label)
	switch {
	case !ok:
		return "", nil, false
	case name == "utf-16le" || name == "utf-16be":
		name = "utf-8"
	case name == "x-user-defined":
		name = defaultEncoding
	default:
		return name, enc, true
	}
	return name, mustLookup(name), true
}

// determine runs the HTML standard's "determining the character
// encoding" over body, the whole response, with contentType its
// Content-Type header: byte order mark, transport-layer charset, <meta>
// prescan of the first 1024 bytes, UTF-8 sniffing, default. Only the
// first two are certain; a tentative encoding may still be changed by a
// <meta> the tokenizer meets later (see [HTML]).
func determine(body []byte, contentType string) charset {
	if name, n := bom(body); n > 0 {
		return charset{name: name, enc: mustLookup(name), source: SourceBOM, bom: n, certain: true}
	}
	if label, ok := contentTypeCharset(contentType); ok {
		if name, enc, ok := lookup(label); ok {
			return charset{name: name, enc: enc, source: SourceHeader, certain: true}
		}
	}
	if name, enc, ok := prescan(body[:min(len(body), prescanLimit)]); ok {
		return charset{name: name, enc: enc, source: SourceMeta}
	}
	if sniffUTF8(body) {
		return charset{name: "utf-8", enc: mustLookup("utf-8"), source: SourceSniffed}
	}
	return charset{name: defaultEncoding, enc: mustLookup(defaultEncoding), source: SourceDefault}
}

// bom returns the encoding of the byte order mark that starts body, and
// its length, or 0.
func bom(body []byte) (string, int) {
	switch {
	case bytes.HasPrefix(body, []byte("\xEF\xBB\xBF")):
		return "utf-8", 3
	case bytes.HasPrefix(body, []byte("\xFE\xFF")):
		return "utf-16be", 2
	case bytes.HasPrefix(body, []byte("\xFF\xFE")):
		return "utf-16le", 2
	}
	return "", 0
}

// contentTypeCharset returns the charset parameter of a Content-Type
// value, read as leniently as the MIME Sniffing standard's "parse a MIME
// type": the first charset parameter wins, its value may be quoted, and
// a malformed neighbour does not void it (mime.ParseMediaType would
// reject "text/html; charset=utf-8;;" or a repeated parameter).
func contentTypeCharset(ct string) (string, bool) {
	semi := strings.IndexByte(ct, ';')
	if semi < 0 || strings.IndexByte(ct[:semi], '/') < 0 {
		return "", false
	}
	for s := ct[semi+1:]; s != ""; {
		s = trimLeftHTTPSpace(s)
		end := 0
		for end < len(s) && s[end] != ';' && s[end] != '=' {
			end++
		}
		name := s[:end]
		s = s[end:]
		if s == "" || s[0] == ';' {
			s = cut1(s)
			continue
		}
		s = s[1:] // '='
		var value string
		if s != "" && s[0] == '"' {
			value, s = quotedString(s)
			if i := strings.IndexByte(s, ';'); i >= 0 {
				s = s[i:]
			} else {
				s = ""
			}
		} else {
			i := strings.IndexByte(s, ';')
			if i < 0 {
				i = len(s)
			}
			value = trimRightHTTPSpace(s[:i])
			s = s[i:]
		}
		s = cut1(s)
		if equalFoldASCII(name, "charset") && value != "" {
			return value, true
		}
	}
	return "", false
}

// quotedString reads the HTTP quoted string at the start of s, with its
// backslash escapes, and returns its value and the rest of s.
func quotedString(s string) (value, rest string) {
	var b []byte
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return string(b), s[i+1:]
		case '\\':
			if i+1 < len(s) {
				i++
				b = append(b, s[i])
			}
		default:
			b = append(b, c)
		}
	}
	return string(b), ""
}

func cut1(s string) string {
	if s != "" {
		return s[1:]
	}
	return s
}

func isHTTPSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func trimLeftHTTPSpace(s string) string {
	for s != "" && isHTTPSpace(s[0]) {
		s = s[1:]
	}
	return s
}

func trimRightHTTPSpace(s string) string {
	for s != "" && isHTTPSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// sniffUTF8 reports whether body has non-ASCII bytes and is valid UTF-8
// but for a rune cut at the end, as a body capped by the caller may be.
// All of the body is read, not only its first 1024 bytes: an English page
// with its first curly quote in the second kilobyte is still UTF-8.
func sniffUTF8(body []byte) bool {
	i := 0
	for i < len(body) && body[i] < utf8.RuneSelf {
		i++
	}
	if i == len(body) {
		return false
	}
	body = body[i:]
	for j := len(body) - 1; j >= 0 && j >= len(body)-utf8.UTFMax; j-- {
		if utf8.RuneStart(body[j]) {
			if !utf8.FullRune(body[j:]) {
				body = body[:j]
			}
			break
		}
	}
	return utf8.Valid(body)
}

// decode returns body, without its byte order mark, decoded to UTF-8,
// invalid sequences replaced by U+FFFD: body itself when it is valid
// UTF-8, else the whole page decoded, once.
func (c charset) decode(body []byte) []byte {
	body = body[c.bom:]
	if c.name == "utf-8" && utf8.Valid(body) || c.asciiIdentity(body) {
		return body
	}
	// The decoders replace what they cannot decode and fail on nothing;
	// were one to, the tokens would end there, as they did on a reader.
	b, _, _ := transform.Bytes(c.enc.NewDecoder(), body)
	return b
}

// asciiIdentity reports whether c decodes body to itself: body is ASCII
// (without the bytes ISO-2022-JP's decoder reads as escapes or errors)
// in an encoding that maps ASCII to itself, which every one but UTF-16
// and the replacement encoding does (TestASCIIIdentity). Most pages
// without a declared encoding are so (read as windows-1252).
func (c charset) asciiIdentity(body []byte) bool {
	switch c.name {
	case "utf-16le", "utf-16be", "replacement":
		return false
	}
	for _, b := range body {
		if b >= utf8.RuneSelf || b == 0x0e || b == 0x0f || b == 0x1b {
			return false
		}
	}
	return true
}

// reader returns body, without its byte order mark, decoded to UTF-8,
// invalid sequences replaced by U+FFFD. A valid UTF-8 body is read as
// is; others are decoded as they are read, in the decoder's small
// buffers, so the only copy of the page in UTF-8 is the tokenizer's.
func (c charset) reader(body []byte) io.Reader {
	body = body[c.bom:]
	if c.name == "utf-8" && utf8.Valid(body) {
		return &eofReader{b: body}
	}
	return transform.NewReader(&eofReader{b: body}, c.enc.NewDecoder())
}

// eofReader reads b, and reports io.EOF with its last bytes rather than
// on the next call: the tokenizer, told early, does not double its buffer
// once more for the end of a long last token.
type eofReader struct{ b []byte }

func (r *eofReader) Read(p []byte) (int, error) {
	n := copy(p, r.b)
	r.b = r.b[n:]
	if len(r.b) == 0 {
		return n, io.EOF
	}
	return n, nil
}

// metaCharset returns the label of the encoding that
// <meta http-equiv=content-type content=s> declares, following the HTML
// standard's "extracting a character encoding from a meta element".
func metaCharset(s string) (string, bool) {
	for {
		i := indexFoldASCII(s, "charset")
		if i < 0 {
			return "", false
		}
		s = s[i+len("charset"):]
		t := trimLeftASCIISpace(s)
		if t == "" || t[0] != '=' {
			s = t
			continue
		}
		t = trimLeftASCIISpace(t[1:])
		if t != "" && (t[0] == '"' || t[0] == '\'') {
			end := strings.IndexByte(t[1:], t[0])
			if end < 0 {
				return "", false
			}
			return t[1 : 1+end], true
		}
		end := 0
		for end < len(t) && t[end] != ';' && !isASCIISpace(t[end]) {
			end++
		}
		return t[:end], true
	}
}

// indexFoldASCII is strings.Index ignoring the case of ASCII letters.
func indexFoldASCII(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if equalFoldASCII(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func trimLeftASCIISpace(s string) string {
	for s != "" && isASCIISpace(s[0]) {
		s = s[1:]
	}
	return s
}

// Decoded returns a reader of body decoded to UTF-8 in the encoding HTML
// determined for it (d.Encoding; a BOM is skipped), for a second look at
// the page such as its visible text. Unknown encodings read as
// windows-1252, the default.
func Decoded(body []byte, d *Document) io.Reader {
	name, enc, ok := lookup(d.Encoding)
	if !ok {
		name, enc = "windows-1252", mustLookup("windows-1252")
	}
	c := charset{name: name, enc: enc}
	if d.EncodingSource == SourceBOM {
		_, c.bom = bom(body)
	}
	return c.reader(body)
}
