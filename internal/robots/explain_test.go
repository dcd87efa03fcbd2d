package robots

import (
	"slices"
	"testing"
)

func TestMatch(t *testing.T) {
	const file = `# line 1
User-agent: *
Disallow: /private/
Allow: /private/public/

User-agent: godwit
User-agent: GodWit-News
Disallow: /*.pdf$
Allow: /docs/index.html

User-agent: other
Disallow: /

User-agent: GODWIT
Disallow: /caf%c3%a9
`
	r := Parse([]byte(file))
	tests := []struct {
		agent, path string
		want        Rule
		ok          bool
	}{
		{"otherbot", "/private/a", Rule{Pattern: "/private/", Line: 3, Agents: []string{"*"}}, true},
		{"otherbot", "/private/public/x", Rule{Allow: true, Pattern: "/private/public/", Line: 4, Agents: []string{"*"}}, true},
		{"otherbot", "/elsewhere", Rule{}, false},
		{"godwit", "/private/a", Rule{}, false},
		{"godwit", "/a/b.pdf", Rule{Pattern: "/*.pdf$", Line: 8, Agents: []string{"godwit", "godwit-news"}}, true},
		{"godwit", "/docs/", Rule{Allow: true, Pattern: "/docs/$", Line: 9, Agents: []string{"godwit", "godwit-news"}}, true},
		{"godwit", "/café/menu", Rule{Pattern: "/caf%C3%A9", Line: 15, Agents: []string{"godwit"}}, true},
		{"other", "/robots.txt", Rule{}, false},
		{"other", "/robots.txt?x", Rule{Pattern: "/", Line: 12, Agents: []string{"other"}}, true},
	}
	for _, tt := range tests {
		g := r.Group(tt.agent)
		got, ok := g.Match(tt.path)
		if ok != tt.ok || got.Allow != tt.want.Allow || got.Pattern != tt.want.Pattern || got.Line != tt.want.Line || !slices.Equal(got.Agents, tt.want.Agents) {
			t.Errorf("Group(%q).Match(%q) = %+v, %v; want %+v, %v", tt.agent, tt.path, got, ok, tt.want, tt.ok)
		}
		if allowed := g.Allowed(tt.path); allowed != (!ok || got.Allow) {
			t.Errorf("Group(%q): Allowed(%q) = %v, but Match says %+v, %v", tt.agent, tt.path, allowed, got, ok)
		}
	}
}

func TestMatchLineEndings(t *testing.T) {
	// CR, LF and CRLF each end one line; the BOM does not make one.
	r := Parse([]byte("\xef\xbb\xbfUser-agent: *\r\nDisallow: /a\rDisallow: /b\nDisallow: /c\r\n\r\nDisallow: /d"))
	for path, line := range map[string]int{"/a": 2, "/b": 3, "/c": 4, "/d": 6} {
		if got, ok := r.Group("x").Match(path); !ok || got.Line != line {
			t.Errorf("Match(%q) = %+v, %v; want line %d", path, got, ok, line)
		}
	}
}

func TestMatchSpecialGroups(t *testing.T) {
	if got, ok := DisallowAll().Group("godwit").Match("/x"); !ok || got.Allow || got.Pattern != "/" || got.Line != 0 || len(got.Agents) != 0 {
		t.Errorf("DisallowAll: Match(/x) = %+v, %v", got, ok)
	}
	var nilGroup *Group
	if got, ok := nilGroup.Match("/x"); ok {
		t.Errorf("nil Group: Match(/x) = %+v, true", got)
	}
	if got, ok := AllowAll().Group("godwit").Match("/x"); ok {
		t.Errorf("AllowAll: Match(/x) = %+v, true", got)
	}
	if s := (Rule{Pattern: "/p*$"}).String(); s != "Disallow: /p*$" {
		t.Errorf("String() = %q", s)
	}
	if s := (Rule{Allow: true, Pattern: "/p"}).String(); s != "Allow: /p" {
		t.Errorf("String() = %q", s)
	}
}

func TestAllowedLarge(t *testing.T) {
	g := Parse(largeRobots()).Group("godwit")
	want := map[string]string{
		"/2024/06/01/godwits-cross-the-pacific.html":                      "",
		"/catalog/shoes/running/12345?utm_source=newsletter&color=red":    "Disallow: /*?utm_source=", // longest wins
		"/product/12345/reviews/page/3":                                   "Disallow: /product/",
		"/about/team/":                                                    "",
		"/search?q=godwit":                                                "", // not /search$, not /search/
		"/wp-content/themes/site/style.css":                               "Disallow: /wp-content/",
		"/assets/site.css":                                                "Allow: /*.css$",
		"/downloads/report-2023.pdf":                                      "Disallow: /*.pdf$",
		"/news/world/europe/some-long-article-slug-with-many-words-in-it": "Disallow: /news/",
		"/static/img/logo.png":                                            "Allow: /static/img/",
		"/shop/item?sort=price":                                           "Disallow: /*?sort=",
		"/shop/item":                                                      "Disallow: /shop/",
		"/item?sort=price":                                                "Disallow: /*?sort=",
	}
	for _, path := range largePaths {
		if _, ok := want[path]; !ok {
			t.Errorf("no expectation for %q", path)
		}
	}
	for path, w := range want {
		got, ok := g.Match(path)
		s := ""
		if ok {
			s = got.String()
		}
		if s != w {
			t.Errorf("Match(%q) = %q, want %q", path, s, w)
		}
		if g.Allowed(path) != slowAllowed(g, path) {
			t.Errorf("Allowed(%q) disagrees with the reference", path)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		for _, p := range largePaths {
			g.Allowed(p)
		}
	})
	if allocs != 0 {
		t.Errorf("Allowed allocates %v times per call, want 0", allocs)
	}
}

func TestGroupAgents(t *testing.T) {
	r := Parse([]byte("User-agent: *\nUser-agent: a\nDisallow: /x\n\nUser-agent: godwit\nUser-agent: b\nDisallow: /y\n\nUser-agent: GODWIT\nDisallow: /z\n\nUser-agent: *\nDisallow: /w\n"))
	tests := []struct {
		agent string
		want  []string
	}{
		{"godwit", []string{"godwit", "b"}},
		{"a", []string{"*", "a"}},
		{"other", []string{"*", "a"}},
	}
	for _, tt := range tests {
		if got := r.Group(tt.agent).Agents(); !slices.Equal(got, tt.want) {
			t.Errorf("Group(%q).Agents() = %q, want %q", tt.agent, got, tt.want)
		}
	}
	if got := Parse([]byte("User-agent: x\nDisallow: /\n")).Group("godwit").Agents(); len(got) != 0 {
		t.Errorf("Agents() with no group = %q, want none", got)
	}
	var g *Group
	if got := g.Agents(); got != nil {
		t.Errorf("nil Group: Agents() = %q", got)
	}
}

// TestAllowedPrefilters covers the edges of the shortcuts of decide: heads
// of 0 to 8+ bytes against shorter and longer paths, and byte sets.
func TestAllowedPrefilters(t *testing.T) {
	g := Parse([]byte("User-agent: *\nDisallow: /abcdefghij\nDisallow: /abc$\nDisallow: *x*y\nDisallow: /*?q=\nDisallow: /ab/*/cd$\nAllow: /$\nDisallow: /\n")).Group("godwit")
	for path, want := range map[string]bool{
		"/": true, "": true, "/a": false, "/abc": false, "/abcd": false, "/abcdefghij": false, "/abcdefghi": false,
		"/yx": false, "/x/y": false, "/?q=1": false, "/ab/zz/cd": false, "/ab/cd": false, "/robots.txt": true,
	} {
		if got := g.Allowed(path); got != want || got != slowAllowed(g, path) {
			t.Errorf("Allowed(%q) = %v, want %v (reference %v)", path, got, want, slowAllowed(g, path))
		}
	}
	for path, line := range map[string]int{"/abcdefghijk": 2, "/abc": 3, "/zxzy": 4, "/p?q=": 5, "/ab/x/cd": 6, "/ab/cd": 8, "/": 7} {
		if r, ok := g.Match(path); !ok || r.Line != line {
			t.Errorf("Match(%q) = %+v, %v; want line %d", path, r, ok, line)
		}
	}
}
