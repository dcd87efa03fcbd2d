package robots

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAllowed(t *testing.T) {
	tests := []struct {
		name   string
		robots string
		agent  string
		paths  map[string]bool
	}{
		{
			name:   "empty file",
			robots: "",
			agent:  "godwit",
			paths:  map[string]bool{"/": true, "/x": true},
		},
		{
			name:   "disallow all",
			robots: "User-agent: *\nDisallow: /\n",
			agent:  "godwit",
			paths:  map[string]bool{"/": false, "/x": false, "": false, "/robots.txt": true, "/robots.txt?x": false},
		},
		{
			name:   "specific group wins over star, even when empty",
			robots: "User-agent: *\nDisallow: /\n\nUser-agent: godwit\nDisallow:\n",
			agent:  "godwit",
			paths:  map[string]bool{"/": true, "/private": true},
		},
		{
			name:   "agent matching is case-insensitive and by product token",
			robots: "User-agent: *\nDisallow: /\n\nUser-agent: GodWit/1.2 (+https://example.com)\nAllow: /\n",
			agent:  "godwit",
			paths:  map[string]bool{"/a": true},
		},
		{
			name:   "other agents do not apply",
			robots: "User-agent: otherbot\nDisallow: /\n",
			agent:  "godwit",
			paths:  map[string]bool{"/a": true},
		},
		{
			name:   "prefix of the agent is not a match",
			robots: "User-agent: god\nDisallow: /\n",
			agent:  "godwit",
			paths:  map[string]bool{"/a": true},
		},
		{
			name:   "groups naming the agent are merged",
			robots: "User-agent: godwit\nDisallow: /a\n\nUser-agent: other\nDisallow: /b\n\nUser-agent: GODWIT\nDisallow: /c\n",
			agent:  "godwit",
			paths:  map[string]bool{"/a": false, "/b": true, "/c": false, "/d": true},
		},
		{
			name:   "star groups are merged",
			robots: "User-agent: *\nDisallow: /a\n\nUser-agent: other\nDisallow: /b\n\nUser-agent: *\nDisallow: /c\n",
			agent:  "godwit",
			paths:  map[string]bool{"/a": false, "/b": true, "/c": false},
		},
		{
			name:   "consecutive user-agent lines share a group, blank lines included",
			robots: "User-agent: a\n\nUser-agent: godwit\nUser-agent: b\nDisallow: /x\nUser-agent: c\nDisallow: /y\n",
			agent:  "godwit",
			paths:  map[string]bool{"/x": false, "/y": true},
		},
		{
			name:   "rules before any user-agent are ignored",
			robots: "Disallow: /\nUser-agent: godwit\nDisallow: /x\n",
			agent:  "godwit",
			paths:  map[string]bool{"/": true, "/x": false},
		},
		{
			name:   "longest match wins, allow wins ties",
			robots: "User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /a/b/c\nAllow: /t$\nDisallow: /t$\n",
			agent:  "godwit",
			paths:  map[string]bool{"/a": false, "/a/b": true, "/a/b/c": false, "/a/bx": true, "/t": true},
		},
		{
			name:   "wildcards and anchors",
			robots: "User-agent: *\nDisallow: /*.pdf$\nDisallow: /*/private/*\nDisallow: /search*q=\nDisallow: /x$y\n",
			agent:  "godwit",
			paths: map[string]bool{
				"/a.pdf": false, "/a.pdf?x": true, "/dir/a.pdf": false, "/a.pdfx": true,
				"/a/private/b": false, "/private/b": true, "/a/private": true,
				"/search?q=1": false, "/searchq=": false, "/search?x=1": true,
				"/x$y": false, "/x": true,
			},
		},
		{
			name:   "percent-encoding is normalized on both sides",
			robots: "User-agent: *\nDisallow: /%7Euser\nDisallow: /caf%c3%a9\nDisallow: /naïve\nDisallow: /a%2Fb\nDisallow: /sp ace\nDisallow: /pipe|x\n",
			agent:  "godwit",
			paths: map[string]bool{
				"/~user":      false,
				"/%7euser":    false,
				"/caf%C3%A9":  false,
				"/café":       false,
				"/na%C3%AFve": false,
				"/a%2fb":      false,
				"/a/b":        true,
				"/sp%20ace":   false,
				"/pipe%7Cx":   false,
				"/pipe|x":     false,
			},
		},
		{
			name:   "paths are case-sensitive",
			robots: "User-agent: *\nDisallow: /Private\n",
			agent:  "godwit",
			paths:  map[string]bool{"/Private": false, "/private": true},
		},
		{
			name:   "index.html allows its directory",
			robots: "User-agent: *\nAllow: /d/index.html\nDisallow: /\n",
			agent:  "godwit",
			paths:  map[string]bool{"/d/": true, "/d/index.html": true, "/d/x": false, "/d": false},
		},
		{
			name:   "line endings, BOM, comments, odd spacing and typos",
			robots: "\xef\xbb\xbfUSER-AGENT : godwit # us\r\n  disalow\t:  /a  # typo\r\rallow /a/b\rDisallow: /c#d\n",
			agent:  "godwit",
			paths:  map[string]bool{"/a": false, "/a/b": true, "/c": false, "/d": true},
		},
		{
			name:   "unknown lines and sitemaps do not end a group",
			robots: "User-agent: a\nSitemap: /s.xml\nFoo: bar\nCrawl-delay: 3\nUser-agent: godwit\nDisallow: /x\n",
			agent:  "a",
			paths:  map[string]bool{"/x": false},
		},
		{
			name:   "star with trailing text is star",
			robots: "User-agent: * # all\nDisallow: /x\n",
			agent:  "godwit",
			paths:  map[string]bool{"/x": false},
		},
		{
			name:   "relative path argument",
			robots: "User-agent: *\nDisallow: /?\n",
			agent:  "godwit",
			paths:  map[string]bool{"?a=1": false, "": true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Parse([]byte(tt.robots)).Group(tt.agent)
			for path, want := range tt.paths {
				if got := g.Allowed(path); got != want {
					t.Errorf("robots.txt %q: Group(%q).Allowed(%q) = %v, want %v", tt.robots, tt.agent, path, got, want)
				}
			}
		})
	}
}

func TestCrawlDelay(t *testing.T) {
	tests := []struct {
		robots string
		want   time.Duration
		ok     bool
	}{
		{"User-agent: *\nCrawl-delay: 5\n", 5 * time.Second, true},
		{"User-agent: *\ncrawl-delay: 0.5\n", 500 * time.Millisecond, true},
		{"User-agent: *\nCrawl-Delay: .25\n", 250 * time.Millisecond, true},
		{"User-agent: *\nCrawl-delay : 60\n", time.Minute, true},
		{"User-agent: *\nCrawl-delay: 0\n", 0, true},
		{"User-agent: *\nCrawl-delay: 5s\n", 0, false},
		{"User-agent: *\nCrawl-delay: -1\n", 0, false},
		{"User-agent: *\nCrawl-delay: 1e3\n", 0, false},
		{"User-agent: *\nCrawl-delay: inf\n", 0, false},
		{"User-agent: *\nCrawl-delay: 1.2.3\n", 0, false},
		{"User-agent: *\nCrawl-delay:\n", 0, false},
		{"User-agent: *\nCrawl-delay: 99999999999999999999999\n", time.Duration(1<<63 - 1), true},
		{"User-agent: *\nCrawl-delay: 10\nCrawl-delay: junk\nCrawl-delay: 2\n", 10 * time.Second, true},
		{"Crawl-delay: 5\nUser-agent: *\nDisallow: /\n", 0, false},
		{"User-agent: other\nCrawl-delay: 5\n", 0, false},
		// No rule separates the user-agent lines: one group, largest delay.
		{"User-agent: *\nCrawl-delay: 1\nUser-agent: godwit\nCrawl-delay: 2\n", 2 * time.Second, true},
		{"User-agent: *\nDisallow: /a\nCrawl-delay: 3\n\nUser-agent: *\nCrawl-delay: 7\n", 7 * time.Second, true},
	}
	for _, tt := range tests {
		got, ok := Parse([]byte(tt.robots)).Group("godwit").CrawlDelay()
		if got != tt.want || ok != tt.ok {
			t.Errorf("robots.txt %q: CrawlDelay() = %v, %v; want %v, %v", tt.robots, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSitemaps(t *testing.T) {
	r := Parse([]byte("Sitemap: https://example.com/a.xml\nUser-agent: *\nsitemap:https://example.com/b.xml # c\nSite-map: /c.xml\nSitemap: https://example.com/a.xml\nSitemap:\n"))
	want := []string{"https://example.com/a.xml", "https://example.com/b.xml", "/c.xml"}
	got := r.Sitemaps()
	if !slices.Equal(got, want) {
		t.Errorf("Sitemaps() = %q, want %q", got, want)
	}
	got[0] = "changed"
	if r.Sitemaps()[0] != want[0] {
		t.Errorf("Sitemaps() exposes internal state")
	}
}

func TestMaxSize(t *testing.T) {
	// A rule wholly inside the limit applies; the line cut by the limit,
	// and everything after it, does not.
	var b strings.Builder
	b.WriteString("User-agent: *\nDisallow: /first\n")
	for b.Len() < MaxSize-30 {
		b.WriteString("# padding padding padding padding padding\n")
	}
	b.WriteString("Disallow: /cut-in-the-middle-of-this-long-rule\nDisallow: /after\n")
	g := Parse([]byte(b.String())).Group("godwit")
	for path, want := range map[string]bool{"/first": false, "/cut": true, "/after": true} {
		if got := g.Allowed(path); got != want {
			t.Errorf("Allowed(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestLongLine(t *testing.T) {
	// Lines are cut at maxLineLen bytes, so a longer pattern matches as
	// its first bytes.
	pattern := "/" + strings.Repeat("a", 2*maxLineLen)
	g := Parse([]byte("User-agent: *\nDisallow: " + pattern + "\n")).Group("godwit")
	cut := strings.Repeat("a", maxLineLen-len("Disallow: /"))
	if g.Allowed("/" + cut) {
		t.Errorf("Allowed(prefix kept from a long line) = true, want false")
	}
	if !g.Allowed("/" + cut[1:]) {
		t.Errorf("Allowed(shorter than the prefix kept) = false, want true")
	}
}

func TestAllowAllDisallowAll(t *testing.T) {
	for _, path := range []string{"/", "/a", "/a?b"} {
		if !AllowAll().Group("godwit").Allowed(path) {
			t.Errorf("AllowAll().Allowed(%q) = false", path)
		}
		if DisallowAll().Group("godwit").Allowed(path) {
			t.Errorf("DisallowAll().Allowed(%q) = true", path)
		}
	}
	if !DisallowAll().Group("godwit").Allowed("/robots.txt") {
		t.Errorf("DisallowAll().Allowed(/robots.txt) = false")
	}
	var r *Robots
	if g := r.Group("godwit"); !g.Allowed("/a") || len(r.Sitemaps()) != 0 {
		t.Errorf("nil Robots does not allow everything")
	}
	var zero Robots
	if d, ok := zero.Group("godwit").CrawlDelay(); !zero.Group("godwit").Allowed("/") || ok || d != 0 {
		t.Errorf("zero Robots does not allow everything")
	}
}

func TestValidAgent(t *testing.T) {
	for token, want := range map[string]bool{
		"godwit": true, "God-Wit_bot": true, "": false, "godwit/1.0": false, "god wit": false, "bot2": false, "*": false,
	} {
		if got := ValidAgent(token); got != want {
			t.Errorf("ValidAgent(%q) = %v, want %v", token, got, want)
		}
	}
}

func TestAllowedDoesNotAllocate(t *testing.T) {
	g := Parse([]byte(realistic)).Group("godwit")
	allocs := testing.AllocsPerRun(100, func() {
		g.Allowed("/catalog/item/12345/reviews?page=2&sort=new")
		g.Allowed("/caf%c3%a9/%7Euser")
	})
	if allocs != 0 {
		t.Errorf("Allowed allocates %v times per call, want 0", allocs)
	}
}
