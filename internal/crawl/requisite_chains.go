package crawl

import "sync"

// Stylesheet chains. A stylesheet may @import another, which imports a
// third, and so on: Sphinx's classic theme (the Python documentation) is
// page → pydoctheme.css → default.css → classic.css → basic.css →
// file.png, five embed hops. A fixed hop limit either cuts such a page's
// layout or, set high, lets a generative stylesheet (one that imports
// ?v=N+1 forever, or a different sheet per request) lead the crawl as
// deep as it likes, since requisites pass none of the per-host trap
// defences. So a chain is followed to any depth (up to
// Requisites.MaxHops, a backstop) within a budget:
//
//   - Cycles end by themselves: a sheet is fetched once per crawl (the
//     seen-set), so a.css → b.css → a.css stops at the second a.css.
//   - Each stylesheet a page embeds is the root of a chain with a budget
//     of Requisites.ChainBudget requisites, shared by every sheet below
//     it: a sheet's references are charged to its chain, and those past
//     what is left are not followed (counted in Stats.RequisiteHops).
//
// The budget of a queued requisite is held in memory by its key until it
// is fetched (chains, below). After a restart, or when the table was
// full, a requisite's chain is unknown: within the three hops godwit
// always followed it is given a budget of its own, deeper it ends there.
type chains struct {
	mu sync.Mutex
	// budget maps the key of a queued requisite found in a stylesheet
	// to its chain's budget.
	budget map[string]*chainBudget
	limit  int // of entries; past it an arbitrary one is dropped
	size   int // Requisites.ChainBudget
}

// chainBudget is what is left of one chain's budget; chains.mu guards it.
type chainBudget struct{ left int }

// unknownChainHops is how deep a requisite whose chain is not known is
// still read for its own requisites: the fixed limit godwit had before
// chains had budgets.
const unknownChainHops = 3

// maxChainEntries bounds the table of queued requisites' budgets (about
// 100 bytes each). A sheet's references already seen stay in it until
// dropped, since they are never fetched again.
const maxChainEntries = 1 << 16

func newChains(size int) *chains {
	return &chains{budget: map[string]*chainBudget{}, limit: maxChainEntries, size: size}
}

// take returns the budget of the chain requisite t belongs to, or nil
// when its references are not to be followed: the chain is spent, or
// unknown past unknownChainHops. The requisite leaves the table.
func (c *chains) take(t Task) *chainBudget {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.Embed <= 1 {
		// A sheet the page embeds: the root of a chain.
		return &chainBudget{left: c.size}
	}
	b, ok := c.budget[t.Key]
	if ok {
		delete(c.budget, t.Key)
		return b
	}
	if t.Embed <= unknownChainHops {
		return &chainBudget{left: c.size}
	}
	return nil
}

// forget drops requisite t from the table (it was fetched, whatever it
// turned out to be).
func (c *chains) forget(t Task) {
	if t.Embed <= 1 {
		return
	}
	c.mu.Lock()
	delete(c.budget, t.Key)
	c.mu.Unlock()
}

// spend charges n references to b and returns how many of them the
// chain may follow.
func (c *chains) spend(b *chainBudget, n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := min(n, max(b.left, 0))
	b.left -= k
	return k
}

// hold records that the requisites links, found in a sheet of chain b,
// belong to it.
func (c *chains) hold(b *chainBudget, links []Link) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range links {
		if l.Embed == 0 {
			continue
		}
		for len(c.budget) >= c.limit {
			for k := range c.budget {
				delete(c.budget, k)
				break
			}
		}
		c.budget[l.Key] = b
	}
}
