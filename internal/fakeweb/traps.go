package fakeweb

import (
	"hash/fnv"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Traps enables the spider traps of a web. Each is off by default. The
// pages of a trap are not in the ground truth: a crawler need not fetch
// any of them, and Report counts the requests it made inside each trap.
//
// Three traps generate pages without end. They are spread over the hosts:
// with k of them enabled, host i carries the (i mod k)-th, linked from the
// navigation of every ordinary page of the host:
//
//   - Calendar: /calendar/YYYY/MM/, each month linking to the previous
//     and the next, from year 1000 to 9999.
//   - RepeatingPaths: /docs/a/b/ links to the relative "a/b/", so
//     /docs/a/b/a/b/, /docs/a/b/a/b/a/b/... all answer.
//   - Search: /search?q=... answers any query, and its "next page" link
//     repeats the whole query and adds a page number, so each step
//     doubles the URL.
//
// The others are on every host:
//
//   - SessionIDs: links to the host's own pages carry a session ID
//     (";jsessionid=", "PHPSESSID=" or "sid="), derived from the session
//     ID of the request, so that every visit mints new URLs for the same
//     pages. The server ignores the ID, as Java and PHP servers do.
//   - HiddenLinks: every page has links to /hidden/... inside an HTML
//     comment and inside scripts (a string, a document.write, JSON-LD).
//     No link a browser would follow leads there: any request for them is
//     a crawler reading links out of comments or scripts.
//   - BaseHref: every page has a <base href> (absolute, root-relative or
//     protocol-relative) naming the directory /p/b/, and its relative
//     links are written against it ("../7" for /p/7). A crawler that
//     ignores the base asks for /7, which does not exist.
//   - EscapedQueries: a quarter of the links carry tracking parameters
//     joined by "&amp;", "&#38;", "&#x26;" or "&AMP;" in the markup. A
//     crawler that does not decode them asks for "?utm_source=site&amp;...".
//   - UpperCaseAttrs: a third of the links are written <A HREF=/p/7>,
//     upper case and unquoted.
type Traps struct {
	Calendar       bool `json:"calendar"`
	SessionIDs     bool `json:"session_ids"`
	RepeatingPaths bool `json:"repeating_paths"`
	Search         bool `json:"search"`
	HiddenLinks    bool `json:"hidden_links"`
	BaseHref       bool `json:"base_href"`
	EscapedQueries bool `json:"escaped_queries"`
	UpperCaseAttrs bool `json:"upper_case_attrs"`
}

// AllTraps enables every trap.
func AllTraps() Traps {
	return Traps{Calendar: true, SessionIDs: true, RepeatingPaths: true, Search: true,
		HiddenLinks: true, BaseHref: true, EscapedQueries: true, UpperCaseAttrs: true}
}

// TrapKind names a trap in Report.Traps.
type TrapKind string

const (
	TrapCalendar       TrapKind = "calendar"
	TrapSessionIDs     TrapKind = "session-ids"
	TrapRepeatingPaths TrapKind = "repeating-paths"
	TrapSearch         TrapKind = "search"
	TrapHiddenLinks    TrapKind = "hidden-links"
	TrapBaseHref       TrapKind = "base-href"
	TrapEscapedQueries TrapKind = "escaped-queries"
	TrapUpperCaseAttrs TrapKind = "upper-case-attrs"
)

// Kinds lists the enabled traps.
func (t Traps) Kinds() []TrapKind {
	var k []TrapKind
	for _, e := range []struct {
		on   bool
		kind TrapKind
	}{
		{t.Calendar, TrapCalendar}, {t.SessionIDs, TrapSessionIDs}, {t.RepeatingPaths, TrapRepeatingPaths},
		{t.Search, TrapSearch}, {t.HiddenLinks, TrapHiddenLinks}, {t.BaseHref, TrapBaseHref},
		{t.EscapedQueries, TrapEscapedQueries}, {t.UpperCaseAttrs, TrapUpperCaseAttrs},
	} {
		if e.on {
			k = append(k, e.kind)
		}
	}
	return k
}

// generative lists the enabled traps that generate pages without end.
func (t Traps) generative() []TrapKind {
	var k []TrapKind
	if t.Calendar {
		k = append(k, TrapCalendar)
	}
	if t.RepeatingPaths {
		k = append(k, TrapRepeatingPaths)
	}
	if t.Search {
		k = append(k, TrapSearch)
	}
	return k
}

// trapOf is the generative trap host i carries, "" if none.
func (w *Web) trapOf(host int) TrapKind {
	g := w.cfg.Traps.generative()
	if len(g) == 0 {
		return ""
	}
	return g[host%len(g)]
}

const (
	calendarPrefix = "/calendar/"
	loopPrefix     = "/docs/"
	loopUnit       = "a/b/"
	searchPath     = "/search"
	hiddenPrefix   = "/hidden/"
	trapBaseDir    = "/p/b/"
	// The calendar's entry month, and the search's entry query.
	entryYear, entryMonth = 2026, 11
	searchEntry           = "q=tide&lang=en&sort=relevance&view=list"
	maxSearchQuery        = 64 << 10
	maxLoops              = 10000
)

// trapEntry is the path (and query) of the generative trap of host i.
func (w *Web) trapEntry(host int) string {
	switch w.trapOf(host) {
	case TrapCalendar:
		return calendarPath(entryYear*12 + entryMonth - 1)
	case TrapRepeatingPaths:
		return loopPrefix + loopUnit
	case TrapSearch:
		return searchPath + "?" + searchEntry
	}
	return ""
}

// calendarPath is the page of month number n (year*12 + month-1).
func calendarPath(n int) string {
	y, m := n/12, n%12+1
	return calendarPrefix + strconv.Itoa(y) + "/" + twoDigits(m) + "/"
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// resolveTrap names the trap resource a cleaned path denotes on host.
func (w *Web) resolveTrap(host int, clean string) (resource, bool) {
	t := w.cfg.Traps
	switch kind := w.trapOf(host); {
	case kind == TrapCalendar && strings.HasPrefix(clean, calendarPrefix):
		rest := clean[len(calendarPrefix):]
		if len(rest) == 8 && rest[4] == '/' && rest[7] == '/' {
			y, err1 := strconv.Atoi(rest[:4])
			m, err2 := strconv.Atoi(rest[5:7])
			if err1 == nil && err2 == nil && y >= 1000 && m >= 1 && m <= 12 && allDigits(rest[:4]+rest[5:7]) {
				return resource{kind: resCalendar, n: y*12 + m - 1}, true
			}
		}
	case kind == TrapRepeatingPaths && strings.HasPrefix(clean, loopPrefix):
		rest := clean[len(loopPrefix):]
		k := strings.Count(rest, loopUnit)
		if k >= 1 && k <= maxLoops && rest == strings.Repeat(loopUnit, k) {
			return resource{kind: resLoop, n: k}, true
		}
	case kind == TrapSearch && clean == searchPath:
		return resource{kind: resSearch}, true
	}
	if t.HiddenLinks && strings.HasPrefix(clean, hiddenPrefix) {
		return resource{kind: resHidden}, true
	}
	if t.BaseHref && len(clean) > 1 {
		if _, ok := parseIndex(clean[1:]); ok {
			return resource{kind: resBaseMiss}, true
		}
	}
	return resource{}, false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// stripPathParams removes ";name=value" parameters from every segment of
// a path, as servers do with ";jsessionid=".
func stripPathParams(p string) string {
	if strings.IndexByte(p, ';') < 0 {
		return p
	}
	var b strings.Builder
	for p != "" {
		i := strings.IndexByte(p, ';')
		if i < 0 {
			b.WriteString(p)
			break
		}
		b.WriteString(p[:i])
		p = p[i:]
		if j := strings.IndexByte(p, '/'); j >= 0 {
			p = p[j:]
		} else {
			p = ""
		}
	}
	return b.String()
}

// sessionOf is the session ID a request URL carries: a ";jsessionid="
// path parameter or a PHPSESSID or sid query parameter, "" if none.
func sessionOf(path, rawQuery string) string {
	if i := strings.Index(strings.ToLower(path), ";jsessionid="); i >= 0 {
		s := path[i+len(";jsessionid="):]
		if j := strings.IndexAny(s, ";/"); j >= 0 {
			s = s[:j]
		}
		return s
	}
	for _, p := range strings.Split(rawQuery, "&") {
		name, value, _ := strings.Cut(p, "=")
		if strings.EqualFold(name, "PHPSESSID") || strings.EqualFold(name, "sid") {
			return value
		}
	}
	return ""
}

// sessionID mints the session ID of link i of page n of host, seen by a
// visitor whose request carried the session ID parent.
func (w *Web) sessionID(parent string, host, n, i int) string {
	h := fnv.New64a()
	var b []byte
	b = strconv.AppendInt(b, w.cfg.Seed, 10)
	b = append(b, '|')
	b = append(b, parent...)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(host), 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(i), 10)
	h.Write(b)
	return strconv.FormatUint(h.Sum64()>>32|1<<32, 16)[1:]
}

// decor is how the enabled traps dress one link.
type decor struct {
	sid      string // session ID to carry, "" for none
	sidStyle int    // 0: ";jsessionid=" path parameter, 1: PHPSESSID, 2: sid
	escaped  int    // 0: none, else 1 + index in ampVariants
	upper    bool   // <A HREF=...> unquoted
}

// ampVariants are the spellings of '&' in EscapedQueries links.
var ampVariants = [...]string{"&amp;", "&#38;", "&#x26;", "&AMP;"}

// escapedQuery is the query of EscapedQueries links (before escaping).
func escapedQuery(n int) string {
	return "utm_source=site&utm_medium=link&utm_campaign=c" + strconv.Itoa(n)
}

// attr is the attribute value of a link: href escaped for HTML, with the
// trap's spelling of '&' when d asks for one.
func attr(href string, d decor) string {
	a := htmlEscaper.Replace(href)
	if d.escaped > 0 {
		a = strings.ReplaceAll(a, "&amp;", ampVariants[d.escaped-1])
	}
	return a
}

// htmlEscaper is html.EscapeString as a reusable replacer.
var htmlEscaper = strings.NewReplacer(`&`, "&amp;", `'`, "&#39;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;")

// relPath is the relative reference from directory dir (ending in '/')
// to the absolute path target, "" when target is dir itself.
func relPath(dir, target string) string {
	common := 0
	for i := 0; i < len(dir) && i < len(target) && dir[i] == target[i]; i++ {
		if dir[i] == '/' {
			common = i + 1
		}
	}
	up := strings.Count(dir[common:], "/")
	return strings.Repeat("../", up) + target[common:]
}

// writeHidden writes the links only comments and scripts carry.
func (p *pageWriter) writeHidden(name string, n int) {
	N := strconv.Itoa(n)
	p.s("<!-- old navigation, kept for later:\n<a href=\"", hiddenPrefix, N, "/comment\">Archive</a>\n<a href=\"http://", name, hiddenPrefix, N, "/comment-absolute\">Old home</a>\n-->\n")
	p.s("<script>\nvar next = \"", hiddenPrefix, N, "/script-string\";\ndocument.write('<a href=\"", hiddenPrefix, N, "/document-write\">More</a>');\n</script>\n")
	p.s("<script type=\"application/ld+json\">{\"@context\": \"https://schema.org\", \"url\": \"http://", name, hiddenPrefix, N, "/json-ld\"}</script>\n")
}

// trapPage renders a page of a trap resource.
func (w *Web) trapPage(host int, res resource, rawQuery string) response {
	name := w.hostName(host)
	p := &pageWriter{}
	title, body := "", ""
	switch res.kind {
	case resCalendar:
		y, m := res.n/12, res.n%12+1
		title = "Events, " + strconv.Itoa(y) + "-" + twoDigits(m)
		body = `<p><a href="` + calendarPath(res.n-1) + `">Previous month</a> | <a href="` +
			calendarPath(res.n+1) + `">Next month</a></p>` + "\n<table><tr><td>No events this month.</td></tr></table>\n"
	case resLoop:
		title = "Documentation, section " + strconv.Itoa(res.n)
		body = `<p>See also <a href="` + loopUnit + `">the next section</a>.</p>` + "\n"
	case resSearch:
		title = "Search results"
		page := 1 + strings.Count(rawQuery, "&page=")
		next := rawQuery + "&" + rawQuery + "&page=" + strconv.Itoa(page+1)
		body = "<p>No results for your search.</p>\n<p><a href=\"" + htmlEscaper.Replace(searchPath+"?"+next) + "\">Next page</a></p>\n"
	case resHidden:
		title = "Hidden"
		body = "<p>Only comments and scripts link here.</p>\n"
	}
	p.s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", title, " - ", name, "</title>\n</head>\n<body>\n<h1>", title, "</h1>\n")
	p.s(body, "<p><a href=\"/\">Home</a></p>\n</body>\n</html>\n")
	return response{status: 200, contentType: htmlType, body: p.b.Bytes()}
}

// trapRequest classifies a logged request against the enabled traps: the
// trap it fell into, or "". answered reports whether its page was
// answered before.
func (w *Web) trapRequest(q *Request, res resource, answered bool) TrapKind {
	t := w.cfg.Traps
	switch res.kind {
	case resCalendar:
		return TrapCalendar
	case resLoop:
		return TrapRepeatingPaths
	case resSearch:
		return TrapSearch
	case resHidden:
		return TrapHiddenLinks
	case resBaseMiss:
		return TrapBaseHref
	}
	lower := strings.ToLower(q.RawURL)
	if t.EscapedQueries {
		if _, query, ok := strings.Cut(lower, "?"); ok && (strings.Contains(query, "amp;") || strings.Contains(query, "x26;") || strings.Contains(query, "#38;") || strings.Contains(query, "%2338;")) {
			return TrapEscapedQueries
		}
	}
	if t.UpperCaseAttrs && (strings.ContainsAny(q.Path, "<>\"'") || strings.Contains(lower, "href=") ||
		strings.Contains(lower, "%3e") || strings.Contains(lower, "%22")) {
		return TrapUpperCaseAttrs
	}
	if t.SessionIDs && answered && res.kind == resPage {
		if u, err := url.Parse(q.RawURL); err == nil && sessionOf(u.Path, u.RawQuery) != "" {
			return TrapSessionIDs
		}
	}
	return ""
}

// searchKey is the judge's identity of a search: its sorted parameters.
func searchKey(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	params := strings.Split(u.RawQuery, "&")
	slices.Sort(params)
	return searchPath + "?" + strings.Join(params, "&")
}
