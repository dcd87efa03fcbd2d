package extract

import (
	"unicode"
	"unicode/utf8"

	"github.com/godwit-crawler/godwit/internal/htmltok"
	"github.com/godwit-crawler/godwit/internal/simhash"
)

// Signals are what a page's markup says about whether it needs a browser
// to show its content: the render signals that internal/render's
// Selector weighs (render.Signals has the same fields). With
// [Options.Signals] they are read in the same tokenizer pass as the
// links, into [Document.Signals].
type Signals struct {
	TextBytes   int  // visible text, whitespace collapsed per text run
	ScriptBytes int  // inline script bytes
	Scripts     int  // <script> elements (inline or src)
	Links       int  // a[href] and area[href] with a non-empty href
	EmptyRoot   bool // an empty application root: div#root, div#app, div#__next, div#__nuxt, app-root
	NoScriptJS  bool // a <noscript> asking for JavaScript
}

// signalReader reads Signals from the tokens of the scan. It sees the
// page as a tokenizer that leaves <noscript> and <noframes> as raw text
// would (the scan reads their content as markup, for links): between such
// a start tag and its end tag it takes every token's raw text as the
// content of one text run (rawRegion).
type signalReader struct {
	s    Signals
	skip string // "script", "style" or "template" while in one (its text is not visible)
	// region is the element whose content is read as raw text: "noscript"
	// (kept in raw, to look for a request to enable JavaScript), or
	// "noframes" (and a self-closing <noscript/>, which the tokenizer also
	// reads raw: counted as text); "" outside.
	region    string
	noscript  bool // region's content is a <noscript>'s
	raw       []byte
	rootOpen  bool // inside an application root
	rootEmpty bool
	depth     int // open elements inside the root
}

// wantsID reports whether a start tag named name may open an
// application root, so that its id is needed.
func (r *signalReader) wantsID(name []byte, tt htmltok.TokenType) bool {
	return !r.rootOpen && r.region == "" && tt == htmltok.StartTagToken && string(name) == "div"
}

// startTag takes a start tag named name (lower case, "" when unknown to
// us); id is its id, link whether it is an a or area with a non-empty
// href.
func (r *signalReader) startTag(name []byte, tt htmltok.TokenType, id string, link bool) {
	if r.region != "" {
		return // raw text: see rawToken
	}
	if r.rootOpen {
		r.rootEmpty = false
	}
	start := tt == htmltok.StartTagToken
	switch string(name) {
	case "script":
		r.s.Scripts++
		if start {
			r.skip = "script" // its text is script (none for src=)
		}
	case "style", "template":
		if start {
			r.skip = string(name)
		}
	case "noscript":
		// A <noscript/> is raw text too, but not a <noscript>'s content.
		r.region, r.noscript, r.raw = "noscript", start, r.raw[:0]
	case "noframes":
		r.region, r.noscript, r.raw = "noframes", false, r.raw[:0]
	case "a", "area":
		if link {
			r.s.Links++
		}
	}
	if !r.rootOpen && start &&
		(string(name) == "app-root" || string(name) == "div" && (id == "root" || id == "app" || id == "__next" || id == "__nuxt")) {
		r.rootOpen, r.rootEmpty, r.depth = true, true, 0
		return
	}
	if r.rootOpen && start && !voidSignal(name) {
		r.depth++
	}
}

// rawToken takes a token inside a raw-text region, its tt and raw text,
// and reports whether it was raw text to the signals: every token of the
// region but its end tag. Outside a region it reports false.
func (r *signalReader) rawToken(tt htmltok.TokenType, raw []byte) bool {
	if r.region == "" {
		return false
	}
	if tt == htmltok.EndTagToken {
		var buf [8]byte
		if name, _ := simhash.RawTagName(raw, buf[:0]); string(name) == r.region {
			return false
		}
	}
	if r.skip == "" {
		r.raw = append(r.raw, raw...)
	}
	return true
}

// endTag takes an end tag named name.
func (r *signalReader) endTag(name []byte) {
	if r.region != "" { // name is the region's: see rawToken
		r.endRegion()
	}
	if r.skip != "" && string(name) == r.skip {
		r.skip = ""
		return
	}
	if r.rootOpen {
		if r.depth == 0 {
			r.closeRoot()
		} else {
			r.depth--
		}
	}
}

// endRegion reads the content of the raw-text region that ends.
func (r *signalReader) endRegion() {
	if r.skip == "" {
		if r.noscript {
			if simhash.ContainsFold(r.raw, "javascript") || simhash.ContainsFold(r.raw, "enable js") {
				r.s.NoScriptJS = true
			}
		} else {
			r.text(r.raw)
		}
	}
	r.region, r.noscript = "", false
}

// text takes the text of a text token.
func (r *signalReader) text(t []byte) {
	if r.skip == "script" {
		r.s.ScriptBytes += len(t)
		return
	}
	if r.skip != "" {
		return
	}
	n := collapsedLen(t)
	if n > 0 && r.rootOpen {
		r.rootEmpty = false
	}
	r.s.TextBytes += n
}

// end takes the end of the page.
func (r *signalReader) end() Signals {
	if r.region != "" && !r.noscript {
		r.endRegion() // the tokenizer's last text token
	}
	if r.rootOpen {
		r.closeRoot()
	}
	return r.s
}

func (r *signalReader) closeRoot() {
	if r.rootEmpty {
		r.s.EmptyRoot = true
	}
	r.rootOpen = false
}

// voidSignal reports whether the element named name has no end tag.
func voidSignal(name []byte) bool {
	switch string(name) {
	case "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr":
		return true
	}
	return false
}

// collapsedLen is len(strings.Join(strings.Fields(string(t)), " ")),
// without allocating: the bytes of t's fields (runs of non-space, white
// space as unicode.IsSpace says, as for strings.Fields) and one between
// each two.
func collapsedLen(t []byte) int {
	// Branch-free over ASCII: the bytes that are not space, plus the
	// fields (a non-space after a space, or first) less one.
	n, fields := 0, 0
	after := 1 // 1 after white space (or at the start)
	for i := 0; i < len(t); {
		c, size, space := t[i], 1, 0
		if c < utf8.RuneSelf {
			space = int(spaceASCII[c])
		} else {
			var r rune
			r, size = utf8.DecodeRune(t[i:])
			if unicode.IsSpace(r) {
				space = 1
			}
		}
		n += (1 - space) * size
		fields += after &^ space
		after = space
		i += size
	}
	if fields > 1 {
		n += fields - 1
	}
	return n
}

// spaceASCII is 1 for the ASCII bytes unicode.IsSpace calls space.
var spaceASCII = [utf8.RuneSelf]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}
