package robots

import (
	"slices"
	"strings"
	"time"
)

// MaxSize is the number of bytes of a robots.txt file that are parsed; RFC
// 9309 asks crawlers to parse at least 500 KiB. Callers may stop reading
// the body there.
const MaxSize = 500 << 10

// Robots is a parsed robots.txt file. The zero value and nil allow
// everything. A Robots is immutable and safe for concurrent use.
type Robots struct {
	groups   []group
	sitemaps []string
	star     *Group // the merged "*" groups, or an empty group
}

// group is one group of the file: the agents it names and its rules.
type group struct {
	agents   []string // product tokens, lower-case
	global   bool     // the group names "*"
	rules    []rule
	delay    time.Duration
	hasDelay bool
	compiled *Group // this group alone
}

// names reports whether the group names the product token agent.
func (g *group) names(agent string) bool {
	for _, a := range g.agents {
		if strings.EqualFold(a, agent) {
			return true
		}
	}
	return false
}

// Parse parses a robots.txt file. It never fails: whatever cannot be
// understood is ignored. Only the first [MaxSize] bytes are read; when body
// is longer, the line cut in the middle is dropped too, since a partial
// Allow rule could allow more than the site meant. body is not retained.
func Parse(body []byte) *Robots {
	var p parser
	p.parse(body)
	r := &Robots{groups: p.groups, sitemaps: p.sitemaps}
	var stars []*group
	for i := range r.groups {
		g := &r.groups[i]
		g.compiled = merge([]*group{g})
		if g.global {
			stars = append(stars, g)
		}
	}
	switch len(stars) {
	case 0:
		r.star = &Group{}
	case 1:
		r.star = stars[0].compiled
	default:
		r.star = merge(stars)
	}
	return r
}

// AllowAll returns a Robots that allows everything: what RFC 9309 section
// 2.3.1.3 prescribes when robots.txt is unavailable (HTTP 4xx).
func AllowAll() *Robots {
	return &Robots{star: &Group{}}
}

// DisallowAll returns a Robots that disallows everything but /robots.txt:
// what RFC 9309 section 2.3.1.4 prescribes when robots.txt is unreachable
// (HTTP 5xx, network errors).
func DisallowAll() *Robots {
	return &Robots{star: merge([]*group{{rules: []rule{compile(false, []byte("/"))}}})}
}

// Group returns the rules that apply to the crawler with product token
// agent (such as "godwit"): all groups naming it, merged, or else all "*"
// groups, merged, or else a group that allows everything. agent is matched
// case-insensitively against the product token of each user-agent line; it
// should satisfy [ValidAgent]. The result is shared and immutable.
func (r *Robots) Group(agent string) *Group {
	if r == nil {
		return nil
	}
	var first *group
	n := 0
	for i := range r.groups {
		if r.groups[i].names(agent) {
			if first == nil {
				first = &r.groups[i]
			}
			n++
		}
	}
	switch n {
	case 0:
		return r.star
	case 1:
		return first.compiled
	}
	gs := make([]*group, 0, n)
	for i := range r.groups {
		if r.groups[i].names(agent) {
			gs = append(gs, &r.groups[i])
		}
	}
	return merge(gs)
}

// Sitemaps returns the URLs of the Sitemap lines, in file order without
// duplicates, as written: a relative URL is to be resolved against the
// robots.txt URL by the caller.
func (r *Robots) Sitemaps() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.sitemaps)
}

// ValidAgent reports whether token is a valid product token per RFC 9309
// section 2.2.1: non-empty, only letters, '-' and '_'.
func ValidAgent(token string) bool {
	if token == "" {
		return false
	}
	for i := 0; i < len(token); i++ {
		if !isTokenChar(token[i]) {
			return false
		}
	}
	return true
}

func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_'
}

// Group is the set of rules that applies to one crawler. A nil *Group
// allows everything. A Group is immutable and safe for concurrent use.
type Group struct {
	rules    []rule     // longest pattern first, Allow before Disallow on ties
	heads    []ruleHead // heads[i] is the head of rules[i]
	delay    time.Duration
	hasDelay bool
	sources  []source // the groups of the file merged here, for Match
}

// source names a group of the file, for the Rule values of Match.
type source struct {
	agents []string // shared with the group: never modified
	global bool
}

// merge compiles the rules of gs into one Group. The order of rules of
// equal length and kind does not matter, so the sort need not be stable.
func merge(gs []*group) *Group {
	m := &Group{sources: make([]source, len(gs))}
	n := 0
	for _, g := range gs {
		n += len(g.rules)
	}
	m.rules = make([]rule, 0, n)
	for i, g := range gs {
		m.sources[i] = source{agents: g.agents, global: g.global}
		for _, r := range g.rules {
			r.src = int32(i)
			m.rules = append(m.rules, r)
		}
		if g.hasDelay && (!m.hasDelay || g.delay > m.delay) {
			m.delay, m.hasDelay = g.delay, true
		}
	}
	slices.SortFunc(m.rules, func(a, b rule) int {
		if a.length != b.length {
			return b.length - a.length
		}
		switch {
		case a.allow == b.allow:
			return 0
		case a.allow:
			return -1
		default:
			return 1
		}
	})
	m.heads = make([]ruleHead, len(m.rules))
	for i := range m.rules {
		m.heads[i] = headOf(&m.rules[i])
	}
	return m
}

// Allowed reports whether the group allows fetching path, the URL's path
// and query as sent in the request line ("/a/b?c=d", percent-encoded, no
// fragment: url.URL.RequestURI). An empty path means "/". "/robots.txt" is
// always allowed.
func (g *Group) Allowed(path string) bool {
	i := g.decide(path)
	return i < 0 || g.rules[i].allow
}

// decide returns the index of the rule that decides path, or -1 when
// none does (path is then allowed).
func (g *Group) decide(path string) int {
	if g == nil || len(g.rules) == 0 {
		return -1
	}
	var arr [512]byte
	p := arr[:0]
	if path == "" || path[0] != '/' {
		p = append(p, '/')
	}
	p = appendNormalized(p, path)
	if string(p) == "/robots.txt" {
		return -1
	}
	h := head(p)
	var set uint64 // byteSet(p), computed at the first rule with '*'
	for i, rh := range g.heads {
		if h&rh.mask != rh.head {
			continue
		}
		r := &g.rules[i]
		if r.need != 0 {
			if set == 0 {
				set = byteSet(p)
			}
			if set&r.need != r.need {
				continue
			}
		}
		if r.match(p) {
			return i
		}
	}
	return -1
}

// CrawlDelay returns the Crawl-delay of the group, if it has a valid one.
func (g *Group) CrawlDelay() (time.Duration, bool) {
	if g == nil {
		return 0, false
	}
	return g.delay, g.hasDelay
}
