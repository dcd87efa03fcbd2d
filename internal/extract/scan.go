package extract

import (
	"errors"
	"net/url"

	"github.com/godwit-crawler/godwit/internal/htmltok"
	"github.com/godwit-crawler/godwit/internal/robots"
	"github.com/godwit-crawler/godwit/internal/simhash"
)

// scan tokenizes body decoded from cs and collects the document. If cs is
// tentative and the tokenizer meets a <meta> that declares another
// encoding, scan stops and returns that encoding instead, as the HTML
// standard's "change the encoding".
func scan(page *url.URL, body []byte, cs charset, opts *Options) (*Document, *charset) {
	s := &pass{
		opts: opts,
		cs:   cs,
		d:    &Document{Encoding: cs.name, EncodingSource: cs.source},
		text: opts.Text,
		z:    htmltok.New(cs.decode(body)),
	}
	if opts.Signals {
		s.sig = &signalReader{}
	}
	s.z.SetMaxToken(MaxToken)
	for s.next() {
	}
	if s.changed != nil {
		return nil, s.changed
	}
	if s.sig != nil {
		s.d.Signals = s.sig.end()
	}
	s.resolve(page)
	return s.d, nil
}

// pass is one pass of the tokenizer over a page: a method for each
// kind of token, each feeding the links, the title, the robots <meta>,
// and, when asked for, the visible text (text) and the render signals
// (sig).
type pass struct {
	opts *Options
	cs   charset
	d    *Document
	z    *htmltok.Tokenizer
	text *simhash.Text // nil: no visible text
	sig  *signalReader // nil: no signals
	// sigTok is whether the current token goes to sig as a token (not
	// as raw text of a <noscript> or <noframes>: signalReader.rawToken).
	sigTok bool

	refs, embeds []pending
	inStyle      bool // the next text token is the content of a <style>
	base         string
	haveBase     bool
	title        []byte
	inTitle      bool
	titleDone    bool
	foreign      int      // depth of <svg> and <math>, whose <title> is not the page's
	changed      *charset // the encoding a <meta> declared, when the page must be read again
}

// next reads one token and reports whether to go on.
func (s *pass) next() bool {
	tt := s.z.Next()
	s.sigTok = s.sig != nil && tt != htmltok.ErrorToken && !s.sig.rawToken(tt, s.z.Raw())
	switch tt {
	case htmltok.ErrorToken:
		// io.EOF, or a token longer than MaxToken.
		if errors.Is(s.z.Err(), htmltok.ErrTooLong) {
			s.d.Truncated = true
		}
		return false
	case htmltok.TextToken:
		s.textToken()
	case htmltok.EndTagToken:
		s.endTag()
	case htmltok.StartTagToken, htmltok.SelfClosingTagToken:
		return s.startTag(tt)
	}
	return true
}

// textToken reads a text token: inline CSS, the title, the visible text,
// the signals' text.
func (s *pass) textToken() {
	text := s.text
	if text != nil && text.Full() {
		text = nil
	}
	title := s.inTitle && len(s.title) < 4*MaxTitle
	if !s.inStyle && !title && text == nil && !s.sigTok {
		return // nobody reads it: not unescaped
	}
	t := s.z.Text()
	if s.inStyle {
		s.inStyle = false
		if scanCSS(t, s.opts.MaxLinks-len(s.embeds), func(ref, attr string) {
			s.embeds = append(s.embeds, pending{ref: ref, tag: "style", attr: attr})
		}) {
			s.d.Truncated = true
		}
		title = false
	}
	if title {
		s.title = append(s.title, t...)
		if s.text != nil {
			s.text.Text(t) // past Full too, as before: it changes nothing
		}
	} else if text != nil {
		text.Text(t)
	}
	if s.sigTok {
		s.sig.text(t)
	}
}

// endTag reads an end tag.
func (s *pass) endTag() {
	if s.text != nil {
		s.text.EndTag(s.z)
	}
	name := s.z.TagName()
	if s.sigTok {
		s.sig.endTag(name)
	}
	switch string(name) {
	case "title":
		if s.inTitle {
			s.inTitle, s.titleDone = false, true
		}
	case "svg", "math":
		if s.foreign > 0 {
			s.foreign--
		}
	}
}

// linkTag returns the element and attribute of a link in elements named
// name ("a", "href"), or "", "".
func linkTag(name []byte) (tag, attr string) {
	switch string(name) {
	case "a":
		return "a", "href"
	case "area":
		return "area", "href"
	case "link":
		return "link", "href"
	case "frame":
		return "frame", "src"
	case "iframe":
		return "iframe", "src"
	}
	return "", ""
}

// startTag reads a start or self-closing tag; it reports false when a
// <meta> changed the encoding (s.changed).
func (s *pass) startTag(tt htmltok.TokenType) bool {
	z := s.z
	name := z.TagName()
	tag, attr := linkTag(name)
	var etag string
	if s.opts.Embeds {
		etag = embedTag(name)
	}
	// The attributes that anyone needs are read once, here, and the text
	// is told what they say (la.hidden).
	var la linkAttrs
	var ea embedAttrs
	read := true // la holds what the text needs to know (hidden)
	switch {
	case etag != "":
		ea = readEmbedAttrs(z)
		la = ea.linkAttrs
	case tag != "":
		la = attrs(z, attr, tag != "frame" && tag != "iframe")
	case s.sigTok && s.sig.wantsID(name, tt) && simhash.ContainsFold(z.Raw(), "id"):
		la = attrs(z, "id", false) // an application root?
	default:
		read = false
	}
	if s.text != nil {
		if read {
			s.text.StartTag(z, tt, func() bool { return la.hidden })
		} else {
			s.text.StartTag(z, tt, nil)
		}
	}
	if s.sigTok {
		var id string
		if tag == "" && etag == "" {
			id = la.value
		}
		s.sig.startTag(name, tt, id, (tag == "a" || tag == "area") && la.value != "")
	}
	if !s.element(name, tt) {
		return false
	}
	if etag != "" {
		if tag == "link" && !embedRel(la.rel) {
			etag = "" // an ordinary link
		} else {
			tag = ""
		}
		if etag != "" && !ea.add(etag, &s.embeds, s.opts.MaxLinks) {
			s.d.Truncated = true
		}
	}
	if tag == "" {
		return true
	}
	if !la.ok || skip(la.value) {
		return true
	}
	if len(s.refs) == s.opts.MaxLinks {
		s.d.Truncated = true
		return true
	}
	s.refs = append(s.refs, pending{ref: la.value, tag: tag, attr: attr, rel: la.rel})
	return true
}

// element reads what a start tag named name means to the scan besides
// links: the base URL, the title, foreign content, <meta>, raw text read
// as markup, inline CSS. It reports false when a <meta> changed the
// encoding.
func (s *pass) element(name []byte, tt htmltok.TokenType) bool {
	switch string(name) {
	case "base":
		if !s.haveBase {
			if a := attrs(s.z, "href", false); a.ok {
				s.base, s.haveBase = a.value, true
			}
		}
	case "title":
		if tt == htmltok.StartTagToken && !s.titleDone && s.foreign == 0 {
			s.inTitle = true
		}
	case "svg", "math":
		if tt == htmltok.StartTagToken {
			s.foreign++
		}
	case "meta":
		return s.meta()
	case "noscript", "noframes":
		// Read the content as markup, not raw text.
		s.z.NextIsNotRawText()
	case "style":
		s.inStyle = s.opts.Embeds && tt == htmltok.StartTagToken
	}
	return true
}

// meta reads a <meta>: robots directives, and a declared encoding, which
// settles a tentative one or, when it names another, stops the scan
// (s.changed).
func (s *pass) meta() bool {
	m := readMeta(s.z)
	if m.hasName && m.hasContent && metaApplies(m.name, s.opts.Agents) {
		s.d.Robots = s.d.Robots.Merge(robots.ParseMeta(m.content))
	}
	if s.cs.certain || s.foreign > 0 {
		return true
	}
	if name, enc, ok := m.encoding(); ok {
		if name != s.cs.name && s.cs.name != "utf-16le" && s.cs.name != "utf-16be" {
			s.changed = &charset{name: name, enc: enc, source: SourceMeta, certain: true}
			return false
		}
		// The same encoding: now certain, and owed to a <meta>.
		s.cs.certain, s.cs.source = true, SourceMeta
		s.d.EncodingSource = SourceMeta
	}
	return true
}

// resolve fills in the title and resolves the links and embeds against
// the document's base URL.
func (s *pass) resolve(page *url.URL) {
	d := s.d
	d.Title = cleanTitle(s.title)
	qe := newQueryEncoder(s.cs)
	baseURL := page
	if s.haveBase {
		if b, ok := resolve(baseURL, s.base, qe); ok {
			baseURL = b
		}
	}
	fb := newFastBase(baseURL)
	d.Links = make([]Link, 0, len(s.refs))
	for _, p := range s.refs {
		if u, ok := resolveString(fb, baseURL, p.ref, qe); ok {
			d.Links = append(d.Links, Link{URL: u, Tag: p.tag, Attr: p.attr, Rel: p.rel})
		}
	}
	if len(s.embeds) > 0 {
		d.Embeds = make([]Link, 0, len(s.embeds))
		for _, p := range s.embeds {
			if u, ok := resolveString(fb, baseURL, p.ref, qe); ok {
				d.Embeds = append(d.Embeds, Link{URL: u, Tag: p.tag, Attr: p.attr})
			}
		}
	}
}
