package robots

import (
	"slices"
	"strings"
)

// Rule is one Allow or Disallow rule of a robots.txt file, as [Group.Match]
// reports it.
type Rule struct {
	Allow bool
	// Pattern is the pattern as it is compared with paths: in the
	// normalized percent-encoding described in the package documentation,
	// so "/café" reads "/caf%C3%A9". The rule Google's parser derives from
	// "Allow: /dir/index.html" reads "/dir/$", with the line of the Allow.
	Pattern string
	// Line is the line of the file the rule is on, counting from 1; 0 for
	// the rule of [DisallowAll].
	Line int
	// Agents are the product tokens named by the user-agent lines of the
	// rule's group, lower-case, with "*" first for a "*" group. Empty for
	// the rule of DisallowAll.
	Agents []string
}

// String returns the rule as a robots.txt line: "Disallow: /private/".
func (r Rule) String() string {
	if r.Allow {
		return "Allow: " + r.Pattern
	}
	return "Disallow: " + r.Pattern
}

// Match explains [Group.Allowed]: it returns the rule that decides whether
// path is allowed. When ok is false no rule decides and path is allowed:
// no rule matches it, or it is "/robots.txt". Always
//
//	g.Allowed(path) == !ok || r.Allow
//
// Match allocates the Rule it returns; use Allowed to decide, and Match to
// tell someone why.
func (g *Group) Match(path string) (r Rule, ok bool) {
	i := g.decide(path)
	if i < 0 {
		return Rule{}, false
	}
	x := &g.rules[i]
	var b strings.Builder
	b.Grow(x.length)
	b.Write(x.prefix)
	for _, part := range x.parts {
		b.WriteByte('*')
		b.Write(part)
	}
	if x.anchored {
		b.WriteByte('$')
	}
	r = Rule{Allow: x.allow, Pattern: b.String(), Line: int(x.line)}
	if int(x.src) < len(g.sources) {
		s := g.sources[x.src]
		if s.global {
			r.Agents = append(r.Agents, "*")
		}
		r.Agents = append(r.Agents, s.agents...)
	}
	return r, true
}

// Agents returns the product tokens named by the user-agent lines of the
// groups of the file that make up g, lower-case, without duplicates, with
// "*" for a "*" group: which groups apply, for people. It is empty when no
// group applies and everything is allowed.
func (g *Group) Agents() []string {
	if g == nil {
		return nil
	}
	var agents []string
	add := func(a string) {
		if !slices.Contains(agents, a) {
			agents = append(agents, a)
		}
	}
	for _, s := range g.sources {
		if s.global {
			add("*")
		}
		for _, a := range s.agents {
			add(a)
		}
	}
	return agents
}
