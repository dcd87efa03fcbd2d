package robots

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

const (
	googleSuitePath = "../../../shared/conformance/google-robotstxt/robots_test-cases.json"
	specSuitePath   = "../../../shared/conformance/google-robotstxt-spec-test/spec-test-cases.json"
)

// divergence is a case of Google's suites where we deliberately answer
// otherwise, and why.
type divergence struct {
	robots, agent, url string
	reason             string
}

// Reasons for the divergences below. Google's reference parser compares the
// URL exactly as given, and its suites test that; we follow RFC 9309
// section 2.2.2, which has both sides percent-encoded the same way.
const (
	reasonDecodeUnreserved = "RFC 9309 section 2.2.2 (last row of its table): %62%61%7A is matched as baz, " +
		"so Allow: /foo/bar/%62%61%7A allows /foo/bar/baz; Google compares the escapes verbatim"
	reasonEncodeNonASCII = "RFC 9309 section 2.2.2: non-ASCII octets of the URI MUST be percent-encoded before " +
		"comparison, so a raw U+30C4 in the URL matches /foo/bar/%E3%83%84; Google compares raw bytes " +
		"(a URL as the crawler sends it is always encoded, so this never arises in practice)"
	reasonRobotsTxt = "RFC 9309 section 2.2.2: \"The /robots.txt URI is implicitly allowed\"; " +
		"Google's reference parser applies the rules to it"
)

// googleDivergences are the cases of robots_test-cases.json, by gtest name,
// that we answer otherwise.
var googleDivergences = map[string][]divergence{
	"ID_Encoding": {
		{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/ツ", reasonEncodeNonASCII},
		{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/ツ", reasonEncodeNonASCII},
		{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/baz", reasonDecodeUnreserved},
	},
}

// specDivergences are the cases of spec-test-cases.json, by file, that we
// answer otherwise. None is marked GOOGLE_SPECIFIC: all 22 of those pass.
var specDivergences = map[string][]divergence{
	"CTC/correctness/non-ascii-paths.textproto": {
		{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/ツ", reasonEncodeNonASCII},
		{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/ツ", reasonEncodeNonASCII},
		{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/baz", reasonDecodeUnreserved},
	},
	"CTC/stress/327748.textproto": {
		{"", "asdfbot", "http://m.example.com/robots.txt", reasonRobotsTxt},
	},
	"CTC/stress/369883.textproto": {
		{"", "BarBot", "http://example.com/robots.txt", reasonRobotsTxt},
		{"", "AB", "http://example.com/robots.txt", reasonRobotsTxt},
	},
	"CTC/stress/860237.textproto": {
		{"", "XYZ", "http://example.com/robots.txt", reasonRobotsTxt},
	},
}

// findDivergence returns the divergence listed for a case, if any. An empty
// robots field in the list matches any file.
func findDivergence(list []divergence, robots, agent, url string) (divergence, bool) {
	for _, d := range list {
		if (d.robots == "" || d.robots == robots) && d.agent == agent && d.url == url {
			return d, true
		}
	}
	return divergence{}, false
}

// pathParamsQuery is Google's GetPathParamsQuery (robots.cc): the path,
// params and query of a URL given as a string, "/" when there is none.
func pathParamsQuery(url string) string {
	searchStart := 0
	if strings.HasPrefix(url, "//") {
		searchStart = 2
	}
	find := func(s string, from int) int {
		if i := strings.IndexAny(s[from:], "/?;"); i >= 0 {
			return from + i
		}
		return len(s) + 1 // npos
	}
	earlyPath := find(url, searchStart)
	protocolEnd := len(url) + 1
	if i := strings.Index(url[searchStart:], "://"); i >= 0 {
		protocolEnd = searchStart + i
	}
	if earlyPath < protocolEnd {
		protocolEnd = len(url) + 1
	}
	if protocolEnd > len(url) {
		protocolEnd = searchStart
	} else {
		protocolEnd += 3
	}
	pathStart := find(url, protocolEnd)
	if pathStart > len(url) {
		return "/"
	}
	hashPos := len(url) + 1
	if i := strings.IndexByte(url[searchStart:], '#'); i >= 0 {
		hashPos = searchStart + i
	}
	if hashPos < pathStart {
		return "/"
	}
	pathEnd := min(hashPos, len(url))
	if url[pathStart] != '/' {
		return "/" + url[pathStart:pathEnd]
	}
	return url[pathStart:pathEnd]
}

type googleSuite struct {
	Cases []struct {
		Test      string `json:"test"`
		Robots    string `json:"robotstxt"`
		RobotsB64 string `json:"robotstxt_b64"`
		File      string `json:"file"`
		TestType  string `json:"test_type"`
		UserAgent string `json:"useragent"`
		URL       string `json:"url"`
		Allowed   bool   `json:"allowed"`
	} `json:"cases"`
	PathParamsQuery []struct {
		URL  string `json:"url"`
		Want string `json:"path_params_query"`
	} `json:"get_path_params_query"`
	EscapePattern []struct {
		Pattern string `json:"pattern"`
		Escaped string `json:"escaped"`
	} `json:"maybe_escape_pattern"`
	ValidAgent []struct {
		UserAgent string `json:"useragent"`
		Valid     bool   `json:"valid"`
	} `json:"is_valid_user_agent_to_obey"`
}

func loadSuite(t *testing.T, path string) googleSuite {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("conformance data %s not available: %v", path, err)
	}
	var s googleSuite
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// allowed is IsUserAgentAllowed of Google's suites.
func allowed(robots []byte, agent, url string) bool {
	return Parse(robots).Group(agent).Allowed(pathParamsQuery(url))
}

// TestConformanceGoogleSuite runs every IsUserAgentAllowed assertion of Google's
// robots_test.cc.
func TestConformanceGoogleSuite(t *testing.T) {
	s := loadSuite(t, googleSuitePath)
	pass, diverge := 0, 0
	for i, c := range s.Cases {
		got := allowed([]byte(c.Robots), c.UserAgent, c.URL)
		name := fmt.Sprintf("%s/%d", c.Test, i)
		if d, ok := findDivergence(googleDivergences[c.Test], c.Robots, c.UserAgent, c.URL); ok {
			diverge++
			if got == c.Allowed {
				t.Errorf("%s: listed as a divergence but now agrees with Google (allowed=%v) for %q, %q: update googleDivergences", name, got, c.UserAgent, c.URL)
			} else {
				t.Logf("%s: allowed(%q, %q) = %v, Google %v, by design: %s", name, c.UserAgent, c.URL, got, c.Allowed, d.reason)
			}
			continue
		}
		if got != c.Allowed {
			t.Errorf("%s: robots.txt %q: Group(%q).Allowed(%q) = %v, want %v", name, c.Robots, c.UserAgent, pathParamsQuery(c.URL), got, c.Allowed)
			continue
		}
		pass++
	}
	t.Logf("Google robots_test.cc: %d/%d agree, %d listed divergences", pass, len(s.Cases), diverge)
}

// TestConformanceGoogleSuiteHelpers checks the URL helper of the suite against
// Google's own cases, and our normalization and agent validation against
// MaybeEscapePattern and IsValidUserAgentToObey.
func TestConformanceGoogleSuiteHelpers(t *testing.T) {
	s := loadSuite(t, googleSuitePath)
	for _, c := range s.PathParamsQuery {
		if got := pathParamsQuery(c.URL); got != c.Want {
			t.Errorf("pathParamsQuery(%q) = %q, want %q", c.URL, got, c.Want)
		}
	}
	for _, c := range s.EscapePattern {
		if got := string(appendNormalized(nil, c.Pattern)); got != c.Escaped {
			t.Errorf("appendNormalized(%q) = %q, want %q", c.Pattern, got, c.Escaped)
		}
	}
	for _, c := range s.ValidAgent {
		if got := ValidAgent(c.UserAgent); got != c.Valid {
			t.Errorf("ValidAgent(%q) = %v, want %v", c.UserAgent, got, c.Valid)
		}
	}
}

// TestConformanceSpecSuite runs Google's robotstxt-spec-test suite (the CTC cases).
func TestConformanceSpecSuite(t *testing.T) {
	s := loadSuite(t, specSuitePath)
	pass, diverge, googleSpecific := 0, 0, 0
	for i, c := range s.Cases {
		body, err := base64.StdEncoding.DecodeString(c.RobotsB64)
		if err != nil {
			t.Fatalf("case %d: robotstxt_b64: %v", i, err)
		}
		if c.TestType == "GOOGLE_SPECIFIC" {
			googleSpecific++
		}
		got := allowed(body, c.UserAgent, c.URL)
		name := fmt.Sprintf("%s/%d", c.File, i)
		if d, ok := findDivergence(specDivergences[c.File], c.Robots, c.UserAgent, c.URL); ok {
			diverge++
			if got == c.Allowed {
				t.Errorf("%s: listed as a divergence but now agrees with the suite (allowed=%v) for %q, %q: update specDivergences", name, got, c.UserAgent, c.URL)
			} else {
				t.Logf("%s (%s): allowed(%q, %q) = %v, suite %v, by design: %s", name, c.TestType, c.UserAgent, c.URL, got, c.Allowed, d.reason)
			}
			continue
		}
		if got != c.Allowed {
			t.Errorf("%s (%s): robots.txt %q: Group(%q).Allowed(%q) = %v, want %v", name, c.TestType, body, c.UserAgent, pathParamsQuery(c.URL), got, c.Allowed)
			continue
		}
		pass++
	}
	t.Logf("robotstxt-spec-test: %d/%d agree (%d GOOGLE_SPECIFIC), %d listed divergences", pass, len(s.Cases), googleSpecific, diverge)
}
