package urlnorm

import (
	"math/rand/v2"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// checkFast checks parseFast against the full parser on raw: when the
// fast path takes raw, Parse must accept it and give the same URL, and
// the string must be that URL's String form. It reports whether the fast
// path took raw.
func checkFast(t *testing.T, raw string) bool {
	t.Helper()
	fu, fs, ok := parseFast(raw)
	if !ok {
		return false
	}
	u, err := parse(nil, raw) // the full parser, not Parse's fast path
	if err != nil {
		t.Fatalf("parseFast(%q) = %q, but the full parser refuses it: %v", raw, fs, err)
	}
	if !reflect.DeepEqual(fu, u) {
		t.Fatalf("parseFast(%q) = %#v, the full parser %#v", raw, fu, u)
	}
	if fs != "" && fs != u.String() {
		t.Fatalf("parseFast(%q) string %q, want %q", raw, fs, u.String())
	}
	if h, want := Host(fu), hostSlow(fu); h != want {
		t.Fatalf("Host(%q) = %q, want %q", fs, h, want)
	}
	if fs == "" && raw == u.String() {
		t.Fatalf("parseFast(%q): no string, but the input is its own String form", raw)
	}
	return true
}

// fastPieces build URLs near the fast path's edges.
var fastPieces = []string{
	"http://", "https://", "HTTP://", "http:/", "http:\\\\", "//",
	"example.com", "EXAMPLE.com", "a.b.c", "h0.fake.test", "xn--bcher-kva.example", "a.xn--p1ai", "XN--x.y",
	"1.2.3.4", "a.1", "a.0x1f", "a.b1", "a-.b", "-a.b", "a--b.c", "a..b", "a.", ".a", "localhost", "a_b.c",
	":80", ":443", ":8080", ":0", ":080", ":65535", ":65536", ":", ":99999", ":1",
	"/", "/a/b", "/a/./b", "/a/../b", "/.", "/..", "/a/.", "/.a", "/a..b", "/%7e", "/a%20b", "/a b", "/é",
	"/a|b", "/a^b", "/a{b}", "/a\\b", "/~x_y-z$&+,;=:@", "/a!b", "/a'b", "/a(b)*",
	"?", "?q=1", "?a=1&b=2", "?q=a b", "?q='x'", "?q=%41", "?q=\"", "?q=<>", "?q=\\", "?q=|^`{}",
	"#", "#top", "#a b", "#é", "#a#b", "?q#f",
	"@", "user@", "\t", "\n", " ", "\x00", "\x7f", "é",
}

// TestParseFastIsParse: on URLs built from pieces near the fast path's
// edges, whatever parseFast takes, it parses as the full parser does; and
// it takes the common shapes of links.
func TestParseFastIsParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	taken := 0
	for range 200_000 {
		var b strings.Builder
		b.WriteString(fastPieces[rng.IntN(2)])
		for range 1 + rng.IntN(6) {
			b.WriteString(fastPieces[rng.IntN(len(fastPieces))])
		}
		if checkFast(t, b.String()) {
			taken++
		}
	}
	if taken < 1000 {
		t.Errorf("the fast path took %d of 200,000 URLs", taken)
	}
	for _, raw := range []string{
		"http://a.example/section/3/page-17.html",
		"https://www.example.com/search?q=godwit&page=2&utm_source=news&lang=en",
		"http://H0.FAKE.TEST/p/24",
		"http://h0.fake.test:80/p/10",
		"http://h0.fake.test:8080/p/10?x#top",
		"http://h0.fake.test",
		"https://b.example?q",
	} {
		if !checkFast(t, raw) {
			t.Errorf("the fast path does not take %q", raw)
		}
	}
	for _, raw := range []string{
		"http://1.2.3.4/", "http://a.0x10/", "http://xn--bcher-kva.example/", "http://a/%7e", "http://a/./b",
		"http://u@a/", "http://a./", "http://a:0080/", " http://a/", "http://a/é",
	} {
		if _, _, ok := parseFast(raw); ok {
			t.Errorf("the fast path takes %q, which it should leave to the full parser", raw)
		}
	}
}

// TestParseString: ParseString is Parse with the URL's String form, on
// both of its paths.
func TestParseString(t *testing.T) {
	for _, raw := range append(fuzzSeeds, "http://a.example/b?c#d", "HTTP://A.EXAMPLE:80", "http://a/%7e", "ftp://x/") {
		u, s, err := ParseString(raw)
		want, werr := Parse(raw)
		if (err != nil) != (werr != nil) {
			t.Fatalf("ParseString(%q) error %v, Parse's %v", raw, err, werr)
		}
		if err != nil {
			continue
		}
		if !reflect.DeepEqual(u, want) || s != want.String() {
			t.Fatalf("ParseString(%q) = %#v, %q; Parse %#v, %q", raw, u, s, want, want.String())
		}
	}
}

// FuzzParseFast: whatever the fast path takes, it parses as the full
// parser does.
func FuzzParseFast(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range []string{"http://a.example/section/3/page-17.html", "https://h.example:8443/a?b=c#d", "http://A.B/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		checkFast(t, raw)
	})
}

// TestHostShortcut: Host's shortcut for plain domains gives what the full
// host parser gives, for hosts near its edges, with and without ports.
func TestHostShortcut(t *testing.T) {
	labels := []string{"a", "b1", "1", "0x1", "xn--bcher-kva", "XN--a", "A", "a-", "-a", "a--b", "", "é", "a_b", "localhost"}
	rng := rand.New(rand.NewPCG(7, 8))
	shortcuts := 0
	for range 50_000 {
		var b strings.Builder
		for i := range 1 + rng.IntN(4) {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(labels[rng.IntN(len(labels))])
		}
		if rng.IntN(4) == 0 {
			b.WriteString([]string{":80", ":443", ":8080", ":"}[rng.IntN(4)])
		}
		for _, scheme := range []string{"http", "https", "HTTP"} {
			u := &url.URL{Scheme: scheme, Host: b.String(), Path: "/"}
			if plainDomain(u.Host) {
				shortcuts++
			}
			if h, want := Host(u), hostSlow(u); h != want {
				t.Fatalf("Host(%q) = %q, want %q", u, h, want)
			}
		}
	}
	if shortcuts < 1000 {
		t.Errorf("%d shortcuts", shortcuts)
	}
}
