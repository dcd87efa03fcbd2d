package crawl

import (
	"testing"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// TestRequisiteChain: a requisite keeps its page's depth and takes an
// embed hop, so a page at --max-depth gets its requisites; it may be on
// any host unless excluded (or, with PageScope, the pages' scope);
// embed hops are bounded; a redirect keeps the hops; and the per-host
// page budget does not refuse it.
func TestRequisiteChain(t *testing.T) {
	run := func(cfg Config, page string, depth, embed int, cands ...foundURL) []Link {
		t.Helper()
		cfg.Default()
		cfg.MaxDepth = 2
		cfg.Scope = ScopeHost
		cfg.Traps.HostPages = 1
		c := newTestCrawler(t, cfg, "http://a.example/")
		u, _ := urlnorm.Parse(page)
		task := Task{Link: Link{URL: page, Key: c.canon.Key(u), Host: urlnorm.Host(u), Depth: depth, Embed: embed}}
		// The host has spent its page budget: pages are refused, requisites not.
		c.traps.fetched("a.example")
		c.traps.fetched("a.example")
		return c.discover(task, cands)
	}
	links := run(Config{}, "http://a.example/p", 2, 0,
		foundURL{raw: "http://a.example/next"},                // a link: too deep
		foundURL{raw: "http://a.example/s.css", embed: true},  // same host
		foundURL{raw: "http://cdn.example/f.js", embed: true}, // another host
	)
	if len(links) != 2 || links[0].URL != "http://a.example/s.css" || links[1].URL != "http://cdn.example/f.js" {
		t.Fatalf("links of a page at the depth limit = %+v, want its two requisites only", links)
	}
	for _, l := range links {
		if l.Depth != 2 || l.Embed != 1 || l.Via != "http://a.example/p" {
			t.Errorf("requisite %+v: want depth 2 (the page's), embed 1, via the page", l)
		}
	}

	// Within the depth limit, the spent page budget refuses the link, not
	// the requisite.
	if links := run(Config{}, "http://a.example/p", 1, 0, foundURL{raw: "http://a.example/other"},
		foundURL{raw: "http://a.example/i.png", embed: true}); len(links) != 1 || links[0].Embed != 1 {
		t.Errorf("on a host past its page budget: %+v, want the requisite only", links)
	}

	// Exclude rules apply; PageScope holds requisites to the pages' scope.
	excl := Config{Exclude: ScopeRules{Prefixes: []string{"http://cdn.example/"}}}
	if links := run(excl, "http://a.example/p", 1, 0, foundURL{raw: "http://cdn.example/f.js", embed: true}); len(links) != 0 {
		t.Errorf("excluded requisite admitted: %+v", links)
	}
	if links := run(Config{Requisites: Requisites{PageScope: true}}, "http://a.example/p", 1, 0,
		foundURL{raw: "http://cdn.example/f.js", embed: true}, foundURL{raw: "http://a.example/i.png", embed: true}); len(links) != 1 || links[0].Host != "a.example" {
		t.Errorf("with PageScope: %+v, want the same-host requisite only", links)
	}

	// Past MaxHops (a backstop; chains' budgets bound them first), a
	// stylesheet imports no further.
	if links := run(Config{Requisites: Requisites{MaxHops: 3}}, "http://a.example/c.css", 1, 3, foundURL{raw: "http://a.example/d.css", embed: true}); len(links) != 0 {
		t.Errorf("requisite past MaxHops admitted: %+v", links)
	}
	if links := run(Config{}, "http://a.example/c.css", 1, 2, foundURL{raw: "http://a.example/font.woff", embed: true}); len(links) != 1 || links[0].Embed != 3 {
		t.Errorf("third embed hop = %+v, want admitted with Embed 3", links)
	}
	// A requisite's redirect target is the same requisite.
	if links := run(Config{}, "http://cdn.example/old.png", 1, 1, foundURL{raw: "http://cdn.example/new.png", redirect: true}); len(links) != 1 || links[0].Embed != 1 || links[0].Hops != 1 {
		t.Errorf("redirect of a requisite = %+v, want Embed 1, Hops 1", links)
	}
}
