package fakeweb

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godwit-crawler/godwit/internal/lifecycle"
)

// Shapes is a second, smaller simulated web for the shapes of URL
// aliases and of traps that never end, judged by ShapesReport. It is
// served like a Web (as a proxy, or by Host header) and logs every
// request. Host hK.<Domain> has:
//
//   - the home page "/", Sections section pages "/s/K/", each listing
//     its share of the host's Articles article pages "/a/N", which link
//     back to their section;
//   - every page links the home page and every section page;
//   - with Aliases, also as "/index.html", "/s/K/index.html" and
//     "/s/K/index.html?utm_source=feed", which answer the same bytes as
//     "/" and "/s/K/", except on host AliasDiffHost, where every
//     index.html is a different page (a legacy copy) that must be kept;
//   - with Tokens, every ordinary page also embeds a token new on every
//     request (a CSRF token and a session id, as real sites do), so that
//     no two answers are byte for byte the same, aliases included;
//   - with WWW, every host also answers under the name "www.hK" (the
//     seed of an odd host is its www name, of an even one its bare
//     name), the same bytes under both names, and every ordinary page
//     links the home page under both names, and every article its
//     section absolutely under one of them (odd articles www, even ones
//     bare), as real sites' templates mix the two; but on host
//     WWWDiffHost the www name
//     is a different site (every page of it a page of its own, ids
//     "w-…"), and on host WWWRedirectHost the bare name answers every
//     request with a 301 to the same path on the www name;
//   - with Traps, host i carries one endless trap, linked from every
//     ordinary page, by i mod 4: a session chain "/sess/N?sid=<new id
//     per visit>" whose pages link "/sess/N+1" and "/sess/N+2" and
//     nothing else, a calendar "/cal/YYYY/MM/" stepping month by month,
//     an ever-longer search "/search?..." whose next page repeats the
//     whole query, and a repeating relative path "/docs/a/b/a/b/...";
//   - with Pagination > 0, host 0 has a listing "/list?page=N" of
//     Pagination pages, linked from its home page, each linking the next
//     and listing ListingArticles new articles "/news/M" found nowhere
//     else: genuine pagination, every page of which must be crawled.
//
// robots.txt answers 404 (everything allowed) on every host.
type Shapes struct {
	cfg    ShapesConfig
	mu     sync.Mutex
	log    []shapeRequest
	sids   atomic.Uint64
	tokens atomic.Uint64
}

// ShapesConfig describes a Shapes web. The zero value plus Default is a
// 20-host web without aliases, traps or pagination.
type ShapesConfig struct {
	Hosts    int    // default 20
	Domain   string // default "shapes.test"
	Sections int    // section pages per host; default 8
	Articles int    // article pages per host; default 40
	// Aliases spells the home and section pages also as index.html.
	Aliases bool
	// AliasDiffHost is the host whose index.html pages differ from
	// their directory (default 1; negative: none). Used with Aliases.
	AliasDiffHost int
	// Tokens embeds a per-request token in every ordinary page.
	Tokens bool
	// WWW serves every host also under its "www." name.
	WWW bool
	// WWWDiffHost is the host whose www name is a different site
	// (default 2; negative: none). Used with WWW.
	WWWDiffHost int
	// WWWRedirectHost is the host whose bare name redirects (301) to
	// its www name (default 3; negative: none). Used with WWW.
	WWWRedirectHost int
	// Traps puts an endless trap on every host.
	Traps bool
	// Pagination is the number of listing pages on host 0 (0: none).
	Pagination int
	// ListingArticles is the number of new articles each listing page
	// lists; default 2.
	ListingArticles int
}

// Default fills zero fields.
func (c *ShapesConfig) Default() {
	if c.Hosts == 0 {
		c.Hosts = 20
	}
	if c.Domain == "" {
		c.Domain = "shapes.test"
	}
	if c.Sections == 0 {
		c.Sections = 8
	}
	if c.Articles == 0 {
		c.Articles = 40
	}
	if c.AliasDiffHost == 0 {
		c.AliasDiffHost = 1
	}
	if c.ListingArticles == 0 {
		c.ListingArticles = 2
	}
	if c.WWWDiffHost == 0 {
		c.WWWDiffHost = 2
	}
	if c.WWWRedirectHost == 0 {
		c.WWWRedirectHost = 3
	}
}

// Validate reports settings that cannot work.
func (c ShapesConfig) Validate() error {
	if c.Hosts < 1 || c.Hosts > 10000 || c.Sections < 1 || c.Articles < 0 || c.Pagination < 0 || c.ListingArticles < 1 {
		return fmt.Errorf("fakeweb: shapes: hosts %d, sections %d, articles %d, pagination %d, listing articles %d out of range",
			c.Hosts, c.Sections, c.Articles, c.Pagination, c.ListingArticles)
	}
	if c.WWW && c.WWWDiffHost >= 0 && c.WWWDiffHost == c.WWWRedirectHost {
		return fmt.Errorf("fakeweb: shapes: host %d cannot both redirect to its www name and serve another site there", c.WWWDiffHost)
	}
	return checkDomain(c.Domain)
}

// NewShapes builds the web cfg describes, defaults applied.
func NewShapes(cfg ShapesConfig) (*Shapes, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Shapes{cfg: cfg}, nil
}

// Config returns the effective configuration.
func (s *Shapes) Config() ShapesConfig { return s.cfg }

// Seeds are the home pages of every host (with WWW, under the www name
// on odd hosts but WWWRedirectHost).
func (s *Shapes) Seeds() []string {
	seeds := make([]string, s.cfg.Hosts)
	for i := range seeds {
		name := s.hostName(i)
		if s.cfg.WWW && i%2 == 1 && i != s.cfg.WWWRedirectHost {
			name = "www." + name
		}
		seeds[i] = "http://" + name + "/"
	}
	return seeds
}

func (s *Shapes) hostName(i int) string { return "h" + strconv.Itoa(i) + "." + s.cfg.Domain }

// wwwDiffers reports whether host i's www name is a site of its own.
func (s *Shapes) wwwDiffers(i int) bool { return s.cfg.WWW && i == s.cfg.WWWDiffHost }

// Trap kinds of a Shapes web, as ShapesReport counts them.
const (
	ShapeTrapSession  = "session"
	ShapeTrapCalendar = "calendar"
	ShapeTrapSearch   = "search"
	ShapeTrapLoop     = "loop"
)

var shapeTraps = [...]string{ShapeTrapSession, ShapeTrapCalendar, ShapeTrapSearch, ShapeTrapLoop}

// TrapOf is the trap host i carries, "" if none.
func (s *Shapes) TrapOf(i int) string {
	if !s.cfg.Traps {
		return ""
	}
	return shapeTraps[i%len(shapeTraps)]
}

// shapePage is what a request names: a page of the ground truth (id
// set), a trap page (trap set), robots.txt, or nothing.
type shapePage struct {
	id       string // the page's identity on its host: "home", "s3", "a17", "list5", "news9", "legacy-home", "legacy-s3"
	spelling string // the path as requested, cleaned
	trap     string
	robots   bool
}

// resolve names what path (and query) is on host i, under its www name
// when www.
func (s *Shapes) resolve(i int, www bool, path, rawQuery string) shapePage {
	p := s.resolvePath(i, path, rawQuery)
	if www && s.wwwDiffers(i) && p.id != "" {
		p.id = "w-" + p.id
	}
	return p
}

// resolvePath names what path (and query) is on host i's bare name.
func (s *Shapes) resolvePath(i int, path, rawQuery string) shapePage {
	path = cleanPath(path)
	p := shapePage{spelling: path}
	diff := s.cfg.Aliases && i == s.cfg.AliasDiffHost
	switch {
	case path == robotsPath:
		p.robots = true
	case path == "/":
		p.id = "home"
	case path == "/index.html" && s.cfg.Aliases:
		p.id = "home"
		if diff {
			p.id = "legacy-home"
		}
	case strings.HasPrefix(path, "/s/"):
		rest := strings.TrimPrefix(path, "/s/")
		k, suffix, _ := strings.Cut(rest, "/")
		n, ok := parseIndex(k)
		if !ok || n >= s.cfg.Sections {
			break
		}
		switch {
		case suffix == "" && strings.HasSuffix(rest, "/"):
			p.id = "s" + k
		case suffix == "index.html" && s.cfg.Aliases:
			p.id = "s" + k
			if diff {
				p.id = "legacy-s" + k
			}
		}
	case strings.HasPrefix(path, "/a/"):
		if n, ok := parseIndex(strings.TrimPrefix(path, "/a/")); ok && n < s.cfg.Articles {
			p.id = "a" + strconv.Itoa(n)
		}
	case path == "/list" && i == 0 && s.cfg.Pagination > 0:
		q, _ := url.ParseQuery(rawQuery)
		if n, ok := parseIndex(q.Get("page")); ok && n >= 1 && n <= s.cfg.Pagination {
			p.id = "list" + strconv.Itoa(n)
		}
	case strings.HasPrefix(path, "/news/") && i == 0:
		if n, ok := parseIndex(strings.TrimPrefix(path, "/news/")); ok && n < s.cfg.Pagination*s.cfg.ListingArticles {
			p.id = "news" + strconv.Itoa(n)
		}
	}
	if p.id != "" || p.robots {
		return p
	}
	switch trap := s.TrapOf(i); {
	case trap == ShapeTrapSession && strings.HasPrefix(path, "/sess/"):
		if _, ok := parseIndex(strings.TrimPrefix(path, "/sess/")); ok {
			p.trap = trap
		}
	case trap == ShapeTrapCalendar && strings.HasPrefix(path, "/cal/"):
		p.trap = trap
	case trap == ShapeTrapSearch && path == "/search":
		p.trap = trap
	case trap == ShapeTrapLoop && strings.HasPrefix(path, "/docs/"):
		rest := strings.TrimPrefix(path, "/docs/")
		if k := strings.Count(rest, "a/b/"); k >= 1 && rest == strings.Repeat("a/b/", k) {
			p.trap = trap
		}
	}
	return p
}

// ServeHTTP serves a proxy request ("GET http://h3.shapes.test/s/1/")
// or an origin request with a Host header naming a host, and logs it.
func (s *Shapes) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	authority := r.Host
	if r.URL.Host != "" {
		authority = r.URL.Host
	}
	a := canonicalAuthority(authority)
	if a != s.cfg.Domain && !strings.HasSuffix(a, "."+s.cfg.Domain) && (!r.URL.IsAbs() || strings.HasPrefix(r.URL.Path, controlPrefix)) {
		s.serveControl(rw, r)
		return
	}
	label, ok := strings.CutSuffix(a, "."+s.cfg.Domain)
	label, www := strings.CutPrefix(label, "www.")
	digits, ok2 := strings.CutPrefix(label, "h")
	host, ok3 := parseIndex(digits)
	if !ok || !ok2 || !ok3 || host >= s.cfg.Hosts || www && !s.cfg.WWW {
		http.Error(rw, "no such host", http.StatusBadGateway)
		return
	}
	if s.cfg.WWW && !www && host == s.cfg.WWWRedirectHost {
		target := "http://www." + s.hostName(host) + r.URL.EscapedPath()
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		s.mu.Lock()
		s.log = append(s.log, shapeRequest{host: host, status: http.StatusMovedPermanently, query: r.URL.RawQuery})
		s.mu.Unlock()
		rw.Header().Set("Location", target)
		rw.Header().Set("Content-Length", "0")
		rw.WriteHeader(http.StatusMovedPermanently)
		return
	}
	p := s.resolve(host, www, r.URL.Path, r.URL.RawQuery)
	status, body := http.StatusNotFound, "404 Not Found\n"
	switch {
	case p.robots:
	case p.id != "" || p.trap != "":
		status, body = http.StatusOK, s.render(host, p, r.URL.RawQuery)
	}
	s.mu.Lock()
	s.log = append(s.log, shapeRequest{host: host, www: www, page: p, status: status, query: r.URL.RawQuery})
	s.mu.Unlock()
	rw.Header().Set("Content-Type", htmlType)
	if status != http.StatusOK {
		rw.Header().Set("Content-Type", plainType)
	}
	rw.Header().Set("Content-Length", strconv.Itoa(len(body)))
	rw.WriteHeader(status)
	_, _ = rw.Write([]byte(body))
}

// serveControl answers GET /_fakeweb/seeds, GET /_fakeweb/report and
// POST /_fakeweb/reset, as a Web does.
func (s *Shapes) serveControl(rw http.ResponseWriter, r *http.Request) {
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	switch p := r.URL.Path; {
	case p == controlPrefix+"seeds" && read:
		writeJSON(rw, http.StatusOK, s.Seeds())
	case p == controlPrefix+"report" && read:
		writeJSON(rw, http.StatusOK, s.Report())
	case p == controlPrefix+"reset" && r.Method == http.MethodPost:
		s.Reset()
		rw.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(rw, r)
	}
}

// render writes the page p of host i. The body depends on the page's
// identity only (never on its spelling, nor on the host name it was
// asked under), but for session-chain pages, whose links carry a session
// ID new on every visit.
func (s *Shapes) render(i int, p shapePage, rawQuery string) string {
	var b strings.Builder
	title := p.id
	if p.trap != "" {
		title = p.trap + " " + p.spelling
	}
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><title>%s on %s</title></head><body>\n<h1>%s</h1>\n", title, s.hostName(i), title)
	link := func(href string) {
		fmt.Fprintf(&b, "<a href=\"%s\">%s</a>\n", htmlEscaper.Replace(href), htmlEscaper.Replace(href))
	}
	switch p.trap {
	case ShapeTrapSession:
		n, _ := parseIndex(strings.TrimPrefix(p.spelling, "/sess/"))
		for _, m := range []int{n + 1, n + 2} {
			link("/sess/" + strconv.Itoa(m) + "?sid=" + strconv.FormatUint(s.sids.Add(1)*2654435761%1000000007, 16))
		}
		b.WriteString("</body></html>\n")
		return b.String()
	case ShapeTrapCalendar:
		rest := strings.Trim(strings.TrimPrefix(p.spelling, "/cal/"), "/")
		y, m := 2026, 11
		if ys, ms, ok := strings.Cut(rest, "/"); ok {
			y, _ = strconv.Atoi(ys)
			m, _ = strconv.Atoi(ms)
		}
		month := y*12 + m - 1
		for _, n := range []int{month - 1, month + 1} {
			link(fmt.Sprintf("/cal/%d/%02d/", n/12, n%12+1))
		}
		b.WriteString("<p>No events this month.</p>\n")
		link("/")
		b.WriteString("</body></html>\n")
		return b.String()
	case ShapeTrapSearch:
		page := 1 + strings.Count(rawQuery, "&page=")
		link("/search?" + rawQuery + "&" + rawQuery + "&page=" + strconv.Itoa(page+1))
		b.WriteString("<p>No results.</p>\n")
		link("/")
		b.WriteString("</body></html>\n")
		return b.String()
	case ShapeTrapLoop:
		link("a/b/")
		link("/")
		b.WriteString("</body></html>\n")
		return b.String()
	}
	// Navigation: the home page and every section, in every spelling.
	link("/")
	if s.cfg.Aliases {
		link("/index.html")
	}
	if s.cfg.WWW {
		link("http://" + s.hostName(i) + "/")
		link("http://www." + s.hostName(i) + "/")
	}
	for k := range s.cfg.Sections {
		K := strconv.Itoa(k)
		link("/s/" + K + "/")
		if s.cfg.Aliases {
			link("/s/" + K + "/index.html")
			link("/s/" + K + "/index.html?utm_source=feed")
		}
	}
	switch trap := s.TrapOf(i); trap {
	case ShapeTrapSession:
		link("/sess/1?sid=" + strconv.FormatUint(s.sids.Add(1), 16))
	case ShapeTrapCalendar:
		link("/cal/2026/11/")
	case ShapeTrapSearch:
		link("/search?q=tide&lang=en")
	case ShapeTrapLoop:
		link("/docs/a/b/")
	}
	switch id := strings.TrimPrefix(p.id, "w-"); {
	case p.id == "home" && i == 0 && s.cfg.Pagination > 0:
		link("/list?page=1")
	case strings.HasPrefix(id, "s") || strings.HasPrefix(id, "legacy-s"):
		k, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(id, "legacy-"), "s"))
		for n := k; n < s.cfg.Articles; n += s.cfg.Sections {
			link("/a/" + strconv.Itoa(n))
		}
	case strings.HasPrefix(id, "a") && s.cfg.WWW:
		// An article links its section absolutely, under one name or
		// the other.
		n, _ := strconv.Atoi(strings.TrimPrefix(id, "a"))
		K := strconv.Itoa(n % s.cfg.Sections)
		if n%2 == 1 {
			link("http://www." + s.hostName(i) + "/s/" + K + "/")
		} else {
			link("http://" + s.hostName(i) + "/s/" + K + "/")
		}
	case strings.HasPrefix(p.id, "list"):
		n, _ := strconv.Atoi(strings.TrimPrefix(p.id, "list"))
		for j := range s.cfg.ListingArticles {
			link("/news/" + strconv.Itoa((n-1)*s.cfg.ListingArticles+j))
		}
		if n < s.cfg.Pagination {
			link("/list?page=" + strconv.Itoa(n+1))
		}
	}
	if s.cfg.Tokens {
		tok := strconv.FormatUint(s.tokens.Add(1)*0x9e3779b97f4a7c15|1<<63, 16)
		fmt.Fprintf(&b, "<form method=\"post\" action=\"/login\"><input type=\"hidden\" name=\"csrf\" value=\"%s\"></form>\n<p>Session %s</p>\n", tok, tok)
	}
	fmt.Fprintf(&b, "<p>The text of %s on %s.</p>\n</body></html>\n", p.id, s.hostName(i))
	return b.String()
}

// shapeRequest is one logged request.
type shapeRequest struct {
	host   int
	www    bool // asked under the www name
	page   shapePage
	status int
	query  string
}

// ShapesReport is the server-side judgment of a crawl of a Shapes web.
type ShapesReport struct {
	Requests     int `json:"requests"`      // every request, robots.txt included
	TrapRequests int `json:"trap_requests"` // requests for trap pages
	// Traps counts trap requests by trap.
	Traps map[string]int `json:"traps"`
	// TrapsPerHost counts trap requests by host.
	TrapsPerHost map[string]int `json:"traps_per_host"`
	// TrapURLsPerHost counts the distinct trap URLs (path and query)
	// requested, by host: TrapsPerHost without the requests made again
	// (a crawler killed before it recorded a fetch makes it again).
	TrapURLsPerHost map[string]int `json:"trap_urls_per_host"`
	// Reachable counts the pages of the ground truth (traps aside),
	// Covered those answered 200, Coverage the share.
	Reachable int      `json:"reachable"`
	Covered   int      `json:"covered"`
	Coverage  float64  `json:"coverage"`
	Missing   []string `json:"missing,omitempty"`
	// AliasFetches counts, per host, requests answered 200 for a page
	// already answered under another spelling (/index.html after /).
	AliasFetches map[string]int `json:"alias_fetches"`
	// The maps count WWWDiffHost's www site apart, under its www name.
	//
	// WWWFetches counts, per host, requests answered 200 for a page
	// already answered under the host's other name (www.hK or hK) and
	// not yet under this one: with WWW, the cost of the www alias. A
	// page fetched again under another spelling of the same name is an
	// alias fetch, under the same spelling and name a duplicate.
	WWWFetches map[string]int `json:"www_fetches"`
	// WWWRedirects counts the 301 answers of WWWRedirectHost's bare
	// name.
	WWWRedirects int `json:"www_redirects"`
	// Duplicates counts requests for a spelling already answered.
	Duplicates int `json:"duplicates"`
	// Pagination and PaginationCovered count the listing pages and the
	// articles they list, and those answered 200.
	Pagination        int `json:"pagination"`
	PaginationCovered int `json:"pagination_covered"`
}

// TrapShare is TrapRequests over Requests.
func (r ShapesReport) TrapShare() float64 {
	if r.Requests == 0 {
		return 0
	}
	return float64(r.TrapRequests) / float64(r.Requests)
}

// MaxTrapRequests is the most trap requests on one host.
func (r ShapesReport) MaxTrapRequests() int {
	m := 0
	for _, n := range r.TrapsPerHost {
		m = max(m, n)
	}
	return m
}

// MaxTrapURLs is the most distinct trap URLs requested on one host.
func (r ShapesReport) MaxTrapURLs() int {
	m := 0
	for _, n := range r.TrapURLsPerHost {
		m = max(m, n)
	}
	return m
}

// MaxWWWFetches is the most www alias fetches on one host.
func (r ShapesReport) MaxWWWFetches() int {
	m := 0
	for _, n := range r.WWWFetches {
		m = max(m, n)
	}
	return m
}

// MaxAliasFetches is the most alias fetches on one host.
func (r ShapesReport) MaxAliasFetches() int {
	m := 0
	for _, n := range r.AliasFetches {
		m = max(m, n)
	}
	return m
}

func (r ShapesReport) String() string {
	return fmt.Sprintf("requests %d; trap requests %d (%.2f%%) %v, max %d per host; coverage %d/%d = %.3f; alias fetches %d (max %d per host); www fetches %d (max %d per host), www redirects %d; duplicates %d; pagination %d/%d",
		r.Requests, r.TrapRequests, 100*r.TrapShare(), r.Traps, r.MaxTrapRequests(), r.Covered, r.Reachable, r.Coverage,
		sumValues(r.AliasFetches), r.MaxAliasFetches(), sumValues(r.WWWFetches), r.MaxWWWFetches(), r.WWWRedirects,
		r.Duplicates, r.PaginationCovered, r.Pagination)
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// truth lists the ground truth's pages of host i.
func (s *Shapes) truth(i int) []string {
	ids := []string{"home"}
	diff := s.cfg.Aliases && i == s.cfg.AliasDiffHost
	if diff {
		ids = append(ids, "legacy-home")
	}
	for k := range s.cfg.Sections {
		ids = append(ids, "s"+strconv.Itoa(k))
		if diff {
			ids = append(ids, "legacy-s"+strconv.Itoa(k))
		}
	}
	for n := range s.cfg.Articles {
		ids = append(ids, "a"+strconv.Itoa(n))
	}
	if s.wwwDiffers(i) {
		for _, id := range ids {
			ids = append(ids, "w-"+id)
		}
	}
	if i == 0 {
		for n := 1; n <= s.cfg.Pagination; n++ {
			ids = append(ids, "list"+strconv.Itoa(n))
		}
		for n := range s.cfg.Pagination * s.cfg.ListingArticles {
			ids = append(ids, "news"+strconv.Itoa(n))
		}
	}
	return ids
}

// Report judges the requests logged since NewShapes or Reset.
func (s *Shapes) Report() ShapesReport {
	s.mu.Lock()
	reqs := append([]shapeRequest(nil), s.log...)
	s.mu.Unlock()
	r := ShapesReport{Traps: map[string]int{}, TrapsPerHost: map[string]int{}, TrapURLsPerHost: map[string]int{},
		AliasFetches: map[string]int{}, WWWFetches: map[string]int{}}
	trapURLs := map[string]bool{} // host|www|spelling?query
	answered := map[string]bool{} // host|id
	named := map[string]bool{}    // host|id|name: answered under that name
	spelled := map[string]bool{}  // host|id|name|spelling
	for _, q := range reqs {
		r.Requests++
		if q.status == http.StatusMovedPermanently {
			r.WWWRedirects++
			continue
		}
		if q.page.trap != "" {
			r.TrapRequests++
			r.Traps[q.page.trap]++
			r.TrapsPerHost[s.hostName(q.host)]++
			if u := s.hostName(q.host) + "|" + strconv.FormatBool(q.www) + "|" + q.page.spelling + "?" + q.query; !trapURLs[u] {
				trapURLs[u] = true
				r.TrapURLsPerHost[s.hostName(q.host)]++
			}
			continue
		}
		if q.page.id == "" || q.status != http.StatusOK {
			continue
		}
		h := s.hostName(q.host)
		if q.www && s.wwwDiffers(q.host) {
			h = "www." + h // a site of its own: judged as a host of its own
		}
		id := s.hostName(q.host) + "|" + q.page.id
		name := id + "|" + strconv.FormatBool(q.www)
		sp := name + "|" + q.page.spelling
		if strings.HasPrefix(q.page.id, "list") {
			sp += "?" + q.query
		}
		switch {
		case spelled[sp]:
			r.Duplicates++
		case answered[id] && !named[name]:
			r.WWWFetches[h]++
		case answered[id]:
			r.AliasFetches[h]++
		}
		answered[id], named[name], spelled[sp] = true, true, true
	}
	for i := range s.cfg.Hosts {
		for _, id := range s.truth(i) {
			r.Reachable++
			ok := answered[s.hostName(i)+"|"+id]
			if ok {
				r.Covered++
			} else if len(r.Missing) < 20 {
				r.Missing = append(r.Missing, s.hostName(i)+" "+id)
			}
			if strings.HasPrefix(id, "list") || strings.HasPrefix(id, "news") {
				r.Pagination++
				if ok {
					r.PaginationCovered++
				}
			}
		}
	}
	r.Coverage = 1
	if r.Reachable > 0 {
		r.Coverage = float64(r.Covered) / float64(r.Reachable)
	}
	return r
}

// Reset clears the request log.
func (s *Shapes) Reset() {
	s.mu.Lock()
	s.log = nil
	s.mu.Unlock()
}

// Serve serves the web on ln until ctx is done (see Web.Serve).
func (s *Shapes) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	if err := lifecycle.ServeHTTP(ctx, srv, ln, nil, shutdownGrace); err != nil {
		return fmt.Errorf("fakeweb: serve: %w", err)
	}
	return nil
}
