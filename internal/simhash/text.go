package simhash

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/godwit-crawler/godwit/internal/htmltok"
)

// MaxText is the most bytes of text VisibleText returns. A megabyte of
// text is some 150,000 words, far more than a page needs for its
// fingerprint to be stable, and it bounds the cost of a huge page.
const MaxText = 1 << 20

// VisibleText returns the text a reader sees of an HTML page already
// decoded to UTF-8, without the cheapest-to-recognise boilerplate, for
// Fingerprint. It is a heuristic for near-duplicate detection, not a
// renderer:
//
//   - dropped with their content: comments, <title>, <script>, <style>,
//     <noscript>, <noembed>, <noframes>, <template>, <svg>, <math>,
//     <iframe>, <object>, <canvas>, <select>, elements with the hidden
//     attribute; and navigation: <nav>, <aside>, elements whose role is
//     navigation, banner, contentinfo, complementary or search, and
//     <header> and <footer> except inside <article>, <section>, <main>
//     (where they belong to the content, e.g. an article's headline);
//   - character references are decoded;
//   - every run of white space, and every tag other than inline phrasing
//     tags such as <a>, <b> or <span>, becomes one space; leading and
//     trailing space is dropped;
//   - the result is valid UTF-8 (invalid bytes become U+FFFD) and at most
//     MaxText bytes, cut at a character boundary.
//
// The page is read with the HTML tokenizer, not parsed into a tree, so
// memory is bounded by the page and the result, and there is no tree to
// repair misnested markup: an unclosed skipped element (<nav> with no
// </nav>) hides the rest of the page, up to </body>.
func VisibleText(page []byte) string {
	t := NewText(len(page))
	t.feedBytes(page)
	return t.String()
}

// VisibleTextFrom is VisibleText of the UTF-8 HTML that r yields; size,
// if known, sizes the result's buffer. The page is read whole first.
func VisibleTextFrom(r io.Reader, size int) string {
	t := NewText(size)
	t.feed(r)
	return t.String()
}

// feed gives t every token of the page r yields, until t is full.
func (t *Text) feed(r io.Reader) {
	page, _ := io.ReadAll(r) // what was read before an error, as a tokenizer would
	t.feedBytes(page)
}

// feedBytes gives t every token of page, until t is full.
func (t *Text) feedBytes(page []byte) {
	z := htmltok.New(page)
	z.SetMaxToken(MaxText)
	for !t.Full() {
		switch tt := z.Next(); tt {
		case htmltok.ErrorToken:
			return
		case htmltok.TextToken:
			t.Text(z.Text())
		case htmltok.StartTagToken, htmltok.SelfClosingTagToken:
			t.StartTag(z, tt, nil)
		case htmltok.EndTagToken:
			t.EndTag(z)
		}
	}
}

// Text builds the visible text of a page (see VisibleText) from the
// tokens of a tokenizer its caller drives, so that a caller that reads the
// page for other reasons (extract.HTML, for links) makes one pass over it
// instead of two. Feed it every token of the page, in order, until Full.
// Not safe for concurrent use.
type Text struct {
	w        textWriter
	skip     string // name of the element being skipped, "" if none
	depth    int    // open elements named skip, while skipping
	sections int    // open <article>, <section>, <main>
}

// NewText returns an empty Text; size, if known, is the page's size and
// sizes the text's buffer.
func NewText(size int) *Text {
	t := &Text{}
	t.w.keep = true
	t.w.b.Grow(min(max(size, 0), MaxText)) // text is at most about the page: one allocation
	return t
}

// NewTextFingerprint returns an empty Text that keeps only the
// fingerprint of the text (see Fingerprint), computed as the text is
// written: String returns "", and nothing of the size of the page is
// allocated.
func NewTextFingerprint() *Text { return &Text{} }

// Reset empties t for another page (or another pass over the same page).
func (t *Text) Reset() {
	t.w.b.Reset()
	t.w.words.reset()
	t.w.n, t.w.pending, t.w.full = 0, false, false
	t.skip, t.depth, t.sections = "", 0, 0
}

// Full reports whether the text has reached MaxText: more tokens change
// nothing.
func (t *Text) Full() bool { return t.w.full }

// String returns the text so far; "" for a Text of NewTextFingerprint.
func (t *Text) String() string { return t.w.b.String() }

// Fingerprint returns Fingerprint of the text so far, and whether there
// is any text (String() != "" for a Text of NewText).
func (t *Text) Fingerprint() (fp uint64, ok bool) {
	return t.w.words.sum(), t.w.n > 0
}

// Text takes the text of a text token (z.Text()).
func (t *Text) Text(p []byte) {
	if t.skip == "" {
		t.w.text(p)
	}
}

// StartTag takes the current token of z, a start tag (tt is
// htmltok.StartTagToken or htmltok.SelfClosingTagToken). hidden, if not
// nil, answers whether the tag's attributes mark its element as hidden or
// as navigation, for a caller that has read the attributes itself
// (HiddenAttr of each); nil reads them from z when needed.
func (t *Text) StartTag(z *htmltok.Tokenizer, tt htmltok.TokenType, hidden func() bool) {
	name := z.TagName()
	class := tagClasses[string(name)]
	// Self-closing syntax means an empty element only in SVG and MathML;
	// on an HTML element it is ignored.
	selfClosing := tt == htmltok.SelfClosingTagToken && class&foreignTag != 0
	if t.skip != "" {
		if string(name) == t.skip && !selfClosing {
			t.depth++
		}
		return
	}
	if class&inlineTag == 0 {
		t.w.space()
	}
	if selfClosing || class&voidTag != 0 {
		return
	}
	switch {
	case class&skipTag != 0:
	case (string(name) == "header" || string(name) == "footer") && t.sections == 0:
	case hidden != nil && hidden():
	case hidden == nil && hiddenByAttr(z):
	default:
		if class&sectionTag != 0 {
			t.sections++
		}
		return
	}
	t.skip, t.depth = string(name), 1
}

// EndTag takes the current token of z, an end tag.
func (t *Text) EndTag(z *htmltok.Tokenizer) {
	name := z.TagName()
	if t.skip != "" {
		switch string(name) {
		case t.skip:
			if t.depth--; t.depth == 0 {
				t.skip = ""
			}
		case "body", "html":
			// A skipped element left open ends with the document, not
			// the page's text.
			t.skip = ""
		}
		return
	}
	class := tagClasses[string(name)]
	if class&sectionTag != 0 && t.sections > 0 {
		t.sections--
	}
	if class&inlineTag == 0 {
		t.w.space()
	}
}

// HiddenAttr reports whether the attribute key="val" (key lower-cased, as
// htmltok's Attr returns it) marks its element as hidden or as navigation: the
// hidden attribute, or a role that is a landmark of the page's frame.
func HiddenAttr(key, val []byte) bool {
	switch string(key) {
	case "hidden":
		return true
	case "role":
		// The first role token the user agent knows applies; these are
		// all well known, so the first token decides.
		f := strings.Fields(strings.ToLower(string(val)))
		return len(f) > 0 && skipRoles[f[0]]
	}
	return false
}

// RawTagName appends to dst, lower-cased, the element name in raw, the
// raw text of a start or end tag (htmltok.Tokenizer.Raw). ok is false, and the result dst[:0], when the name is
// longer than cap(dst) or holds a NUL byte (which z.TagName spells
// U+FFFD): a caller looking for known names may take that as none of
// them.
func RawTagName(raw, dst []byte) (name []byte, ok bool) {
	i := 1 // '<'
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	for ; i < len(raw); i++ {
		c := raw[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == ' ' || c == '/' || c == '>' || c == '\t' || c == '\n' || c == '\f' || c == '\r':
			return dst, true
		case c == 0:
			return dst[:0], false
		}
		if len(dst) == cap(dst) {
			return dst[:0], false
		}
		dst = append(dst, c)
	}
	return dst, true
}

// hiddenByAttr reports whether the attributes of the current start tag
// mark its element as hidden or as navigation. Only a key of the length
// of "hidden" or "role" is lower-cased and looked at, and only a role's
// value decoded.
func hiddenByAttr(z *htmltok.Tokenizer) bool {
	for i := range z.NumAttr() {
		if k, _ := z.RawAttr(i); (len(k) == len("hidden") || len(k) == len("role")) && HiddenAttr(z.Attr(i)) {
			return true
		}
	}
	return false
}

var (
	// skipTags are dropped with their content.
	skipTags = set("title", "script", "style", "noscript", "noembed", "noframes", "template",
		"svg", "math", "iframe", "object", "canvas", "select", "nav", "aside")
	// skipRoles are ARIA roles whose elements are dropped: the landmarks
	// of a page's frame rather than its content.
	skipRoles = set("navigation", "banner", "contentinfo", "complementary", "search")
	// sectionTags hold content whose <header> and <footer> are kept.
	sectionTags = set("article", "section", "main")
	// foreignTags honour self-closing syntax.
	foreignTags = set("svg", "math")
	// voidTags have no content and no end tag.
	voidTags = set("area", "base", "br", "col", "embed", "hr", "img", "input",
		"link", "meta", "param", "source", "track", "wbr")
	// inlineTags do not separate words: "<b>G</b>odwit" is one word.
	inlineTags = set("a", "abbr", "b", "bdi", "bdo", "cite", "code", "data",
		"del", "dfn", "em", "font", "i", "ins", "kbd", "mark", "q", "s",
		"samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "wbr")
)

// tagClass is what the lists above say of an element, one bit a list.
type tagClass uint8

const (
	skipTag tagClass = 1 << iota
	sectionTag
	foreignTag
	voidTag
	inlineTag
)

// tagClasses is the lists above by element name: one look-up a tag.
var tagClasses = func() map[string]tagClass {
	m := map[string]tagClass{}
	for _, l := range []struct {
		names map[string]bool
		class tagClass
	}{{skipTags, skipTag}, {sectionTags, sectionTag}, {foreignTags, foreignTag}, {voidTags, voidTag}, {inlineTags, inlineTag}} {
		for n := range l.names {
			m[n] |= l.class
		}
	}
	return m
}()

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// textWriter collapses white space and caps the text at MaxText bytes;
// it fingerprints the text as it goes and keeps it if keep is set.
type textWriter struct {
	keep    bool
	b       strings.Builder
	n       int  // bytes of text written
	pending bool // a space is owed before the next character
	full    bool
	words   wordHasher
}

// space separates what comes next from what came before.
func (w *textWriter) space() {
	w.pending = w.n > 0
}

func (w *textWriter) text(s []byte) {
	for len(s) > 0 && !w.full {
		c := s[0]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				w.space()
				s = s[1:]
				continue
			}
		} else if r, size := utf8.DecodeRune(s); r == utf8.RuneError && size == 1 {
			w.write(runeError, true)
			s = s[1:]
			continue
		} else if unicode.IsSpace(r) {
			w.space()
			s = s[size:]
			continue
		}
		// A run of valid UTF-8 without space, written at once.
		n := 0
		for n < len(s) {
			if c := s[n]; c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
				n++
				continue
			}
			r, size := utf8.DecodeRune(s[n:])
			if r == utf8.RuneError && size == 1 || unicode.IsSpace(r) {
				break
			}
			n += size
		}
		w.write(s[:n], n < len(s))
		s = s[n:]
	}
}

// runeError is the UTF-8 of U+FFFD, which stands for an invalid byte.
var runeError = []byte(string(utf8.RuneError))

// write appends p, valid UTF-8 without space, after the pending space if
// any; what does not fit in MaxText is cut at a character boundary. ends
// says that p is followed by a space or other non-word character in the
// text (wordHasher.write).
func (w *textWriter) write(p []byte, ends bool) {
	room := MaxText - w.n
	if w.pending {
		room--
	}
	if len(p) > room {
		w.full = true
		for room > 0 && !utf8.RuneStart(p[room]) {
			room--
		}
		if room <= 0 {
			return
		}
		p = p[:room]
	}
	if w.pending {
		if w.keep {
			w.b.WriteByte(' ')
		}
		w.words.separate()
		w.n++
		w.pending = false
	}
	if w.keep {
		w.b.Write(p)
	}
	w.words.write(p, ends)
	w.n += len(p)
}

// asciiSpace is the ASCII white space of unicode.IsSpace.
var asciiSpace = [utf8.RuneSelf]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSpace[r]
	}
	return unicode.IsSpace(r)
}

// ContainsFold reports whether s contains lower, a lower-case ASCII word,
// in any ASCII case: a cheap look at a tag's raw bytes before its
// attributes are parsed (extract reads its render signals this way too).
func ContainsFold(s []byte, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for ; j < len(lower); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}
