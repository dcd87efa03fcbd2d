package fakeweb

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMatchPattern(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/", true},
		{"/private/", "/private/3", true},
		{"/private/", "/private", false},
		{"/p/1", "/p/10", true},
		{"/p/1$", "/p/1", true},
		{"/p/1$", "/p/10", false},
		{"/p/1$", "/p/1?x=1", false},
		{"/*.pdf$", "/w/report.pdf", true},
		{"/*.pdf$", "/w/report.pdf.html", false},
		{"/*.pdf$", "/w/report.pdf?download=1", false},
		{"/*.pdf", "/w/report.pdf?download=1", true},
		{"/w/*/draft", "/w/a/draft", true},
		{"/w/*/draft", "/w/a/b/draft", true},
		{"/w/*/draft", "/w/draft", false},
		{"/w/*/draft", "/w//draft", true},
		{"/w/*/draft", "/w/b/drafts", true},
		{"/*", "/anything", true},
		{"*", "/anything", true},
		{"x", "/x", false}, // patterns match from the start of the path
		{"/a*b*c$", "/axbxc", true},
		{"/a*b*c$", "/axbxcx", false},
		{"/a*b*c$", "/abcbc", true},
		{"/a**c", "/ac", true},
		{"/fish*$", "/fish", true},
		{"/$", "/", true},
		{"/$", "/x", false},
	}
	for _, tt := range tests {
		if got := matchPattern(tt.pattern, tt.path); got != tt.want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// patternRegexp is an independent reading of a pattern, for the fuzzer.
func patternRegexp(pattern string) *regexp.Regexp {
	anchored := strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(pattern, "$")
	parts := strings.Split(pattern, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	expr := "^" + strings.Join(parts, ".*")
	if anchored {
		expr += "$"
	}
	return regexp.MustCompile("(?s)" + expr)
}

func FuzzMatchPattern(f *testing.F) {
	for _, s := range [][2]string{
		{"/*.pdf$", "/w/report.pdf"}, {"/w/*/draft", "/w/a/b/draft"}, {"/a*b*c$", "/abcbc"},
		{"/p/1$", "/p/10"}, {"/**$", "/"}, {"/$$", "/$"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if !utf8.ValidString(pattern) || !utf8.ValidString(path) {
			t.Skip("regexp reads UTF-8 only")
		}
		if got, want := matchPattern(pattern, path), patternRegexp(pattern).MatchString(path); got != want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", pattern, path, got, want)
		}
	})
}

func FuzzParseRobots(f *testing.F) {
	for _, s := range []string{robotsAllowFile, robotsDisallowFile, robotsWildcardFile, robotsAgentGroupFile, "User-agent: godwit\n"} {
		f.Add(s, "/p/1")
	}
	f.Fuzz(func(t *testing.T, body, path string) {
		rs := parseRobots(body, agent)
		ok, by, found := rs.allowed(path)
		if found != (by.pattern != "") || !found && !ok || found && ok != by.allow {
			t.Errorf("allowed(%q) = %v, %v, %v", path, ok, by, found)
		}
	})
}

func TestParseRobots(t *testing.T) {
	tests := []struct {
		name, body string
		allowed    []string
		disallowed []string
	}{
		{"empty", "", []string{"/", "/private/1"}, nil},
		{"star", "User-agent: *\nDisallow: /x\n", []string{"/"}, []string{"/x", "/xy"}},
		{"own group replaces star", "User-agent: *\nDisallow: /x\n\nUser-agent: godwit\nDisallow: /y\n", []string{"/x"}, []string{"/y"}},
		{"case of the token", "User-agent: *\nDisallow: /\n\nUSER-AGENT: GODWIT\nDisallow: /y\n", []string{"/x"}, []string{"/y"}},
		{"empty own group allows all", "User-agent: *\nDisallow: /\n\nUser-agent: godwit\n", []string{"/x"}, nil},
		{"empty disallow", "User-agent: godwit\nDisallow:\n", []string{"/x"}, nil},
		{"merged groups", "User-agent: godwit\nDisallow: /a\n\nUser-agent: other\nDisallow: /b\n\nUser-agent: godwit\nDisallow: /c\n",
			[]string{"/b"}, []string{"/a", "/c"}},
		{"several agents per group", "User-agent: other\nUser-agent: godwit\nDisallow: /a\n", nil, []string{"/a"}},
		{"rule ends the agent list", "User-agent: godwit\nDisallow: /a\nUser-agent: other\nDisallow: /b\n", []string{"/b"}, []string{"/a"}},
		{"comments", "User-agent: godwit # us\nDisallow: /a # not /b\n# Disallow: /c\n", []string{"/b", "/c"}, []string{"/a"}},
		{"other records", "User-agent: godwit\nCrawl-delay: 2\nDisallow: /a\nSitemap: http://x/s.xml\nDisallow: /b\n", nil, []string{"/a", "/b"}},
		{"longest wins", "User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /a/b/c\n", []string{"/a/b", "/a/bx"}, []string{"/a", "/a/b/c"}},
		{"allow wins a tie", "User-agent: *\nDisallow: /a\nAllow: /a\n", []string{"/a"}, nil},
		{"prefix of the token is not the token", "User-agent: god\nDisallow: /\n", []string{"/"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := parseRobots(tt.body, agent)
			for _, p := range tt.allowed {
				if ok, by, _ := rs.allowed(p); !ok {
					t.Errorf("%q disallowed by %v, want allowed", p, by)
				}
			}
			for _, p := range tt.disallowed {
				if ok, _, _ := rs.allowed(p); ok {
					t.Errorf("%q allowed, want disallowed", p)
				}
			}
		})
	}
}

// TestWildcardVerdicts pins which /w/ pages godwit may fetch, and checks
// that each pattern of the wildcard robots.txt decides at least one page
// each way it can.
func TestWildcardVerdicts(t *testing.T) {
	rs := parseRobots(robotsWildcardFile, agent)
	want := map[string]bool{
		"/w/report.pdf": false, "/w/report.pdf.html": true, "/w/open/guide.pdf": true,
		"/w/a/draft": false, "/w/a/b/draft": false, "/w/b/drafts": false, "/w/a/draft/public": true,
		"/w/a/final": true, "/w/1": true, "/w/10": false, "/w/1/": false, "/w/tie": true,
	}
	decided := map[string]bool{}
	for _, p := range wildPaths {
		ok, by, found := rs.allowed(p)
		if ok != want[p] {
			t.Errorf("allowed(%q) = %v (by %v), want %v", p, ok, by, want[p])
		}
		if found {
			decided[by.String()] = true
		}
	}
	if len(want) != len(wildPaths) {
		t.Errorf("%d verdicts for %d paths", len(want), len(wildPaths))
	}
	for line := range strings.Lines(robotsWildcardFile) {
		line = strings.TrimSpace(line)
		switch line {
		case "Disallow: /", "Disallow: /private/":
			continue // not about /w/
		case "Disallow: /w/tie":
			continue // loses its tie, by design
		}
		if strings.HasPrefix(line, "Allow: ") || strings.HasPrefix(line, "Disallow: ") {
			if !decided[line] {
				t.Errorf("no /w/ page is decided by %q", line)
			}
		}
	}
}

func TestAgentGroupRules(t *testing.T) {
	tests := []struct {
		agent      string
		allowed    []string
		disallowed []string
	}{
		{agent, []string{"/", "/p/1", "/r/1"}, []string{"/private/0"}},
		{"examplebot", []string{"/p/1", "/private/0"}, nil},
		{"otherbot", nil, []string{"/", "/p/1"}},
		{"somebot", []string{"/", "/private/0"}, []string{"/p/1"}},
	}
	for _, tt := range tests {
		rs := parseRobots(robotsAgentGroupFile, tt.agent)
		for _, p := range tt.allowed {
			if ok, _, _ := rs.allowed(p); !ok {
				t.Errorf("%s: %q disallowed, want allowed", tt.agent, p)
			}
		}
		for _, p := range tt.disallowed {
			if ok, _, _ := rs.allowed(p); ok {
				t.Errorf("%s: %q allowed, want disallowed", tt.agent, p)
			}
		}
	}
}
