package crawl

import "testing"

// TestChains: a sheet a page embeds roots a chain; what its sheets find
// shares the chain's budget at any depth; a requisite whose chain is
// unknown (after a restart) gets a budget of its own within three hops
// and none deeper; the table stays bounded.
func TestChains(t *testing.T) {
	c := newChains(10)
	task := func(key string, embed int) Task { return Task{Link: Link{Key: key, Embed: embed}} }

	root := c.take(task("a.css", 1))
	if root == nil || c.spend(root, 4) != 4 {
		t.Fatalf("a page's sheet: budget %+v, want 10 with 4 spent", root)
	}
	c.hold(root, []Link{{Key: "b.css", Embed: 2}, {Key: "x.png", Embed: 2}})
	b := c.take(task("b.css", 2))
	if b != root {
		t.Fatalf("an imported sheet's chain = %p, want its importer's %p", b, root)
	}
	if got := c.spend(b, 8); got != 6 {
		t.Errorf("spend 8 of the 6 left = %d, want 6", got)
	}
	if got := c.spend(b, 1); got != 0 {
		t.Errorf("spend of a spent chain = %d, want 0", got)
	}
	c.forget(task("x.png", 2))
	if len(c.budget) != 0 {
		t.Errorf("table after every requisite was fetched: %v, want empty", c.budget)
	}

	// Unknown chains: a budget of its own within three hops, none deeper.
	if b := c.take(task("lost.css", 3)); b == nil || b.left != 10 {
		t.Errorf("an unknown sheet 3 hops deep: %+v, want a budget of 10", b)
	}
	if b := c.take(task("lost.css", 4)); b != nil {
		t.Errorf("an unknown sheet 4 hops deep: %+v, want none", b)
	}

	// Bounded: past the limit, entries are dropped.
	c.limit = 3
	c.hold(root, []Link{{Key: "1", Embed: 3}, {Key: "2", Embed: 3}, {Key: "3", Embed: 3}, {Key: "4", Embed: 3}, {Key: "p", Embed: 0}})
	if len(c.budget) != 3 {
		t.Errorf("table of %d entries, want its limit of 3", len(c.budget))
	}
}
