package crawl

import (
	"fmt"
	"net/url"
	"strconv"
	"testing"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

func TestURLTemplate(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"http://a.example/sess/17", "/sess/{n}"},
		{"http://a.example/sess/18", "/sess/{n}"},
		{"http://a.example/list?page=3&sort=new", "/list?page&sort"},
		{"http://a.example/search?lang=en&lang=fr&q=x", "/search?lang&q"},
		{"http://a.example/cal/2026/11/", "/cal/{n}/{n}/"},
		{"http://a.example/item/3f2a9c1d7e", "/item/{id}"},
		{"http://a.example/u/123e4567-e89b-12d3-a456-426614174000/x", "/u/{id}/x"},
		{"http://a.example/t/aZ9bY8cX7dW6eV5f", "/t/{id}"},
		{"http://a.example/page-12.html", "/page-{n}.html"},
		{"http://a.example/about/team", ""}, // nothing to generalize: one URL
		{"http://a.example/", ""},
		{"http://a.example/docs/a/b/a/b/", ""},
	} {
		if got := urlTemplate(keyPathQuery(tc.key)); got != tc.want {
			t.Errorf("urlTemplate(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

// crawlPage runs discover for the links of a fetched page at depth and
// settles the page's yield as the frontier would: new is the set of keys
// already seen, updated.
func crawlPage(c *Crawler, seen map[string]bool, page string, depth int, links ...string) []string {
	u, _ := urlnorm.Parse(page)
	task := Task{Link: Link{URL: page, Key: c.canon.Key(u), Host: hostOf(page), Depth: depth}}
	cands := make([]foundURL, len(links))
	for i, l := range links {
		cands[i] = foundURL{raw: "http://" + task.Host + l}
	}
	admitted := c.discover(task, cands)
	tmpl := c.pageTemplate(task)
	n, outside := 0, 0
	var urls []string
	for _, l := range admitted {
		urls = append(urls, l.URL)
		in := l.Host == task.Host && urlTemplate(keyPathQuery(l.Key)) == tmpl
		if !in {
			outside++
		}
		if seen[l.Key] {
			continue
		}
		seen[l.Key] = true
		if !in {
			n++
		}
	}
	c.traps.yielded(task.Host, tmpl, depth, n, outside > 0)
	return urls
}

// TestTemplateDefence: a chain of pages that only link further pages of
// their own template is cut once TemplatePages of them yielded nothing
// new elsewhere and the chain is TemplateHops past its entry; pagination
// whose pages list new articles is followed to its end; links into an
// exhausted template from other pages are still admitted.
func TestTemplateDefence(t *testing.T) {
	c := newTestCrawler(t, Config{}, "http://a.example/")
	seen := map[string]bool{}
	const home = "http://a.example/"
	crawlPage(c, seen, home, 0, "/sess/1", "/list?page=1")
	// The session chain: /sess/N links N+1 and N+2, nothing else new.
	fetched, refusedAt := 0, 0
	for n := 1; n < 100 && refusedAt == 0; n++ {
		fetched++
		depth := 1 + n/2
		got := crawlPage(c, seen, "http://a.example/sess/"+strconv.Itoa(n), depth,
			"/sess/"+strconv.Itoa(n+1), "/sess/"+strconv.Itoa(n+2), "/")
		if len(got) < 3 {
			refusedAt = n
		}
	}
	if refusedAt == 0 || fetched < 10 || fetched > 15 {
		t.Errorf("session chain: first refusal after %d pages, want one after 10 to 15", fetched)
	}
	if c.Stats().Traps.Template == 0 {
		t.Error("no template-exhausted refusal counted")
	}
	// Another page may still link into the exhausted template.
	if got := crawlPage(c, seen, home, 0, "/sess/500"); len(got) != 1 {
		t.Errorf("a link into the exhausted template from the home page: admitted %v", got)
	}
	// Pagination: each page lists two new articles and the next page.
	for n := 1; n <= 300; n++ {
		got := crawlPage(c, seen, "http://a.example/list?page="+strconv.Itoa(n), n,
			"/news/"+strconv.Itoa(2*n), "/news/"+strconv.Itoa(2*n+1), "/list?page="+strconv.Itoa(n+1))
		if len(got) != 3 {
			t.Fatalf("pagination page %d: admitted %v, want all 3", n, got)
		}
	}
}

// TestTemplateClosedChain: a chain whose pages link nothing but further
// pages of their own template (a session chain: /sess/N links N+1 and
// N+2 and nothing else) is exhausted after half the window, so it is cut
// at the hop limit: at most 9 pages, where the same chain with a link
// home on every page (TestTemplateDefence) costs 10 to 15. One page of
// the template with a link outside it restores the full window.
func TestTemplateClosedChain(t *testing.T) {
	chain := func(homeOn func(n int) bool) (fetched int) {
		c := newTestCrawler(t, Config{}, "http://a.example/")
		seen := map[string]bool{}
		crawlPage(c, seen, "http://a.example/", 0, "/sess/1")
		// Breadth first, as the frontier serves them: /sess/N is at
		// depth 1 + N/2 from the home page.
		queue := []int{1}
		queued := map[int]bool{1: true}
		for len(queue) > 0 && fetched < 100 {
			n := queue[0]
			queue = queue[1:]
			fetched++
			links := []string{"/sess/" + strconv.Itoa(n+1), "/sess/" + strconv.Itoa(n+2)}
			if homeOn(n) {
				links = append(links, "/")
			}
			for _, u := range crawlPage(c, seen, "http://a.example/sess/"+strconv.Itoa(n), 1+n/2, links...) {
				var m int
				if _, err := fmt.Sscanf(u, "http://a.example/sess/%d", &m); err == nil && !queued[m] {
					queued[m] = true
					queue = append(queue, m)
				}
			}
		}
		return fetched
	}
	if n := chain(func(int) bool { return false }); n > 9 {
		t.Errorf("closed chain: %d pages fetched, want at most 9", n)
	}
	if n := chain(func(int) bool { return true }); n < 10 || n > 15 {
		t.Errorf("chain linking home: %d pages fetched, want 10 to 15", n)
	}
	if n := chain(func(n int) bool { return n == 2 }); n < 10 {
		t.Errorf("chain with one page linking home: %d pages fetched, want the full window (10 or more)", n)
	}
}

// TestTemplateShallowTreeKept: a site whose pages share one template
// and yield nothing new elsewhere (a tree of /p/{n}, late in its crawl)
// is not cut while it stays within TemplateHops of its entry.
func TestTemplateShallowTreeKept(t *testing.T) {
	tree := func(hops int) (refused int) {
		c := newTestCrawler(t, Config{Traps: Traps{TemplateHops: hops}}, "http://a.example/")
		seen := map[string]bool{}
		for n := 1; n < 200; n++ {
			depth := 1
			for m := n; m > 2; m /= 8 {
				depth++
			}
			var links []string
			for k := 8*n + 1; k <= 8*n+8; k++ {
				links = append(links, "/p/"+strconv.Itoa(k))
			}
			refused += 8 - len(crawlPage(c, seen, "http://a.example/p/"+strconv.Itoa(n), depth, links...))
		}
		return refused
	}
	if n := tree(0); n != 0 {
		t.Errorf("%d links of a shallow tree refused", n)
	}
	// Without the hop condition the same tree would be cut.
	if n := tree(-1); n == 0 {
		t.Error("with TemplateHops -1 nothing refused: the tree does not test the condition")
	}
}

func TestAliasRuleApply(t *testing.T) {
	for _, tc := range []struct {
		rule     AliasRule
		in, want string
	}{
		{AliasRule{AliasIndex, "index.html"}, "http://a/x/index.html?q=1", "http://a/x/?q=1"},
		{AliasRule{AliasIndex, "index.html"}, "http://a/index.html", "http://a/"},
		{AliasRule{AliasIndex, "default.aspx"}, "http://a/x/Default.aspx", "http://a/x/"},
		{AliasRule{AliasIndex, "index.html"}, "http://a/x/index.htm", ""},
		{AliasRule{Kind: AliasTrailingSlash}, "http://a/x/", "http://a/x"},
		{AliasRule{Kind: AliasTrailingSlash}, "http://a/", ""},
		{AliasRule{Kind: AliasCase}, "http://a/Docs/A%2Fb", "http://a/docs/a%2Fb"},
		{AliasRule{Kind: AliasCase}, "http://a/docs", ""},
		{AliasRule{AliasParam, "ref"}, "http://a/x?a=1&ref=nav&b=2", "http://a/x?a=1&b=2"},
		{AliasRule{AliasParam, "ref"}, "http://a/x?ref=nav", "http://a/x"},
		{AliasRule{AliasParam, "ref"}, "http://a/x?refs=1", ""},
		{AliasRule{AliasWWW, "example.com"}, "http://www.example.com/x?q=1", "http://example.com/x?q=1"},
		{AliasRule{AliasWWW, "www.example.com:8080"}, "http://example.com:8080/", "http://www.example.com:8080/"},
		{AliasRule{AliasWWW, "example.com"}, "http://example.com/x", ""},
	} {
		u, err := urlnorm.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		v, changed := tc.rule.apply(u)
		switch {
		case tc.want == "" && changed:
			t.Errorf("%v.apply(%q) = %q, want unchanged", tc.rule, tc.in, v)
		case tc.want != "" && (!changed || v.String() != tc.want):
			t.Errorf("%v.apply(%q) = %q, %v, want %q", tc.rule, tc.in, v, changed, tc.want)
		}
		if u.String() != mustParse(t, tc.in).String() {
			t.Errorf("apply changed its argument: %q", u)
		}
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := urlnorm.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// fetch plays a fetch of raw on its host's lease with payload content.
func fetchAlias(c *Crawler, raw string, content uint64) Outcome {
	u, _ := urlnorm.Parse(raw)
	task := Task{Link: Link{URL: raw, Key: c.canon.Key(u), Host: urlnorm.Host(u)}}
	c.aliases.load(Lease{Task: task})
	out := Outcome{Requested: true, Status: 200, Content: content}
	c.aliases.learn(task, &out)
	c.aliases.persist(task.Host, &out)
	return out
}

// TestAliasLearning: identical payloads adopt the index rule once it is
// confirmed Confirmations times in all and at least once on the host; a
// host where the pair differs never adopts it; a later counter-example
// retracts it; the adopted rule rewrites the host's links.
func TestAliasLearning(t *testing.T) {
	c := newTestCrawler(t, Config{}, "http://a.example/", "http://b.example/", "http://d.example/")
	rewritten := func(raw string) string {
		got := found(c, "http://a.example/p", raw)
		if len(got) != 1 {
			return ""
		}
		return got[0]
	}
	fetchAlias(c, "http://a.example/", 1)
	out := fetchAlias(c, "http://a.example/index.html", 1)
	if out.Aliases == nil || len(out.Aliases.Rules) != 1 || out.Aliases.Rules[0].Confirmations != 1 || out.Aliases.Rules[0].Adopted {
		t.Fatalf("after one confirmation, state %+v", out.Aliases)
	}
	if got := rewritten("http://a.example/s/index.html"); got != "http://a.example/s/index.html" {
		t.Errorf("rewritten before adoption: %q", got)
	}
	fetchAlias(c, "http://a.example/s/", 2)
	fetchAlias(c, "http://a.example/s/index.html", 2)
	// On another host: one confirmation there, pooled with a.example's two.
	fetchAlias(c, "http://b.example/x/index.html", 3)
	out = fetchAlias(c, "http://b.example/x/", 3)
	if out.Aliases == nil || out.Aliases.Adopted() == nil {
		t.Errorf("b.example: rule not adopted on pooled evidence: %+v", out.Aliases)
	}
	if got := rewritten("http://a.example/t/index.html"); got != "http://a.example/t/" {
		t.Errorf("a.example: %q not rewritten to /t/", got)
	}
	// d.example: its index.html differs; it never adopts the rule.
	fetchAlias(c, "http://d.example/", 4)
	out = fetchAlias(c, "http://d.example/index.html", 5)
	if out.Aliases == nil || !out.Aliases.Rules[0].Contradicted {
		t.Errorf("d.example: not contradicted: %+v", out.Aliases)
	}
	fetchAlias(c, "http://d.example/y/", 6)
	out = fetchAlias(c, "http://d.example/y/index.html", 6)
	if out.Aliases != nil && len(out.Aliases.Adopted()) != 0 {
		t.Errorf("d.example adopted a rule it contradicted: %+v", out.Aliases)
	}
	// A counter-example on a.example retracts its rule.
	fetchAlias(c, "http://a.example/u/", 7)
	out = fetchAlias(c, "http://a.example/u/index.html", 8)
	if out.Aliases == nil || len(out.Aliases.Adopted()) != 0 {
		t.Errorf("a.example: rule not retracted: %+v", out.Aliases)
	}
	if got := rewritten("http://a.example/v/index.html"); got != "http://a.example/v/index.html" {
		t.Errorf("rewritten after retraction: %q", got)
	}
	if s := c.Stats().Aliases; s.Adopted < 2 || s.Retracted != 1 || s.Rewritten == 0 {
		t.Errorf("stats %+v", s)
	}
}

// TestAliasesOff: with learning off nothing is learnt or rewritten.
func TestAliasesOff(t *testing.T) {
	c := newTestCrawler(t, Config{Aliases: Aliases{Off: true}}, "http://a.example/")
	for i, raw := range []string{"http://a.example/", "http://a.example/index.html", "http://a.example/s/", "http://a.example/s/index.html"} {
		if out := fetchAlias(c, raw, uint64(1+i/2)); out.Aliases != nil {
			t.Fatalf("learnt with learning off: %+v", out.Aliases)
		}
	}
}

// TestAliasVerification: of the distinct URLs an adopted rule rewrites,
// every VerifyEvery-th is kept as it is, and always the same one.
func TestAliasVerification(t *testing.T) {
	c := newTestCrawler(t, Config{Aliases: Aliases{Confirmations: 1, VerifyEvery: 5}}, "http://a.example/")
	fetchAlias(c, "http://a.example/", 1)
	fetchAlias(c, "http://a.example/index.html", 1)
	kept := 0
	for i := range 20 {
		raw := "http://a.example/s" + strconv.Itoa(i) + "/index.html"
		got := found(c, "http://a.example/p", raw)
		if len(got) == 1 && got[0] == raw {
			kept++
			if again := found(c, "http://a.example/q", raw); len(again) != 1 || again[0] != raw {
				t.Errorf("%s kept once, rewritten the next time: %v", raw, again)
			}
		}
	}
	if kept != 4 {
		t.Errorf("%d of 20 distinct aliases kept to verify, want 4", kept)
	}
}

// TestAliasRulesComposeInOrder: rules adopted in any order rewrite every
// spelling to one form (index files first, the trailing slash last).
func TestAliasRulesComposeInOrder(t *testing.T) {
	c := newTestCrawler(t, Config{Aliases: Aliases{Confirmations: 1}}, "http://a.example/")
	fetchAlias(c, "http://a.example/y/", 1)
	fetchAlias(c, "http://a.example/y", 1) // trailing slash first
	fetchAlias(c, "http://a.example/x/", 2)
	fetchAlias(c, "http://a.example/x/index.html", 2)
	for _, raw := range []string{"http://a.example/z/index.html", "http://a.example/z/", "http://a.example/z"} {
		if got := found(c, "http://a.example/p", raw); len(got) != 1 || got[0] != "http://a.example/z" {
			t.Errorf("%s rewritten to %v, want http://a.example/z", raw, got)
		}
	}
}
