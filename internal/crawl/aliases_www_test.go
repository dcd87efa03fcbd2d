package crawl

import (
	"testing"

	"github.com/godwit-crawler/godwit/internal/shard"
)

func TestWWWPartner(t *testing.T) {
	for _, tc := range []struct{ host, want string }{
		{"example.com", "www.example.com"},
		{"www.example.com", "example.com"},
		{"example.com:8080", "www.example.com:8080"},
		{"www.example.co.uk", "example.co.uk"},
		{"www.www.example.com", "www.example.com"},
		{"www.com", ""},
		{"localhost", ""},
		{"192.0.2.1", ""},
		{"[2001:db8::1]:80", ""},
	} {
		got, ok := wwwPartner(tc.host)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("wwwPartner(%q) = %q, %v, want %q", tc.host, got, ok, tc.want)
		}
		// The two names of a pair share a shard, so one process (one
		// node of a cluster) crawls both and can compare them.
		if ok && shard.Site(got) != shard.Site(tc.host) {
			t.Errorf("shard.Site(%q) = %q, shard.Site(%q) = %q: a pair split over shards", tc.host, shard.Site(tc.host), got, shard.Site(got))
		}
	}
}

// TestWWWAliasLearning: a page answering the same under both names
// confirms the pair, kept by the name whose first page came second; the
// same home page adopts it, and the alias name's links move to the
// canonical one, spelled by its rules; a pair whose pages differ never
// adopts it; a rewrite that would leave the scope is not made.
func TestWWWAliasLearning(t *testing.T) {
	c := newTestCrawler(t, Config{}, "http://a.example/", "http://b.example/")
	rewritten := func(raw string) string {
		got := found(c, "http://a.example/p", raw)
		if len(got) != 1 {
			return ""
		}
		return got[0]
	}
	fetchAlias(c, "http://a.example/", 1)
	// The alias name reaches /s first; the pair is compared when the
	// canonical name fetches it, and the rule goes to the alias name.
	if out := fetchAlias(c, "http://www.a.example/s", 2); out.Aliases != nil {
		t.Fatalf("www.a.example learnt with nothing to compare: %+v", out.Aliases)
	}
	if out := fetchAlias(c, "http://a.example/s", 2); out.Aliases != nil {
		t.Errorf("the canonical name keeps a rule: %+v", out.Aliases)
	}
	if got := rewritten("http://www.a.example/t"); got != "http://www.a.example/t" {
		t.Errorf("rewritten on one confirmation of another page than home: %q", got)
	}
	out := fetchAlias(c, "http://www.a.example/", 1)
	if out.Aliases == nil || len(out.Aliases.Rules) != 1 {
		t.Fatalf("www.a.example: state %+v", out.Aliases)
	}
	if e := out.Aliases.Rules[0]; e.Rule != (AliasRule{AliasWWW, "a.example"}) || e.Confirmations != 2 || !e.Adopted {
		t.Errorf("www.a.example: rule %+v, want same site as a.example, 2 confirmations, adopted", e)
	}
	if got := rewritten("http://www.a.example/t"); got != "http://a.example/t" {
		t.Errorf("www.a.example/t rewritten to %q, want http://a.example/t", got)
	}
	if got := rewritten("http://a.example/t"); got != "http://a.example/t" {
		t.Errorf("the canonical name rewritten: %q", got)
	}
	// The canonical name's own rules spell the moved URL.
	fetchAlias(c, "http://a.example/u/", 3)
	fetchAlias(c, "http://a.example/u/index.html", 3)
	fetchAlias(c, "http://a.example/v/", 4)
	fetchAlias(c, "http://a.example/v/index.html", 4)
	fetchAlias(c, "http://a.example/w/", 5)
	fetchAlias(c, "http://a.example/w/index.html", 5)
	if got := rewritten("http://www.a.example/x/index.html"); got != "http://a.example/x/" {
		t.Errorf("www.a.example/x/index.html rewritten to %q, want http://a.example/x/", got)
	}

	// b.example: its www name is another site; it never adopts the rule.
	fetchAlias(c, "http://b.example/", 10)
	out = fetchAlias(c, "http://www.b.example/", 11)
	if out.Aliases == nil || !out.Aliases.Rules[0].Contradicted {
		t.Errorf("www.b.example: not contradicted: %+v", out.Aliases)
	}
	fetchAlias(c, "http://b.example/s", 12)
	fetchAlias(c, "http://www.b.example/s", 12)
	if got := rewritten("http://www.b.example/t"); got != "http://www.b.example/t" {
		t.Errorf("www.b.example/t rewritten to %q", got)
	}
	if s := c.Stats().Aliases; s.Adopted < 2 || s.Retracted != 0 {
		t.Errorf("stats %+v", s)
	}

	// A retraction: a counter-example on an adopted pair.
	fetchAlias(c, "http://a.example/y", 20)
	fetchAlias(c, "http://www.a.example/y", 21)
	if got := rewritten("http://www.a.example/z"); got != "http://www.a.example/z" {
		t.Errorf("rewritten after a counter-example: %q", got)
	}
}

// TestWWWAliasScope: with scope host and only the www name seeded, a
// learnt pair does not move links to the bare name, out of scope.
func TestWWWAliasScope(t *testing.T) {
	c := newTestCrawler(t, Config{Scope: ScopeHost}, "http://www.d.example/")
	fetchAlias(c, "http://d.example/", 1)
	fetchAlias(c, "http://www.d.example/", 1)
	if got := found(c, "http://www.d.example/p", "http://www.d.example/z"); len(got) != 1 || got[0] != "http://www.d.example/z" {
		t.Errorf("found %v, want http://www.d.example/z as it is", got)
	}
}
