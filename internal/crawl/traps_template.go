package crawl

import (
	"strings"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// The template defence does not depend on what a trap's URLs look like.
// A URL's template is its path with numbers, hex and UUID-like ids
// generalized, and the sorted names of its query parameters, values
// dropped: "/sess/17?sid=x" (sid stripped by the key) is "/sess/{n}",
// "/list?page=3&sort=new" is "/list?page&sort". Per host and template,
// the crawl counts how many URLs new to the crawl (the frontier's
// seen-set says which) the fetched pages of the template yield outside
// the template. A trap is a template that only feeds itself: a session
// chain, a calendar, an ever-longer search, an infinite facet. Once the
// last Traps.TemplatePages fetched pages of a template yielded nothing
// new outside it, the template stops expanding itself: a link found on a
// page of the template, to the same template on the same host, at least
// Traps.TemplateHops hops deeper than the template's first URL, is
// refused ("template-exhausted"). Links into the template from other
// pages are never refused, so pages a listing links to are all fetched,
// and real pagination, whose pages keep yielding new articles, is
// followed to its end. The hop condition keeps a site whose pages share
// one template (a tree of /p/{n}), and which near the end of its crawl
// yields nothing new, from being cut: such trees are shallow.

// templateState is one template of one host.
type templateState struct {
	entry  int  // the least depth of a URL of the template admitted or fetched
	barren int  // consecutive fetched pages that yielded nothing new outside
	pages  int  // pages of the template fetched
	open   bool // a fetched page of the template linked outside it
}

// maxTemplates bounds the templates remembered per host. When it is
// reached, a template with at most one page fetched is forgotten to make
// room; when none is, later templates are not tracked (never refused).
const maxTemplates = 64

// templateFilter refuses the links by which an exhausted template
// expands itself.
type templateFilter struct{ c *Crawler }

func (f templateFilter) filter(cd *candidate) verdict {
	cfg := f.c.cfg.Traps
	if cd.sitemapSourced() || cd.link.Embed > 0 || cfg.TemplatePages < 0 {
		return pass
	}
	p := cd.page
	p.tmplBuf = appendURLTemplate(p.tmplBuf[:0], cd.path, cd.query)
	tmpl := p.tmplBuf
	if len(tmpl) == 0 {
		return pass
	}
	self := cd.link.Host == p.task.Host && string(tmpl) == f.c.pageTemplateOf(p)
	if !f.c.traps.templateAdmit(cd.link.Host, tmpl, cd.link.Depth, self) {
		return f.c.trapVerdict(cd, trapTemplate)
	}
	return pass
}

// templateAdmit decides on a link of template tmpl at depth; self says
// it was found on a page of the same template and host.
// tmpl is only read: the state is looked up without converting it to a
// string, which is made only for a new template.
func (t *traps) templateAdmit(host string, tmpl []byte, depth int, self bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.host(host).templateBytes(tmpl, depth)
	if st == nil {
		return true
	}
	if self && st.barren >= st.window(t.cfg.TemplatePages) && depth-st.entry >= t.cfg.TemplateHops {
		return false
	}
	st.entry = min(st.entry, depth)
	return true
}

// window is how many barren pages in a row exhaust the template: pages
// for an open template, half of it for a closed one.
func (st *templateState) window(pages int) int {
	if st.open {
		return pages
	}
	return (pages + 1) / 2
}

// yielded records that a page of template tmpl, at depth, fetched from
// host, yielded n URLs new to the crawl outside its template; outward
// says that the page had a link outside the template, new or not.
func (t *traps) yielded(host, tmpl string, depth, n int, outward bool) {
	if tmpl == "" || t.cfg.TemplatePages < 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.host(host).template(tmpl, depth)
	if st == nil {
		return
	}
	st.pages++
	st.entry = min(st.entry, depth)
	st.open = st.open || outward
	if n > 0 {
		st.barren = 0
	} else {
		st.barren++
	}
}

// template returns the state of tmpl, created at depth if there is room,
// nil if not. t.mu must be held.
func (ht *hostTraps) template(tmpl string, depth int) *templateState {
	if st := ht.templates[tmpl]; st != nil {
		return st
	}
	return ht.newTemplate(tmpl, depth)
}

// templateBytes is template for a template spelled in a buffer. t.mu
// must be held.
func (ht *hostTraps) templateBytes(tmpl []byte, depth int) *templateState {
	if st := ht.templates[string(tmpl)]; st != nil { // no allocation
		return st
	}
	return ht.newTemplate(string(tmpl), depth)
}

// newTemplate creates the state of tmpl, not yet known, at depth if
// there is room; nil if not. t.mu must be held.
func (ht *hostTraps) newTemplate(tmpl string, depth int) *templateState {
	if len(ht.templates) >= maxTemplates && !ht.evictTemplate() {
		return nil
	}
	if ht.templates == nil {
		ht.templates = make(map[string]*templateState)
	}
	st := &templateState{entry: depth}
	ht.templates[tmpl] = st
	return st
}

// evictTemplate makes room by forgetting a template that had at most one
// page fetched (most often a template that names one URL), and reports
// whether it found one. t.mu must be held.
func (ht *hostTraps) evictTemplate() bool {
	for k, st := range ht.templates {
		if st.pages <= 1 {
			delete(ht.templates, k)
			return true
		}
	}
	return false
}

// pageTemplateOf is the URL template of the page p was found on.
func (c *Crawler) pageTemplateOf(p *page) string {
	if !p.hasTmpl {
		p.hasTmpl = true
		p.template = c.pageTemplate(p.task)
	}
	return p.template
}

// pageTemplate is the URL template of a task's page, "" if none.
func (c *Crawler) pageTemplate(t Task) string {
	key := t.Key
	if key == "" {
		u, err := urlnorm.Parse(t.URL)
		if err != nil {
			return ""
		}
		key = c.canon.Key(u)
	}
	return urlTemplate(keyPathQuery(key))
}

// urlTemplate is the template of a key's path and (sorted) query: ""
// when the URL has nothing to generalize (no number, id or query), since
// such a template names one URL.
func urlTemplate(path, query string) string {
	return string(appendURLTemplate(nil, path, query))
}

// appendURLTemplate appends the template of path and query to dst, as
// urlTemplate spells it, and returns the extended buffer; it returns
// dst unchanged when urlTemplate would return "". The filter builds
// every link's template in its page's buffer: no allocation per link.
func appendURLTemplate(dst []byte, path, query string) []byte {
	b := dst
	general := query != ""
	for i, rest := 0, path; ; i++ {
		s, more := rest, false
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			s, rest, more = rest[:j], rest[j+1:], true
		}
		if i > 0 {
			b = append(b, '/')
		}
		switch {
		case isIDSegment(s):
			b = append(b, "{id}"...)
			general = true
		default:
			for j := 0; j < len(s); {
				if !isDigitByte(s[j]) {
					b = append(b, s[j])
					j++
					continue
				}
				for j < len(s) && isDigitByte(s[j]) {
					j++
				}
				b = append(b, "{n}"...)
				general = true
			}
		}
		if !more {
			break
		}
	}
	if !general {
		return dst
	}
	if query != "" {
		b = append(b, '?')
		prev := ""
		first := true
		for q := query; q != ""; {
			var p string
			p, q, _ = strings.Cut(q, "&")
			name, _, _ := strings.Cut(p, "=")
			if name == prev && !first {
				continue
			}
			if !first {
				b = append(b, '&')
			}
			b = append(b, name...)
			prev, first = name, false
		}
	}
	return b
}

// isIDSegment reports whether a path segment is an opaque id: a UUID, a
// hex string of 8 or more characters with a digit, or a token of 16 or
// more letters, digits, '-' and '_' with both letters and digits.
func isIDSegment(s string) bool {
	if len(s) < 8 {
		return false
	}
	hex, digit, letter := true, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigitByte(c):
			digit = true
		case 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F':
			letter = true
		case 'g' <= c && c <= 'z' || 'G' <= c && c <= 'Z':
			letter, hex = true, false
		case c == '-' || c == '_':
			hex = hex && c == '-' && len(s) == 36
		default:
			return false
		}
	}
	switch {
	case hex && digit:
		return true // hex ids and UUIDs
	case len(s) >= 16 && digit && letter:
		return true
	}
	return false
}
