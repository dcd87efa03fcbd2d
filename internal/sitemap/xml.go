package sitemap

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
)

// field is the child element of an entry whose text is being collected.
type field int

const (
	fieldNone    field = iota
	fieldLoc           // <loc> (urlset, index), <link> (RSS)
	fieldGUID          // RSS <guid>, a fallback for a missing <link>
	fieldLastMod       // <lastmod>, RSS <pubDate>, Atom <updated>
	fieldAltDate       // RSS <dc:date>, Atom <published>: used when the above is missing
	fieldChangeFreq
	fieldPriority
)

// xmlState is the state of the XML walk. Elements are matched by local
// name, case-insensitively; an entry's fields must be its direct children
// and, in sitemaps, share its namespace prefix (so <image:loc> inside
// <image:image>, or a stray <foo:loc>, is not the page's <loc>).
type xmlState struct {
	stack      []xml.Name // open elements; the root is stack[0]
	entryDepth int        // len(stack) when the entry element opened; 0 outside entries
	field      field
	fieldDepth int
	text       []byte // the field's text so far, up to maxURLBytes+1 bytes
	over       bool   // the field's text was longer than that

	// The entry being read.
	loc, guid        string
	locBad           bool // a location was present but too long
	lastMod, altDate time.Time
	changeFreq       string
	priority         float64

	zones map[int]*time.Location // fixed zones by offset, shared by the entries
}

func (p *parser) runXML() error {
	d := xml.NewDecoder(p.in.br)
	// Lenient where it costs nothing: a bare '&' in a URL ("?a=1&b=2", the
	// commonest mistake in hand-written sitemaps) and HTML entities are
	// kept, unquoted attributes accepted. End tags are matched by us,
	// case-insensitively, closing any element left open (as in HTML).
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charsetReader
	p.in.guard.armed = true
	x := &p.x
	for {
		p.in.guard.mark = p.in.guard.n
		tok, err := d.RawToken()
		if err == io.EOF {
			if len(x.stack) == 0 {
				return fmt.Errorf("%w: no root element", ErrMalformed)
			}
			return fmt.Errorf("%w: unexpected end of file inside <%s>", ErrMalformed, short(x.stack[len(x.stack)-1].Local))
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := p.start(t); err != nil {
				return err
			}
		case xml.EndElement:
			done, err := p.end(t.Name)
			if done || err != nil {
				return err
			}
		case xml.CharData:
			if x.field != fieldNone && !x.over {
				if len(x.text)+len(t) > maxURLBytes {
					x.over = true
				} else {
					x.text = append(x.text, t...)
				}
			}
		}
	}
}

func (p *parser) start(t xml.StartElement) error {
	x := &p.x
	if len(x.stack) == maxDepth {
		return fmt.Errorf("%w: elements nested deeper than %d", ErrMalformed, maxDepth)
	}
	x.stack = append(x.stack, t.Name)
	depth := len(x.stack)
	name := t.Name.Local
	if depth == 1 {
		switch {
		case strings.EqualFold(name, "urlset"):
			p.res.Kind = URLSet
		case strings.EqualFold(name, "sitemapindex"):
			p.res.Kind = Index
		case strings.EqualFold(name, "rss"), strings.EqualFold(name, "rdf"):
			p.res.Kind = RSS
		case strings.EqualFold(name, "feed"):
			p.res.Kind = Atom
		default:
			return fmt.Errorf("%w: root element <%s> is not a sitemap", ErrMalformed, short(name))
		}
		return nil
	}
	if x.entryDepth == 0 {
		if p.isEntry(name, depth) {
			x.entryDepth = depth
			x.loc, x.guid, x.locBad = "", "", false
			x.lastMod, x.altDate = time.Time{}, time.Time{}
			x.changeFreq, x.priority = "", -1
		}
		return nil
	}
	if depth != x.entryDepth+1 || x.field != fieldNone {
		return nil
	}
	f := p.fieldOf(t)
	if f != fieldNone {
		x.field, x.fieldDepth = f, depth
		x.text, x.over = x.text[:0], false
	}
	return nil
}

// isEntry reports whether an element opening at depth is an entry of the
// file's kind.
func (p *parser) isEntry(name string, depth int) bool {
	switch p.res.Kind {
	case URLSet:
		return depth == 2 && strings.EqualFold(name, "url")
	case Index:
		return depth == 2 && strings.EqualFold(name, "sitemap")
	case RSS:
		// RSS 2.0: rss > channel > item; RSS 1.0: rdf:RDF > item.
		return strings.EqualFold(name, "item") &&
			(depth == 2 || depth == 3 && strings.EqualFold(p.x.stack[1].Local, "channel"))
	case Atom:
		return depth == 2 && strings.EqualFold(name, "entry")
	}
	return false
}

// fieldOf classifies a direct child of the current entry. Atom links are
// read here, from their attributes.
func (p *parser) fieldOf(t xml.StartElement) field {
	x := &p.x
	name := t.Name.Local
	samePrefix := strings.EqualFold(t.Name.Space, x.stack[x.entryDepth-1].Space)
	switch p.res.Kind {
	case URLSet, Index:
		if !samePrefix {
			return fieldNone
		}
		switch {
		case strings.EqualFold(name, "loc"):
			return fieldLoc
		case strings.EqualFold(name, "lastmod"):
			return fieldLastMod
		case p.res.Kind == Index:
			return fieldNone
		case strings.EqualFold(name, "changefreq"):
			return fieldChangeFreq
		case strings.EqualFold(name, "priority"):
			return fieldPriority
		}
	case RSS:
		switch {
		case samePrefix && strings.EqualFold(name, "link"):
			return fieldLoc
		case samePrefix && strings.EqualFold(name, "guid"):
			if strings.EqualFold(strings.TrimSpace(attr(t, "isPermaLink")), "false") {
				return fieldNone
			}
			return fieldGUID
		case strings.EqualFold(name, "pubDate"):
			return fieldLastMod
		case strings.EqualFold(name, "date"): // dc:date, RSS 1.0
			return fieldAltDate
		}
	case Atom:
		switch {
		case samePrefix && strings.EqualFold(name, "link"):
			rel := strings.TrimSpace(attr(t, "rel"))
			if x.loc == "" && (rel == "" || strings.EqualFold(rel, "alternate")) {
				p.setLoc([]byte(attr(t, "href")))
			}
		case strings.EqualFold(name, "updated"):
			return fieldLastMod
		case strings.EqualFold(name, "published"):
			return fieldAltDate
		}
	}
	return fieldNone
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if strings.EqualFold(a.Name.Local, local) {
			return a.Value
		}
	}
	return ""
}

// end closes the element named by an end tag, and any element left open
// inside it. A stray end tag matching no open element is ignored. done
// reports that the root element has closed: the rest of the file is not
// read.
func (p *parser) end(name xml.Name) (done bool, err error) {
	x := &p.x
	i := len(x.stack) - 1
	for ; i >= 0; i-- {
		open := x.stack[i]
		if strings.EqualFold(open.Local, name.Local) && strings.EqualFold(open.Space, name.Space) {
			break
		}
	}
	if i < 0 {
		return false, nil
	}
	for depth := len(x.stack); depth > i; depth-- {
		x.stack = x.stack[:depth-1]
		switch depth {
		case 1:
			return true, nil
		case x.fieldDepth:
			p.endField()
		case x.entryDepth:
			x.entryDepth = 0
			if err := p.endEntry(); err != nil {
				return false, err
			}
		}
	}
	return false, nil
}

func (p *parser) endField() {
	x := &p.x
	f := x.field
	x.field, x.fieldDepth = fieldNone, 0
	if x.over {
		if f == fieldLoc || f == fieldGUID {
			x.locBad = true
		}
		return
	}
	v := bytes.TrimSpace(x.text)
	switch f {
	case fieldLoc:
		if x.loc == "" {
			p.setLoc(v)
		}
	case fieldGUID:
		if x.guid == "" && hasHTTPPrefix(v) {
			x.guid = string(v)
		}
	case fieldLastMod:
		if x.lastMod.IsZero() {
			x.lastMod = p.parseTime(v)
		}
	case fieldAltDate:
		if x.altDate.IsZero() {
			x.altDate = p.parseTime(v)
		}
	case fieldChangeFreq:
		if x.changeFreq == "" {
			x.changeFreq = changeFreq(v)
		}
	case fieldPriority:
		if x.priority < 0 {
			x.priority = priority(v)
		}
	}
}

func (p *parser) setLoc(v []byte) {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) > maxURLBytes:
		p.x.locBad = true
	case len(v) > 0:
		p.x.loc = string(v)
	}
}

func (p *parser) endEntry() error {
	x := &p.x
	x.field, x.fieldDepth = fieldNone, 0
	loc := x.loc
	if loc == "" {
		loc = x.guid
	}
	if loc == "" {
		p.res.Skipped++
		return nil
	}
	lastMod := x.lastMod
	if lastMod.IsZero() {
		lastMod = x.altDate
	}
	return p.emit(Entry{URL: loc, LastMod: lastMod, ChangeFreq: x.changeFreq, Priority: x.priority})
}

func (p *parser) parseTime(v []byte) time.Time {
	if t, ok := parseW3C(v, &p.x.zones); ok {
		return t
	}
	if p.res.Kind == RSS {
		return parseRFC822(string(v))
	}
	return time.Time{}
}

// changeFreqs are the values of <changefreq>, as returned (no allocation).
var changeFreqs = [...]string{"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}

func changeFreq(v []byte) string {
	for _, c := range changeFreqs {
		if bytes.EqualFold(v, []byte(c)) {
			return c
		}
	}
	return ""
}

func priority(v []byte) float64 {
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || !(f >= 0 && f <= 1) {
		return -1
	}
	return f
}

// charsetReader converts the encodings an XML declaration may name. A
// document that starts with '<' as a single byte is not UTF-16, whatever
// it declares, and an unknown label is read as UTF-8 rather than refused.
func charsetReader(label string, r io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "utf-16", "utf-16le", "utf-16be", "utf16", "ucs-2", "unicode":
		return r, nil
	}
	if cr, err := charset.NewReaderLabel(label, r); err == nil {
		return cr, nil
	}
	return r, nil
}

// short cuts a name for an error message.
func short(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
