package freshness

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDistribute(t *testing.T) {
	cases := []struct {
		cash        float64
		outlinks    int
		spent, each float64
	}{
		{0, 0, 1, 0},
		{1, 0, 2, 0},
		{1, -1, 2, 0},
		{1, 1, 2, 1},
		{2, 2, 3, 1},
		{0, 4, 1, 0.2},
	}
	for _, c := range cases {
		spent, each := Distribute(c.cash, c.outlinks)
		if spent != c.spent || math.Abs(each-c.each) > 1e-15 {
			t.Errorf("Distribute(%g, %d) = %g, %g; want %g, %g", c.cash, c.outlinks, spent, each, c.spent, c.each)
		}
		if c.outlinks > 0 && each*float64(c.outlinks) >= spent {
			t.Errorf("Distribute(%g, %d): outlinks get %g of %g, want a share left for the virtual page", c.cash, c.outlinks, each*float64(c.outlinks), spent)
		}
	}
}

func TestImportance(t *testing.T) {
	cases := []struct {
		history, cash, total float64
		pages                int
		want                 float64
	}{
		{0, 0, 0, 0, 1},
		{1, 1, 0, 10, 1},
		{1, 1, 20, 10, 1},
		{3, 1, 20, 10, 2},
		{0, 0.1, 20, 10, 0.05},
	}
	for _, c := range cases {
		if got := Importance(c.history, c.cash, c.total, c.pages); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Importance(%g, %g, %g, %d) = %g, want %g", c.history, c.cash, c.total, c.pages, got, c.want)
		}
	}
}

func TestBand(t *testing.T) {
	cases := []struct {
		importance float64
		depth      int
		priority   float64
		has        bool
		want       uint8
	}{
		{1, 0, 0, false, 7},
		{1, 0, 0.5, true, 7},
		{1, 0, 1, true, 6},
		{1, 0, 0.25, true, 8},
		{1, 0, 0, true, 12}, // priority floored at 1/64: 2/64 is −5 doublings
		{2, 0, 0, false, 6},
		{0.5, 0, 0, false, 8},
		{128, 0, 0, false, 0},
		{1e9, 0, 0, false, 0},
		{math.Inf(1), 0, 0, false, 0},
		{1.0 / 256, 0, 0, false, 15},
		{1e-9, 0, 0, false, 15},
		{0, 0, 0, false, 15},
		{-1, 0, 0, false, 15},
		{math.NaN(), 0, 0, false, 15},
		{1, 4, 0, false, 8},
		{1, 8, 0, false, 9},
		{1, -3, 0, false, 7},
		{1, 1000, 0, false, 15},
	}
	for _, c := range cases {
		if got := Band(c.importance, c.depth, c.priority, c.has); got != c.want {
			t.Errorf("Band(%g, %d, %g, %v) = %d, want %d", c.importance, c.depth, c.priority, c.has, got, c.want)
		}
	}
	// Monotone: more importance never a later band.
	for d := range 10 {
		prev := uint8(0)
		for imp := 1e6; imp > 1e-6; imp /= 1.3 {
			b := Band(imp, d, 0, false)
			if b < prev {
				t.Fatalf("Band(%g, %d) = %d < %d for a larger importance", imp, d, b, prev)
			}
			prev = b
		}
	}
}

// graph is a directed link graph: out[v] lists v's outlinks.
type graph struct {
	out [][]int
	in  []int // in-degree
}

// skewedGraph builds a graph of n pages with a skewed in-degree whose
// popularity does not follow depth. The pages form a tree of fanout fan
// from page 0 (page v is linked from page (v−1)/fan, so breadth-first
// order is page number order and every page is reachable); and, in an
// arrival order that is a random permutation, each page links to m pages
// arrived before it, chosen with probability proportional to their
// in-degree + 1 (preferential attachment: a power-law in-degree).
func skewedGraph(n, m, fan int, rng *rand.Rand) graph {
	g := graph{out: make([][]int, n), in: make([]int, n)}
	var ends []int // page v appears in[v]+1 times once arrived
	link := func(u, v int) {
		if u == v {
			return
		}
		for _, w := range g.out[u] {
			if w == v {
				return
			}
		}
		g.out[u] = append(g.out[u], v)
		g.in[v]++
		ends = append(ends, v)
	}
	for v := 1; v < n; v++ {
		link((v-1)/fan, v)
	}
	ends = ends[:0]
	for i, v := range rng.Perm(n) {
		if i > 0 {
			for range m {
				link(v, ends[rng.IntN(len(ends))])
			}
		}
		ends = append(ends, v)
	}
	return g
}

// breadthFirst returns the pages in breadth-first fetch order from page 0.
func breadthFirst(g graph) []int {
	seen := make([]bool, len(g.out))
	order, queue := []int{}, []int{0}
	seen[0] = true
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		order = append(order, v)
		for _, w := range g.out[v] {
			if !seen[w] {
				seen[w] = true
				queue = append(queue, w)
			}
		}
	}
	return order
}

// greatestCash returns the first k pages fetched by a crawl from page 0
// that always fetches the known, unfetched page holding the most cash
// (ties: first discovered), spreading each fetched page's cash with
// Distribute. Fetched pages keep receiving cash, as in the frontier.
func greatestCash(g graph, k int) []int {
	n := len(g.out)
	cash := make([]float64, n)
	known := make([]int, 0, n) // in discovery order
	isKnown, fetched := make([]bool, n), make([]bool, n)
	cash[0], isKnown[0] = 1, true
	known = append(known, 0)
	var order []int
	for len(order) < k {
		best := -1
		for _, v := range known {
			if !fetched[v] && (best < 0 || cash[v] > cash[best]) {
				best = v
			}
		}
		if best < 0 {
			break
		}
		fetched[best] = true
		order = append(order, best)
		_, each := Distribute(cash[best], len(g.out[best]))
		cash[best] = 0
		for _, w := range g.out[best] {
			cash[w] += each
			if !isKnown[w] {
				isKnown[w] = true
				known = append(known, w)
			}
		}
	}
	return order
}

// banded returns the first k pages fetched by a crawl from page 0 that
// keeps each known page in a priority band (Band of its Importance and
// depth, computed when its cash last changed, as a frontier would) and
// fetches first in, first out within the lowest band.
func banded(g graph, k int) []int {
	n := len(g.out)
	cash, history := make([]float64, n), make([]float64, n)
	depth := make([]int, n)
	band := make([]uint8, n)
	seq := make([]int, n) // order of the latest (re)queueing
	isKnown, fetched := make([]bool, n), make([]bool, n)
	var known []int
	total, next := 1.0, 0
	cash[0], isKnown[0] = 1, true
	known = append(known, 0)
	requeue := func(v int) {
		band[v] = Band(Importance(history[v], cash[v], total, len(known)), depth[v], 0, false)
		seq[v] = next
		next++
	}
	requeue(0)
	var order []int
	for len(order) < k {
		best := -1
		for _, v := range known {
			if !fetched[v] && (best < 0 || band[v] < band[best] || band[v] == band[best] && seq[v] < seq[best]) {
				best = v
			}
		}
		if best < 0 {
			break
		}
		fetched[best] = true
		order = append(order, best)
		spent, each := Distribute(cash[best], len(g.out[best]))
		history[best] += spent
		cash[best] = 0
		total += Grant + each*float64(len(g.out[best]))
		for _, w := range g.out[best] {
			cash[w] += each
			if !isKnown[w] {
				isKnown[w] = true
				depth[w] = depth[best] + 1
				known = append(known, w)
			}
			if !fetched[w] {
				requeue(w)
			}
		}
	}
	return order
}

func meanInDegree(g graph, pages []int) float64 {
	var sum int
	for _, v := range pages {
		sum += g.in[v]
	}
	return float64(sum) / float64(len(pages))
}

// TestImportanceFirst is the acceptance criterion in miniature:
// on a graph of 5000 pages with skewed in-degree, where each page has
// 20 navigational links and 3 links to popular pages (skewedGraph), the
// first 10% of pages fetched in order of OPIC cash have a mean
// in-degree at least 1.5× that of the first 10% in breadth-first order,
// for 3 seeds. With fewer navigational links (5 per page) a larger
// share of every page's links point at popular pages and breadth-first
// order finds them early by itself (Najork and Wiener, WWW 2001): the
// gain is smaller, and only checked to be there.
func TestImportanceFirst(t *testing.T) {
	const n = 5000
	cases := []struct {
		fan, m   int
		minRatio float64
	}{
		{20, 3, 1.5},
		{5, 3, 1.1},
	}
	for _, c := range cases {
		for seed := range uint64(3) {
			g := skewedGraph(n, c.m, c.fan, rand.New(rand.NewPCG(seed, 3)))
			k := n / 10
			bfs := meanInDegree(g, breadthFirst(g)[:k])
			opic := meanInDegree(g, greatestCash(g, k))
			bands := meanInDegree(g, banded(g, k))
			in := slices.Sorted(slices.Values(g.in))
			var best float64
			for _, d := range in[len(in)-k:] {
				best += float64(d)
			}
			best /= float64(k)
			t.Logf("fanout %d + %d popular links, seed %d: mean in-degree %.2f; first %d fetched: OPIC %.2f, OPIC bands %.2f, breadth-first %.2f (×%.2f, ×%.2f); the %d most linked: %.2f",
				c.fan, c.m, seed, meanInDegree(g, breadthFirst(g)), k, opic, bands, bfs, opic/bfs, bands/bfs, k, best)
			if opic < c.minRatio*bfs {
				t.Errorf("fanout %d, seed %d: mean in-degree of the first %d pages: OPIC %.2f < %.1f × breadth-first %.2f", c.fan, seed, k, opic, c.minRatio, bfs)
			}
			if bands < c.minRatio*bfs {
				t.Errorf("fanout %d, seed %d: mean in-degree of the first %d pages: OPIC bands %.2f < %.1f × breadth-first %.2f", c.fan, seed, k, bands, c.minRatio, bfs)
			}
		}
	}
}

func BenchmarkBand(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		Band(float64(i%1000)/100, i%10, 0.5, i%2 == 0)
	}
}
