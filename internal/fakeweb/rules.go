package fakeweb

import (
	"slices"
	"strings"
)

// This file is the judge's own reading of robots.txt (RFC 9309), kept
// independent of the crawler's: New parses each robots.txt file the web
// serves for the agent "godwit", and the ground truth and the judge ask
// the parsed rules whether a path may be fetched. It reads what this web
// writes, and a little more; it is not a general parser (no size limit,
// no percent-encoding normalization: the web's patterns and paths are
// plain ASCII).

// agent is the product token the judge holds the crawler to.
const agent = "godwit"

const robotsRealPath = "/robots-real.txt"

// The robots.txt files, without the Sitemap line Config.Sitemaps adds.
// robotsDisallowFile is also the file of RobotsRedirect (at
// /robots-real.txt) and of RobotsFlaky (once it answers 200);
// RobotsCrawlDelay's is built in New.
const (
	robotsAllowFile    = "User-agent: *\nAllow: /\n"
	robotsStarPrivate  = "User-agent: *\nDisallow: /private/\n"
	robotsOtherbot     = "\nUser-agent: otherbot\nDisallow: /\n"
	robotsDisallowFile = robotsStarPrivate + robotsOtherbot

	robotsWildcardFile = `# "*" matches any run of characters, "$" anchors the end (RFC 9309).
User-agent: *
Disallow: /private/
Disallow: /*.pdf$
Allow: /w/open/*.pdf$
Disallow: /w/*/draft
Allow: /w/*/draft/public
Disallow: /w/1
Allow: /w/1$
Disallow: /w/tie
Allow: /w/tie
` + robotsOtherbot

	// godwit is named by two groups, which RFC 9309 merges; the "*"
	// group, which keeps it out of /p/ and not out of /private/, is
	// not for it.
	robotsAgentGroupFile = `User-agent: *
Disallow: /p/

User-agent: examplebot
User-agent: GodWit
Allow: /p/
` + robotsOtherbot + `
user-agent: godwit
Disallow: /private/
`
)

// wildPaths are the pages of a RobotsWildcard host beyond the ordinary
// ones, on both sides of each pattern of robotsWildcardFile. Each is a
// leaf linking back to the home page, itself linked from the home page.
// Which of them godwit may fetch is decided by the rules, not listed
// here; TestWildcardVerdicts pins the verdicts.
var wildPaths = [...]string{
	"/w/report.pdf",      // Disallow: /*.pdf$
	"/w/report.pdf.html", // not: "$" anchors .pdf at the end
	"/w/open/guide.pdf",  // Allow: /w/open/*.pdf$ is longer than Disallow: /*.pdf$
	"/w/a/draft",         // Disallow: /w/*/draft
	"/w/a/b/draft",       // "*" matches across "/"
	"/w/b/drafts",        // a pattern without "$" matches a prefix
	"/w/a/draft/public",  // Allow: /w/*/draft/public is longer
	"/w/a/final",         // no rule
	"/w/1",               // Allow: /w/1$ is longer than Disallow: /w/1
	"/w/10",              // Disallow: /w/1
	"/w/1/",              // Disallow: /w/1, and "$" stops Allow: /w/1$
	"/w/tie",             // Allow wins a tie of equal length
}

// WildcardPaths returns the paths of the pages a RobotsWildcard host has
// beyond the ordinary ones, some allowed to godwit and some not.
func WildcardPaths() []string { return slices.Clone(wildPaths[:]) }

// wildIndex returns the index in wildPaths of a cleaned path.
func wildIndex(clean string) (int, bool) {
	for i, p := range wildPaths {
		if p == clean {
			return i, true
		}
	}
	return 0, false
}

// rule is one Allow or Disallow line.
type rule struct {
	allow   bool
	pattern string
}

func (r rule) String() string {
	if r.allow {
		return "Allow: " + r.pattern
	}
	return "Disallow: " + r.pattern
}

// ruleSet is what a robots.txt file says to one agent. The zero value
// allows everything.
type ruleSet struct {
	rules     []rule
	disallows bool // some rule is a Disallow: else everything is allowed
}

// parseRobots returns the rules of a robots.txt file for the product
// token agent: every group with a user-agent line naming it (ignoring
// case), merged; if there is none, every "*" group, merged; if there is
// none either, nothing (everything is allowed). A group is one or more
// user-agent lines followed by rules; a user-agent line after a rule
// starts the next. Other lines (Sitemap, Crawl-delay, unknown) neither
// start nor end a group; comments and blank lines are ignored.
func parseRobots(body, agent string) ruleSet {
	var mine, star []rule
	named := false // some group names agent
	inMine, inStar := false, false
	agents := false // the previous record was a user-agent line
	for line := range strings.Lines(body) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
		switch key {
		case "user-agent":
			if !agents {
				inMine, inStar = false, false
				agents = true
			}
			switch {
			case value == "*":
				inStar = true
			case strings.EqualFold(value, agent):
				inMine, named = true, true
			}
		case "allow", "disallow":
			agents = false
			if value == "" {
				continue // "Disallow:" with no path disallows nothing
			}
			r := rule{allow: key == "allow", pattern: value}
			if inMine {
				mine = append(mine, r)
			}
			if inStar {
				star = append(star, r)
			}
		}
	}
	rules := star
	if named {
		rules = mine
	}
	return ruleSet{rules: rules, disallows: slices.ContainsFunc(rules, func(r rule) bool { return !r.allow })}
}

// allowed reports whether path (with "?" and the query if the URL has
// one) may be fetched, and the rule that decided, if any: the matching
// rule with the longest pattern wins, and Allow wins a tie.
func (s ruleSet) allowed(path string) (bool, rule, bool) { return allowedPath(s, path) }

// allowedPath is ruleSet.allowed for a path held in a string or in a
// byte slice, which the ground truth reuses to spare allocations.
func allowedPath[P ~string | ~[]byte](s ruleSet, path P) (bool, rule, bool) {
	if !s.disallows {
		return true, rule{}, false
	}
	best, found := rule{}, false
	for _, r := range s.rules {
		if !matchPattern(r.pattern, path) {
			continue
		}
		if !found || len(r.pattern) > len(best.pattern) || len(r.pattern) == len(best.pattern) && r.allow {
			best, found = r, true
		}
	}
	return !found || best.allow, best, found
}

// matchPattern reports whether a robots.txt path pattern matches path
// from its start: "*" matches any run of characters (slashes included)
// and a final "$" anchors the end.
func matchPattern[P ~string | ~[]byte](pattern string, path P) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return hasPrefix(path, pattern) && (!anchored || len(path) == len(pattern))
	}
	if !hasPrefix(path, pattern[:star]) {
		return false
	}
	pos := star
	pattern = pattern[star+1:]
	// The leftmost match of each middle part leaves the most room for
	// the rest, so no backtracking is needed.
	for {
		star = strings.IndexByte(pattern, '*')
		if star < 0 {
			break
		}
		i := index(path[pos:], pattern[:star])
		if i < 0 {
			return false
		}
		pos += i + star
		pattern = pattern[star+1:]
	}
	if anchored {
		return len(path)-len(pattern) >= pos && hasPrefix(path[len(path)-len(pattern):], pattern)
	}
	return index(path[pos:], pattern) >= 0
}

func hasPrefix[P ~string | ~[]byte](s P, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if s[i] != prefix[i] {
			return false
		}
	}
	return true
}

// index is strings.Index for short strings of either kind.
func index[P ~string | ~[]byte](s P, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if hasPrefix(s[i:], sub) {
			return i
		}
	}
	return -1
}
