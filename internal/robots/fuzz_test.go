package robots

import (
	"bytes"
	"strings"
	"testing"
)

func FuzzParseAllowed(f *testing.F) {
	f.Add([]byte(realistic), "godwit", "/catalog/item/1?sort=x")
	f.Add([]byte("User-agent: *\nDisallow: /*a*$\nAllow: /a$\n"), "x", "/aaa")
	f.Add([]byte("\xef\xbb\xbfuser-agent foo\r\ndisallow /\r\n"), "foo", "/%7e%zz%")
	f.Add([]byte("User-agent: *\nAllow: /d/index.htm\nDisallow: /\nCrawl-delay: 0.5\nSitemap: /s"), "godwit", "/d/")
	f.Fuzz(func(t *testing.T, body []byte, agent, path string) {
		r := Parse(body)
		g := r.Group(agent)
		got := g.Allowed(path)
		if got != g.Allowed(path) {
			t.Fatalf("Allowed(%q) is not deterministic", path)
		}
		// Normalizing the path first changes nothing: it is idempotent.
		if n := string(appendNormalized(nil, path)); (path == "" || path[0] == '/') && g.Allowed(n) != got {
			t.Fatalf("Allowed(%q) = %v but Allowed(%q) = %v", path, got, n, !got)
		}
		// Match explains Allowed with a rule that matches the path.
		if r, ok := g.Match(path); got != (!ok || r.Allow) {
			t.Fatalf("Allowed(%q) = %v, but Match = %+v, %v", path, got, r, ok)
		} else if ok && (r.Line < 1 || r.Line > bytes.Count(body, []byte("\n"))+bytes.Count(body, []byte("\r"))+1) {
			t.Fatalf("Match(%q) = %+v: line out of range", path, r)
		}
		if !g.Allowed("/robots.txt") {
			t.Fatalf("/robots.txt disallowed")
		}
		if d, ok := g.CrawlDelay(); d < 0 || !ok && d != 0 {
			t.Fatalf("CrawlDelay() = %v, %v", d, ok)
		}
		// Group only depends on the agent's case.
		if g2 := r.Group(strings.ToUpper(agent)); g2.Allowed(path) != got {
			t.Fatalf("Group(%q) and Group(%q) disagree on %q", agent, strings.ToUpper(agent), path)
		}
		// The matcher agrees with a direct, slow implementation of the rules
		// (quadratic, so only on inputs of modest size).
		if len(body) > 4096 || len(path) > 1024 {
			return
		}
		if want := slowAllowed(g, path); got != want {
			t.Fatalf("robots.txt %q: Group(%q).Allowed(%q) = %v, reference %v", body, agent, path, got, want)
		}
	})
}

// slowAllowed decides with Google's matching algorithm (a set of positions
// per pattern byte) over every rule, independently of the rule order and
// compiled form that Allowed relies on.
func slowAllowed(g *Group, path string) bool {
	p := "/"
	if path != "" && path[0] == '/' {
		p = ""
	}
	p = string(appendNormalized([]byte(p), path))
	if p == "/robots.txt" {
		return true
	}
	best, allow := -1, true
	for _, r := range g.rules {
		pattern := string(r.prefix)
		for _, part := range r.parts {
			pattern += "*" + string(part)
		}
		if r.anchored {
			pattern += "$"
		}
		if len(pattern) != r.length {
			panic("length mismatch for " + pattern)
		}
		if !slowMatch(p, pattern) {
			continue
		}
		if r.length > best || r.length == best && r.allow {
			best, allow = r.length, r.allow
		}
	}
	return allow
}

// slowMatch is RobotsMatchStrategy::Matches of Google's robots.cc.
func slowMatch(path, pattern string) bool {
	pos := []int{0}
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '$' && i+1 == len(pattern) {
			return pos[len(pos)-1] == len(path)
		}
		if c == '*' {
			next := pos[:0:0]
			for j := pos[0]; j <= len(path); j++ {
				next = append(next, j)
			}
			pos = next
			continue
		}
		var next []int
		for _, j := range pos {
			if j < len(path) && path[j] == c {
				next = append(next, j+1)
			}
		}
		if len(next) == 0 {
			return false
		}
		pos = next
	}
	return true
}
