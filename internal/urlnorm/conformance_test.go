package urlnorm

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

const (
	wptDir           = "../../../shared/conformance/wpt-url/"
	safeBrowsingPath = "../../../shared/conformance/safebrowsing-canonicalization.json"
)

// readJSONCases reads a web-platform-tests file: a JSON array of test
// objects mixed with comment strings, which are skipped.
func readJSONCases[T any](t *testing.T, path string) []T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("conformance data %s not available: %v", path, err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var cases []T
	for _, r := range raw {
		if len(r) > 0 && r[0] == '"' {
			continue
		}
		var c T
		if err := json.Unmarshal(r, &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		cases = append(cases, c)
	}
	return cases
}

type wptCase struct {
	Input    string  `json:"input"`
	Base     *string `json:"base"`
	Failure  bool    `json:"failure"`
	Href     string  `json:"href"`
	Protocol string  `json:"protocol"`
	Username string  `json:"username"`
	Password string  `json:"password"`
	Host     string  `json:"host"`
	Hostname string  `json:"hostname"`
	Port     string  `json:"port"`
	Pathname string  `json:"pathname"`
	Search   string  `json:"search"`
	Hash     string  `json:"hash"`
}

// wptMisses lists the urltestdata.json cases (by input) the WHATWG parser
// is known not to agree with, and why; docs/urls.md keeps the same list.
// It is empty: every case agrees.
var wptMisses = map[string]string{}

// TestConformanceWPTURL runs the web-platform-tests URL parsing cases
// through the WHATWG parser and compares every component the tests give.
// The issue asks for at least 876 of 891; any case outside wptMisses fails.
func TestConformanceWPTURL(t *testing.T) {
	cases := readJSONCases[wptCase](t, wptDir+"urltestdata.json")
	agree := 0
	for _, c := range cases {
		got := wptRun(c)
		if got == "" {
			agree++
			continue
		}
		if _, known := wptMisses[c.Input]; !known {
			t.Errorf("parse(%q, base %s): %s", c.Input, wptBase(c), got)
		}
	}
	t.Logf("urltestdata.json: %d/%d cases agree", agree, len(cases))
	if len(cases) != 891 {
		t.Logf("the suite has %d cases, not the 891 the acceptance counts", len(cases))
	}
	if agree < 876 {
		t.Errorf("%d cases agree, want at least 876", agree)
	}
}

func wptBase(c wptCase) string {
	if c.Base == nil {
		return "none"
	}
	return strconv.Quote(*c.Base)
}

// wptRun returns "" when the parser agrees with c, else what differs.
func wptRun(c wptCase) string {
	var base *record
	if c.Base != nil {
		b, err := parseWHATWG(*c.Base, nil)
		if err != nil {
			return "base does not parse: " + err.Error()
		}
		base = &b
	}
	r, err := parseWHATWG(c.Input, base)
	switch {
	case c.Failure && err == nil:
		return "= " + strconv.Quote(r.href) + ", want failure"
	case c.Failure:
		return ""
	case err != nil:
		return "failed (" + err.Error() + "), want " + strconv.Quote(c.Href)
	}
	host := r.host
	if r.port != "" {
		host += ":" + r.port
	}
	search, hash := "", ""
	if r.query != "" {
		search = "?" + r.query
	}
	if r.fragment != "" {
		hash = "#" + r.fragment
	}
	var diffs []string
	for _, f := range []struct{ name, got, want string }{
		{"href", r.href, c.Href},
		{"protocol", r.scheme + ":", c.Protocol},
		{"username", r.username, c.Username},
		{"password", r.password, c.Password},
		{"host", host, c.Host},
		{"hostname", r.host, c.Hostname},
		{"port", r.port, c.Port},
		{"pathname", r.path, c.Pathname},
		{"search", search, c.Search},
		{"hash", hash, c.Hash},
	} {
		if f.got != f.want {
			diffs = append(diffs, f.name+" = "+strconv.Quote(f.got)+", want "+strconv.Quote(f.want))
		}
	}
	return strings.Join(diffs, "; ")
}

// TestConformanceWPTCrawl checks the crawl's layer against the same
// cases: for every http(s) URL the standard accepts, Resolve gives what
// Parse gives for the standard's serialization (the crawl's normalization
// of the right URL), and when the standard refuses, Resolve refuses too.
// The only differences are deliberate (see crawlHost): hosts with
// characters DNS cannot carry, and a host that is nothing but dots.
func TestConformanceWPTCrawl(t *testing.T) {
	cases := readJSONCases[wptCase](t, wptDir+"urltestdata.json")
	checked, deliberate := 0, 0
	for _, c := range cases {
		var base *record
		if c.Base != nil {
			b, err := parseWHATWG(*c.Base, nil)
			if err != nil || !isHTTP(b.scheme) {
				continue
			}
			base = &b
		}
		if c.Failure {
			if base == nil {
				if u, err := Parse(c.Input); err == nil {
					t.Errorf("Parse(%q) = %q, want an error (the standard refuses it)", c.Input, u)
				}
			}
			continue
		}
		if !strings.HasPrefix(c.Href, "http:") && !strings.HasPrefix(c.Href, "https:") {
			continue
		}
		checked++
		want, werr := Parse(c.Href)
		var gotS string
		if base == nil {
			u, err := Parse(c.Input)
			if err == nil {
				gotS = u.String()
			} else {
				gotS = "error: " + err.Error()
			}
		} else {
			b, err := Parse(*c.Base)
			if err != nil {
				continue
			}
			u, err := Resolve(b, c.Input)
			if err == nil {
				gotS = u.String()
			} else {
				gotS = "error: " + err.Error()
			}
		}
		if werr != nil {
			deliberate++
			t.Logf("refused on purpose: %q (the standard gives %q): %v", c.Input, c.Href, werr)
			if !strings.HasPrefix(gotS, "error: ") {
				t.Errorf("input %q: crawl refuses the standard's %q but accepts the input as %q", c.Input, c.Href, gotS)
			}
			continue
		}
		if wantS := want.String(); gotS != wantS {
			t.Errorf("Resolve(base %s, %q) = %q, want %q (the crawl form of %q)", wptBase(c), c.Input, gotS, wantS, c.Href)
		}
	}
	t.Logf("crawl layer: %d http(s) cases checked; %d refused on purpose", checked, deliberate)
	if deliberate > 5 {
		t.Errorf("%d http(s) URLs the standard accepts are refused; the deliberate differences are a handful", deliberate)
	}
}

type idnaCase struct {
	Input  string  `json:"input"`
	Output *string `json:"output"`
}

// idnaRun parses "https://<input>/x" and returns "" when the host is as
// the case wants, else what differs; accepted reports a host the case
// refuses.
func idnaRun(c idnaCase) (diff string, accepted bool) {
	r, err := parseWHATWG("https://"+c.Input+"/x", nil)
	switch {
	case c.Output == nil && err == nil:
		return "host " + strconv.Quote(r.host) + ", want failure", true
	case c.Output == nil:
		return "", false
	case err != nil:
		return "failed (" + err.Error() + "), want " + strconv.Quote(*c.Output), false
	case r.host != *c.Output:
		return "host " + strconv.Quote(r.host) + ", want " + strconv.Quote(*c.Output), false
	}
	return "", false
}

// toASCIIMisses are the toascii.json inputs we do not agree with. All are
// Unicode 16 changes to the UTS 46 mapping table that x/net/idna, on
// Unicode 15.0 tables until Go 1.27, does not have yet: U+1E9E maps to ß
// (not "ss"), and U+04C0, U+2183, U+2F868, U+180E and U+206B became mapped
// or ignored instead of disallowed. We refuse those hosts rather than
// guess; docs/urls.md lists them.
var toASCIIMisses = map[string]bool{
	"look\u180eout.net": true,
	"look\u206bout.net": true,
	"\u04c0.com":        true,
	"\U0002f868.com":    true,
	"\u2183.com":        true,
	"\u1e9e.com":        true,
	"\u1e9e.foo.com":    true,
}

func TestConformanceToASCII(t *testing.T) {
	cases := readJSONCases[idnaCase](t, wptDir+"toascii.json")
	agree := 0
	for _, c := range cases {
		diff, _ := idnaRun(c)
		switch {
		case diff == "":
			agree++
			if toASCIIMisses[c.Input] {
				t.Logf("toascii %q now agrees: remove it from toASCIIMisses and docs/urls.md", c.Input)
			}
		case !toASCIIMisses[c.Input]:
			t.Errorf("host of %q: %s", c.Input, diff)
		}
	}
	t.Logf("toascii.json: %d/%d cases agree", agree, len(cases))
}

// TestConformanceIDNA runs UTS 46's own test file as web-platform-tests
// uses it (through the URL parser). The cases we miss are all Unicode 16
// mapping changes (see toASCIIMisses); none of them is a host the
// standard refuses and we accept, which this test asserts.
func TestConformanceIDNA(t *testing.T) {
	cases := readJSONCases[idnaCase](t, wptDir+"IdnaTestV2.json")
	agree := 0
	for _, c := range cases {
		diff, accepted := idnaRun(c)
		if diff == "" {
			agree++
		}
		if accepted {
			t.Errorf("host of %q: %s", c.Input, diff)
		}
	}
	t.Logf("IdnaTestV2.json: %d/%d cases agree", agree, len(cases))
	if agree < 2590 {
		t.Errorf("%d IdnaTestV2 cases agree, want at least 2590 (2596 with x/net/idna's Unicode 15 tables)", agree)
	}
}

// TestConformanceSafeBrowsing runs Google Safe Browsing's URL
// canonicalization examples as a reference. Safe Browsing canonicalizes for
// blocklist lookups, not for fetching, so several of its rules are not ours
// and those cases are only counted and logged:
//
//   - it unescapes repeatedly ("%25%32%35" → "%"), where one level of
//     escaping is meaningful to the server (1-5, 9);
//   - it accepts scheme-less input ("www.google.com", 12, 13, 30), which
//     is not a URL;
//   - it keeps hosts that the URL Standard refuses: percent-encoded '#',
//     controls and spaces (9, 24, 28, 29);
//   - it drops non-default ports (26) and collapses "//" (33), which name
//     other resources.
//
// The cases whose rules we share are asserted: matchSafeBrowsing lists
// them. They include the numeric and percent-encoded IPv4 hosts (7, 10).
func TestConformanceSafeBrowsing(t *testing.T) {
	data, err := os.ReadFile(safeBrowsingPath)
	if err != nil {
		t.Skipf("conformance data %s not available: %v", safeBrowsingPath, err)
	}
	var suite struct {
		Cases []struct {
			ID        int     `json:"id"`
			Input     *string `json:"input"`
			GoLiteral string  `json:"input_go_literal"`
			Want      string  `json:"want"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &suite); err != nil {
		t.Fatalf("%s: %v", safeBrowsingPath, err)
	}
	matchSafeBrowsing := map[int]bool{
		6: true, 7: true, 8: true, 10: true, 11: true, 14: true, 15: true, 16: true, 17: true, 18: true, 19: true,
		20: true, 21: true, 22: true, 23: true, 25: true, 27: true, 31: true, 32: true,
	}
	matched := 0
	for _, c := range suite.Cases {
		in, err := strconv.Unquote(c.GoLiteral)
		if err != nil {
			t.Fatalf("case %d: input_go_literal %s: %v", c.ID, c.GoLiteral, err)
		}
		var got string
		if u, err := Parse(in); err != nil {
			got = "error: " + err.Error()
		} else {
			got = u.String()
		}
		if got == c.Want {
			matched++
		}
		switch {
		case matchSafeBrowsing[c.ID] && got != c.Want:
			t.Errorf("case %d: Parse(%q) = %q, want %q", c.ID, in, got, c.Want)
		case !matchSafeBrowsing[c.ID] && got == c.Want:
			t.Logf("case %d now matches Safe Browsing: add it to matchSafeBrowsing", c.ID)
		case !matchSafeBrowsing[c.ID]:
			t.Logf("case %d differs by design: Parse(%q) = %q, Safe Browsing %q", c.ID, in, got, c.Want)
		}
	}
	t.Logf("Safe Browsing canonicalization: %d/%d cases give the same URL", matched, len(suite.Cases))
}
