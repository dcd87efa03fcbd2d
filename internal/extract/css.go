package extract

import (
	"bytes"
	"net/url"
	"strings"
)

// MaxCSS bounds the stylesheet bytes [CSS] scans: a stylesheet past it is
// read up to it and reported truncated. Real stylesheets are far smaller;
// the bound keeps a hostile one from costing more than its fetch did.
const MaxCSS = 4 << 20

// CSS returns the resources a stylesheet at URL sheet refers to: the
// targets of url(...) (backgrounds, fonts, cursors, …) and of @import,
// resolved against sheet, in order, http(s) only, at most max (0:
// DefaultMaxLinks). Truncated reports that the sheet had more, or was
// longer than MaxCSS. Each Link's Tag is "css" and its Attr "url" or
// "import". The sheet is read as UTF-8 (URLs are ASCII in practice);
// malformed CSS is read as far as it makes sense, never rejected.
func CSS(sheet *url.URL, body []byte, max int) (links []Link, truncated bool) {
	if sheet == nil || !sheet.IsAbs() || sheet.Host == "" {
		return nil, false
	}
	if max <= 0 {
		max = DefaultMaxLinks
	}
	qe := newQueryEncoder(charset{name: "utf-8"})
	truncated = scanCSS(body, max, func(ref, attr string) {
		if u, ok := resolve(sheet, ref, qe); ok {
			links = append(links, Link{URL: u.String(), Tag: "css", Attr: attr})
		}
	})
	return links, truncated
}

// scanCSS calls found with the raw reference and its kind ("url" or
// "import") of every url(...) and @import of css, skipping comments and
// strings, up to max references and MaxCSS bytes; it reports whether it
// stopped early. It is a scanner, not a parser: it tokenizes only as much
// of CSS Syntax Level 3 as finding these needs (comments, strings with
// their escapes, url tokens, at-keywords), in one pass, with no
// backtracking, so its cost is linear in the input.
func scanCSS(css []byte, max int, found func(ref, attr string)) (truncated bool) {
	if len(css) > MaxCSS {
		css, truncated = css[:MaxCSS], true
	}
	n := 0
	emit := func(ref, attr string) bool {
		if skip(ref) {
			return true
		}
		if n == max {
			return false
		}
		n++
		found(ref, attr)
		return true
	}
	importNext := false // the previous token was @import
	for i := 0; i < len(css); {
		c := css[i]
		switch {
		case c == '/' && i+1 < len(css) && css[i+1] == '*':
			end := bytes.Index(css[i+2:], []byte("*/"))
			if end < 0 {
				return truncated
			}
			i += 2 + end + 2
		case c == '"' || c == '\'':
			s, next := cssString(css, i)
			if importNext && !emit(s, "import") {
				return true
			}
			importNext = false
			i = next
		case c == '@':
			j := i + 1
			for j < len(css) && isNameByte(css[j]) {
				j++
			}
			importNext = foldBytes(css[i+1:j], "import")
			i = j
		case (c == 'u' || c == 'U') && i+3 < len(css) && foldBytes(css[i:i+4], "url(") &&
			(i == 0 || !isNameByte(css[i-1])):
			ref, next := cssURL(css, i+4)
			attr := "url"
			if importNext {
				attr = "import"
			}
			importNext = false
			if !emit(ref, attr) {
				return true
			}
			i = next
		case c == '\\':
			i += 2 // an escaped character is never the start of a token we want
		default:
			if !isCSSSpace(c) {
				importNext = false
			}
			i++
		}
	}
	return truncated
}

// cssString reads the string token that starts with the quote at css[i]
// and returns its value and the index after it. An unescaped newline
// ends it (a bad string, in CSS terms), as does the end of the input.
func cssString(css []byte, i int) (string, int) {
	quote := css[i]
	var b strings.Builder
	for i++; i < len(css); i++ {
		c := css[i]
		switch {
		case c == quote:
			return b.String(), i + 1
		case c == '\n':
			return b.String(), i
		case c == '\\' && i+1 < len(css):
			i = cssEscape(css, i, &b) - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), i
}

// cssURL reads what follows "url(" at css[i]: a quoted string or an
// unquoted URL up to ")", and returns it and the index after the ")".
func cssURL(css []byte, i int) (string, int) {
	for i < len(css) && isCSSSpace(css[i]) {
		i++
	}
	if i < len(css) && (css[i] == '"' || css[i] == '\'') {
		s, next := cssString(css, i)
		if end := bytes.IndexByte(css[next:], ')'); end >= 0 {
			next += end + 1
		} else {
			next = len(css)
		}
		return s, next
	}
	var b strings.Builder
	for ; i < len(css); i++ {
		c := css[i]
		switch {
		case c == ')':
			return strings.TrimRight(b.String(), asciiSpace), i + 1
		case c == '\\' && i+1 < len(css):
			i = cssEscape(css, i, &b) - 1
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimRight(b.String(), asciiSpace), i
}

// cssEscape decodes the escape that starts with the backslash at css[i]
// into b and returns the index after it: up to six hex digits and one
// optional whitespace (a code point), or one escaped character; an
// escaped newline in a string is a continuation and adds nothing.
func cssEscape(css []byte, i int, b *strings.Builder) int {
	i++
	if css[i] == '\n' {
		return i + 1
	}
	if !ishex(css[i]) {
		b.WriteByte(css[i])
		return i + 1
	}
	var r rune
	j := i
	for ; j < len(css) && j < i+6 && ishex(css[j]); j++ {
		r = r<<4 | rune(unhex(css[j]))
	}
	if j < len(css) && isCSSSpace(css[j]) {
		j++
	}
	if r == 0 || r > 0x10FFFF || 0xD800 <= r && r <= 0xDFFF {
		r = '\uFFFD'
	}
	b.WriteRune(r)
	return j
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isCSSSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// isNameByte reports whether c continues a CSS identifier (non-ASCII
// bytes do).
func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c >= 0x80
}

// foldBytes is equalFoldASCII for a byte slice, without converting it.
func foldBytes(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x := a[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != b[i] {
			return false
		}
	}
	return true
}
