package crawl

import (
	"testing"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// FuzzAliasRules: every rule turns a normalized URL into one that
// normalizes to itself, applying it twice changes nothing more, and the
// URL's template never panics.
func FuzzAliasRules(f *testing.F) {
	for _, s := range []string{"http://a/x/index.html?q=1", "http://a/A/B%2Fc/", "http://a/x//?ref=1&ref=2&b", "http://a/", "http://a/Default.ASPX"} {
		f.Add(s)
	}
	rules := []AliasRule{{AliasIndex, "index.html"}, {AliasIndex, "default.aspx"}, {Kind: AliasTrailingSlash}, {Kind: AliasCase}, {AliasParam, "ref"}, {AliasWWW, "www.a"}}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := urlnorm.Parse(raw)
		if err != nil {
			return
		}
		_ = urlTemplate(keyPathQuery(u.String()))
		for _, r := range rules {
			v, changed := r.apply(u)
			if !changed {
				continue
			}
			w, err := urlnorm.Parse(v.String())
			if err != nil {
				t.Fatalf("%v.apply(%q) = %q, which does not parse: %v", r, u, v, err)
			}
			if again, changed := r.apply(w); changed && again.String() != w.String() {
				t.Errorf("%v is not idempotent: %q → %q → %q", r, u, v, again)
			}
		}
	})
}
