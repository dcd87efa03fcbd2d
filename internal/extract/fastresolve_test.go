package extract

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// checkFastResolve checks the fast path against resolve on ref and the
// base page: when the fast path takes ref, resolve must accept it and
// give the same string. It reports whether the fast path took ref.
func checkFastResolve(t *testing.T, page *url.URL, ref string) bool {
	t.Helper()
	got, ok := newFastBase(page).resolve(ref)
	if !ok {
		return false
	}
	u, ok := resolve(page, ref, newQueryEncoder(charset{name: "utf-8"}))
	if !ok {
		t.Fatalf("against %q, the fast path resolves %q to %q, resolve refuses it", page, ref, got)
	}
	if want := u.String(); got != want {
		t.Fatalf("against %q, the fast path resolves %q to %q, resolve to %q", page, ref, got, want)
	}
	return true
}

var (
	fastBases = []string{
		"http://h0.fake.test/p/7", "https://a.example/", "http://a.example", "http://A.Example:8080/d/e/",
		"http://a.example/a/b/c?q=1#f", "http://a.example/a;b/c=d/", "http://a.example/%7E/x", "HTTP://a.example/x",
		"http://u@a.example/x", "http://[::1]/x", "http://a.example/a b/x", "http://a.example/./a/../b",
	}
	fastRefPieces = []string{
		"http://", "https://", "HTTP://", "//", "http:", "a.example", "H0.FAKE.TEST", "h:80", "h:", "h:x", "[::1]", "u@h",
		"/", "p", "p/15", "16", "./", "../", ".", "..", "...", "a..b", ".a", "x:y", "a/b:c", ";x", "=", "@", "~", "$&+,",
		"?", "?q=1", "?a=1&b=2", "??", "?q=a b", "?q='x'", "?%41", "?q=\\", "?q=é", "?a?b", "?:@/",
		"#", "#top", "#a#b", "#a?b", "#é", "#a b", "%", "%zz", "%41", "\\", " ", "\t", "\n", "é", "!", "(", "*", "'", "|", "^",
	}
)

// TestFastResolveIsResolve: on references built from pieces near the fast
// path's edges, against bases of several shapes, whatever the fast path
// takes it resolves as resolve and url.URL.String do; and it takes the
// shapes of links pages write.
func TestFastResolveIsResolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	taken := 0
	for _, base := range fastBases {
		page, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		for range 30_000 {
			var b strings.Builder
			for range 1 + rng.IntN(5) {
				b.WriteString(fastRefPieces[rng.IntN(len(fastRefPieces))])
			}
			if checkFastResolve(t, page, b.String()) {
				taken++
			}
		}
	}
	if taken < 10_000 {
		t.Errorf("the fast path took %d references", taken)
	}
	page, _ := url.Parse("http://h0.fake.test/p/7")
	for _, ref := range []string{"/p/15", "16", "http://h0.fake.test/p/19", "../p/10", "http://H0.FAKE.TEST/p/24",
		"//h0.fake.test/r/4", "./13", "38?utm_source=news&utm_medium=email", "24#top", "http://h0.fake.test:80/p/10", "?page=2"} {
		if !checkFastResolve(t, page, ref) {
			t.Errorf("the fast path does not take %q", ref)
		}
	}
}

// FuzzFastResolve: whatever the fast path takes, it resolves as resolve
// does.
func FuzzFastResolve(f *testing.F) {
	f.Add("http://h0.fake.test/p/7", "../p/10?x=1#top")
	f.Add("https://a.example/d/", "//b.example:8080/x/./y/..")
	f.Add("http://a.example", "?q")
	f.Fuzz(func(t *testing.T, base, ref string) {
		page, err := url.Parse(base)
		if err != nil || !page.IsAbs() || page.Host == "" {
			return
		}
		checkFastResolve(t, page, ref)
	})
}
