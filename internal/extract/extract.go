package extract

import (
	"errors"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"

	"github.com/godwit-crawler/godwit/internal/htmltok"
	"github.com/godwit-crawler/godwit/internal/robots"
	"github.com/godwit-crawler/godwit/internal/simhash"
)

// ErrPageURL reports a page URL that cannot serve as a base: nil or not
// absolute.
var ErrPageURL = errors.New("extract: page URL must be absolute")

const (
	// DefaultMaxLinks is the default of [Options.MaxLinks].
	DefaultMaxLinks = 10_000
	// MaxTitle is the maximum length of [Document.Title] in bytes.
	MaxTitle = 512
	// MaxToken bounds one token (a run of text, a tag with its
	// attributes, a comment). Extraction stops at a longer token, keeping
	// the links before it (and a long text's first MaxToken bytes), and
	// sets [Document.Truncated], as it did when the tokenizer buffered
	// each token (golang.org/x/net/html's SetMaxBuf: a page of one 20 MiB
	// text run, a decompression bomb of spaces, cost several times that);
	// the tokenizer now reads the page in place, and the bound keeps
	// what is extracted as it was. Data-URI images in attributes are the
	// largest legitimate tokens; they stay well under this.
	MaxToken = 4 << 20
)

// Options configures [HTML]. The zero value is usable; [Options.Default]
// makes the defaults explicit.
type Options struct {
	// MaxLinks caps the number of links returned; 0 means DefaultMaxLinks.
	MaxLinks int
	// Agents are the names, besides "robots", of the <meta> tags read into
	// [Document.Robots]: the crawler's product tokens, such as "godwit".
	// Compared case-insensitively; nil reads <meta name="robots"> only.
	Agents []string
	// ContentType is the Content-Type header of the response, if any
	// ("text/html; charset=Shift_JIS"): its charset parameter, when it
	// names an encoding, overrides any <meta> of the page.
	ContentType string
	// Text, if not nil, is given every token of the page as it is read,
	// so that it holds the page's visible text afterwards (for a SimHash)
	// without a second pass over the page. It is reset if the page is
	// read again in another encoding. A token longer than MaxToken ends
	// the text too.
	Text *simhash.Text
	// Embeds also collects the page's requisites into [Document.Embeds]
	// (see the package doc, Page requisites), in the same pass: a <link>
	// whose rel names a requisite (stylesheet, icon, preload, …) is then
	// an embed, not a link.
	Embeds bool
	// Signals also reads the page's render signals into
	// [Document.Signals], in the same pass.
	Signals bool
}

// Default fills in unset fields.
func (o *Options) Default() {
	if o.MaxLinks <= 0 {
		o.MaxLinks = DefaultMaxLinks
	}
}

// Link is an outlink of a page.
type Link struct {
	URL  string // absolute http(s) URL, resolved against the base; not normalized
	Tag  string // element: "a", "area", "link", "frame" or "iframe"
	Attr string // attribute: "href" or "src"
	Rel  string // rel attribute, ASCII lower-case and trimmed; "" when absent (see HasRel)
}

// HasRel reports whether token (such as "nofollow" or "canonical") is one
// of the tokens of the link's rel, compared ASCII case-insensitively as
// HTML does: "NoFollow" is in rel="ugc nofollow". Tokens are separated by
// ASCII whitespace, as in HTML, and also by commas, which Google accepts
// ("You may specify multiple rel values as a space- or comma-separated
// list"): rel="ugc,nofollow" is nofollow too. It does not allocate.
func (l Link) HasRel(token string) bool {
	rel := l.Rel
	for rel != "" {
		i := strings.IndexAny(rel, relSeparators)
		if i < 0 {
			return equalFoldASCII(rel, token)
		}
		if i > 0 && equalFoldASCII(rel[:i], token) {
			return true
		}
		rel = rel[i+1:]
	}
	return false
}

const (
	// asciiSpace is ASCII whitespace, as HTML defines it.
	asciiSpace = "\t\n\f\r "
	// relSeparators separate the tokens of a rel attribute for HasRel.
	relSeparators = asciiSpace + ","
)

// Document is what [HTML] extracts from a page.
type Document struct {
	// Title is the text of the first <title>, whitespace collapsed,
	// trimmed, at most MaxTitle bytes of valid UTF-8.
	Title string
	// Links are the outlinks, in document order.
	Links []Link
	// Embeds are the page's requisites, in document order, with
	// Options.Embeds; at most MaxLinks of them. Tag and Attr say where
	// each was found ("img" "srcset", "link" "href", "style" "url", …).
	Embeds []Link
	// Truncated reports that extraction stopped early: the page had more
	// than MaxLinks links, or a token longer than MaxToken.
	Truncated bool
	// Robots are the directives of the page's <meta name="robots"> tags
	// and of its <meta> tags named after one of Options.Agents, merged,
	// wherever they are in the page. The X-Robots-Tag headers of the
	// response are the caller's to merge in (robots.ParseXRobotsTag).
	Robots robots.Directives
	// Encoding is the character encoding the page was decoded from, its
	// WHATWG name in lower case: "utf-8", "windows-1252", "shift_jis",
	// "euc-kr", ... (labels are resolved: "latin1" and "iso-8859-1" are
	// "windows-1252", "sjis" is "shift_jis"). See the package doc.
	Encoding string
	// EncodingSource is where Encoding came from: SourceBOM,
	// SourceHeader, SourceMeta, SourceSniffed or SourceDefault.
	EncodingSource string
	// Signals are the page's render signals, with Options.Signals.
	Signals Signals
}

// pending is a link found by the tokenizer, resolved once the base is
// known.
type pending struct {
	ref, tag, attr, rel string
}

// Links returns the outlinks of the page at URL page, with default
// options. See [HTML].
func Links(page *url.URL, body []byte) ([]Link, error) {
	d, err := HTML(page, body, nil)
	if err != nil {
		return nil, err
	}
	return d.Links, nil
}

// HTML extracts the title and outlinks of body, the HTML page at URL page,
// after decoding it from its character encoding (see the package doc).
// o may be nil for the defaults. The only errors are an unusable page URL
// ([ErrPageURL]); malformed HTML is read as browsers read it.
func HTML(page *url.URL, body []byte, o *Options) (*Document, error) {
	if page == nil || !page.IsAbs() || page.Host == "" {
		return nil, ErrPageURL
	}
	var opts Options
	if o != nil {
		opts = *o
	}
	opts.Default()

	cs := determine(body, opts.ContentType)
	d, changed := scan(page, body, cs, &opts)
	if changed != nil {
		// A <meta> past the prescan named another encoding: start again
		// in it, as browsers reload. It is certain, so this happens once.
		if opts.Text != nil {
			opts.Text.Reset()
		}
		d, _ = scan(page, body, *changed, &opts)
	}
	return d, nil
}

// linkAttrs are the attributes of a tag that attrs reads.
type linkAttrs struct {
	value, rel string
	ok         bool // the attribute asked for is there (value)
	hidden     bool // an attribute hides the element from the visible text (simhash.HiddenAttr)
}

// attrs reads the attributes of the current tag and returns the value of
// attribute name and, if wantRel, of rel. The first of repeated attributes
// wins, as in browsers.
func attrs(z *htmltok.Tokenizer, name string, wantRel bool) linkAttrs {
	var a linkAttrs
	var haveRel bool
	for i := range z.NumAttr() {
		k, v := z.Attr(i)
		switch {
		case !a.ok && string(k) == name:
			a.value, a.ok = string(v), true
		case wantRel && !haveRel && string(k) == "rel":
			a.rel, haveRel = lowerASCII(strings.Trim(string(v), asciiSpace)), true
		}
		if !a.hidden && simhash.HiddenAttr(k, v) {
			a.hidden = true
		}
	}
	return a
}

// lowerASCII lower-cases the ASCII letters of s, as HTML does for
// keywords, leaving other characters alone.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// equalFoldASCII reports whether a and b are equal ignoring the case of
// ASCII letters only, as HTML compares keywords (strings.EqualFold would
// also equate "s" and the long s, "k" and the Kelvin sign).
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// meta is the attributes of a <meta> tag that matter to us. The first of
// repeated attributes wins.
type meta struct {
	name, content, charset, httpEquiv             string
	hasName, hasContent, hasCharset, hasHTTPEquiv bool
}

// readMeta reads the attributes of the current <meta> tag.
func readMeta(z *htmltok.Tokenizer) meta {
	var m meta
	for i := range z.NumAttr() {
		k, v := z.Attr(i)
		switch {
		case !m.hasName && string(k) == "name":
			m.name, m.hasName = string(v), true
		case !m.hasContent && string(k) == "content":
			m.content, m.hasContent = string(v), true
		case !m.hasCharset && string(k) == "charset":
			m.charset, m.hasCharset = string(v), true
		case !m.hasHTTPEquiv && string(k) == "http-equiv":
			m.httpEquiv, m.hasHTTPEquiv = string(v), true
		}
	}
	return m
}

// encoding returns the encoding the <meta> declares, by its charset
// attribute or else as <meta http-equiv=content-type content=...>, as
// the HTML standard's tree builder reads a <meta>.
func (m meta) encoding() (string, encoding.Encoding, bool) {
	if m.hasCharset {
		if name, enc, ok := fromMeta(m.charset); ok {
			return name, enc, true
		}
	}
	if m.hasHTTPEquiv && m.hasContent && equalFoldASCII(m.httpEquiv, "content-type") {
		if label, ok := metaCharset(m.content); ok {
			return fromMeta(label)
		}
	}
	return "", nil, false
}

// metaApplies reports whether a <meta> tag named name speaks to us:
// "robots" or one of agents, ASCII case-insensitively, surrounding
// whitespace ignored.
func metaApplies(name string, agents []string) bool {
	name = strings.Trim(name, asciiSpace)
	if equalFoldASCII(name, "robots") {
		return true
	}
	for _, a := range agents {
		if a != "" && equalFoldASCII(name, a) {
			return true
		}
	}
	return false
}

// skip reports whether a raw attribute value is certainly not a link to
// follow: empty, fragment-only, or of a scheme other than http(s).
func skip(ref string) bool {
	ref = strings.TrimLeft(ref, "\t\n\f\r ")
	if ref == "" || ref[0] == '#' {
		return true
	}
	scheme, ok := schemeOf(ref)
	return ok && !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https")
}

// schemeOf returns the scheme of ref, ignoring the tabs and newlines that
// browsers remove ("java\nscript:" is javascript:).
func schemeOf(ref string) (string, bool) {
	if strings.ContainsAny(ref, "\t\n\r") {
		ref = removeTabsNewlines(ref)
	}
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return ref[:i], true
		default:
			return "", false
		}
	}
	return "", false
}

func removeTabsNewlines(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '\t' && c != '\n' && c != '\r' {
			b = append(b, c)
		}
	}
	return string(b)
}

// resolve resolves the attribute value ref against base, after the
// clean-up browsers apply, its query encoded by qe, and reports whether the result is an http(s)
// URL with a host.
func resolve(base *url.URL, ref string, qe *queryEncoder) (*url.URL, bool) {
	// C0 controls and spaces around the value go, as in the URL parser.
	ref = strings.TrimFunc(ref, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(ref, "\t\n\r") {
		ref = removeTabsNewlines(ref)
	}
	if ref == "" || ref[0] == '#' {
		return nil, false
	}
	// Backslashes are slashes in http(s) URLs, before the query.
	end := strings.IndexAny(ref, "?#")
	if end < 0 {
		end = len(ref)
	}
	if strings.Contains(ref[:end], `\`) {
		ref = strings.ReplaceAll(ref[:end], `\`, "/") + ref[end:]
	}
	if end < len(ref) && ref[end] == '?' {
		q := end + 1
		qend := strings.IndexByte(ref[q:], '#')
		if qend < 0 {
			qend = len(ref)
		} else {
			qend += q
		}
		ref = ref[:q] + qe.encode(ref[q:qend]) + ref[qend:]
	}
	r, err := url.Parse(escapeStray(ref))
	if err != nil {
		return nil, false
	}
	u := base.ResolveReference(r)
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" || u.Host == "" || u.Opaque != "" {
		return nil, false
	}
	return u, true
}

// escapeStray percent-encodes what net/url rejects but browsers accept: a
// '%' that starts no escape, and control characters.
func escapeStray(s string) string {
	bad := func(i int) bool {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return true
		}
		return c == '%' && !(i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]))
	}
	i := 0
	for i < len(s) && !bad(i) {
		i++
	}
	if i == len(s) {
		return s
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if bad(i) {
			b.WriteByte('%')
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&15])
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// cleanTitle collapses runs of ASCII whitespace into one space, trims,
// replaces invalid UTF-8 and cuts at MaxTitle bytes on a rune boundary.
func cleanTitle(raw []byte) string {
	t := strings.Join(strings.FieldsFunc(string(raw), func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
	}), " ")
	t = strings.ToValidUTF8(t, "\uFFFD")
	if len(t) <= MaxTitle {
		return t
	}
	cut := MaxTitle
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	return strings.TrimRight(t[:cut], " ")
}
