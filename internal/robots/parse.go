package robots

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
)

// maxLineLen is the number of bytes of a line that are kept, as in Google's
// parser (8 times the 2,083-byte URL limit of old browsers, less one).
const maxLineLen = 2083*8 - 1

// parser holds the state of one Parse call.
type parser struct {
	groups   []group
	inRules  bool // a rule followed the last user-agent line
	sitemaps []string
	lineNo   int // of the line being parsed, from 1
}

func (p *parser) parse(body []byte) {
	if len(body) > MaxSize {
		body = body[:MaxSize]
		i := bytes.LastIndexAny(body, "\r\n")
		body = body[:i+1]
	}
	// Skip a byte order mark, or any prefix of one, as Google does.
	for _, c := range []byte("\xef\xbb\xbf") {
		if len(body) == 0 || body[0] != c {
			break
		}
		body = body[1:]
	}
	for len(body) > 0 {
		line := body
		i := bytes.IndexAny(body, "\r\n")
		if i < 0 {
			body = nil
		} else {
			line = body[:i]
			if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			body = body[i+1:]
		}
		if len(line) > maxLineLen {
			line = line[:maxLineLen]
		}
		p.lineNo++
		p.line(line)
	}
}

// isSpace is C's isspace in the "C" locale, which Google's parser uses.
func isSpace(c byte) bool {
	return c == ' ' || '\t' <= c && c <= '\r'
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// hasPrefixFold reports whether b starts with one of the lower-case
// prefixes, ignoring ASCII case.
func hasPrefixFold(b []byte, prefixes ...string) bool {
	for _, p := range prefixes {
		if len(b) >= len(p) && strings.EqualFold(string(b[:len(p)]), p) {
			return true
		}
	}
	return false
}

// line parses one line, without its line ending.
func (p *parser) line(l []byte) {
	if i := bytes.IndexByte(l, '#'); i >= 0 {
		l = l[:i]
	}
	l = trimSpace(l)
	var key, val []byte
	if i := bytes.IndexByte(l, ':'); i >= 0 {
		key, val = trimSpace(l[:i]), trimSpace(l[i+1:])
	} else {
		// A forgotten colon: accept "key value" when there are exactly
		// two words, as Google does.
		i := bytes.IndexAny(l, " \t")
		if i < 0 {
			return
		}
		key, val = l[:i], trimSpace(l[i:])
		if bytes.ContainsAny(val, " \t") {
			return
		}
	}
	if len(key) == 0 {
		return
	}
	// Prefix matches and accepted typos follow Google's parser.
	switch {
	case hasPrefixFold(key, "user-agent", "useragent", "user agent"):
		p.userAgent(val)
	case hasPrefixFold(key, "allow"):
		p.rule(true, val)
	case hasPrefixFold(key, "disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"):
		p.rule(false, val)
	case hasPrefixFold(key, "sitemap", "site-map"):
		p.sitemap(val)
	case hasPrefixFold(key, "crawl-delay"):
		p.crawlDelay(val)
	}
}

// current returns the group being read, or nil before the first
// user-agent line.
func (p *parser) current() *group {
	if len(p.groups) == 0 {
		return nil
	}
	return &p.groups[len(p.groups)-1]
}

func (p *parser) userAgent(val []byte) {
	if len(p.groups) == 0 || p.inRules {
		p.groups = append(p.groups, group{})
		p.inRules = false
	}
	g := p.current()
	// Google: "*" followed by a space and anything is still "*".
	if len(val) > 0 && val[0] == '*' && (len(val) == 1 || isSpace(val[1])) {
		g.global = true
		return
	}
	n := 0
	for n < len(val) && isTokenChar(val[n]) {
		n++
	}
	g.agents = append(g.agents, strings.ToLower(string(val[:n])))
}

func (p *parser) rule(allow bool, val []byte) {
	g := p.current()
	if g == nil {
		return // rules before the first user-agent line
	}
	p.inRules = true
	pattern := appendNormalized(nil, val)
	if len(pattern) == 0 {
		return // matches nothing
	}
	r := compile(allow, pattern)
	r.line = int32(p.lineNo)
	g.rules = append(g.rules, r)
	if !allow {
		return
	}
	// Google: allowing /dir/index.html (or .htm) allows /dir/ itself.
	if i := bytes.LastIndexByte(pattern, '/'); i >= 0 && bytes.HasPrefix(pattern[i:], []byte("/index.htm")) {
		dir := append(pattern[:i+1:i+1], '$')
		r := compile(true, dir)
		r.line = int32(p.lineNo)
		g.rules = append(g.rules, r)
	}
}

func (p *parser) sitemap(val []byte) {
	if len(val) == 0 {
		return
	}
	for _, s := range p.sitemaps {
		if s == string(val) {
			return
		}
	}
	p.sitemaps = append(p.sitemaps, string(val))
}

func (p *parser) crawlDelay(val []byte) {
	g := p.current()
	if g == nil {
		return
	}
	d, ok := parseDelay(val)
	if ok && (!g.hasDelay || d > g.delay) {
		g.delay, g.hasDelay = d, true
	}
}

// parseDelay parses a Crawl-delay value: decimal seconds, with an optional
// fraction ("10", "0.5", ".5"). Anything else ("5s", "-1", "1e3", "inf")
// is invalid. Absurdly large values saturate.
func parseDelay(v []byte) (time.Duration, bool) {
	digits, dots := 0, 0
	for _, c := range v {
		switch {
		case '0' <= c && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return 0, false
		}
	}
	if digits == 0 || dots > 1 {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil && f == 0 {
		return 0, false
	}
	secs := f * float64(time.Second)
	if secs >= math.MaxInt64 {
		return time.Duration(math.MaxInt64), true
	}
	return time.Duration(secs), true
}
