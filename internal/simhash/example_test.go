package simhash_test

import (
	"fmt"

	"github.com/godwit-crawler/godwit/internal/simhash"
)

func Example() {
	pages := []string{
		`<html><body><nav><a href="/">Home</a></nav>
		<p>The bar-tailed godwit flies eleven thousand kilometres from Alaska to
		New Zealand without stopping, the longest known non-stop flight of any bird.
		It neither eats nor drinks on the way, and sleeps with half its brain.</p>
		<footer>Visited 3 times today</footer></body></html>`,

		`<html><body><nav><a href="/">Start</a> <a href="/news">News</a></nav>
		<p>The bar-tailed godwit flies eleven thousand kilometres from Alaska to
		New Zealand without stopping, the longest known non-stop flight of any bird.
		It neither eats nor drinks on the way, and sleeps with half of its brain.</p>
		<footer>Visited 4 times today</footer></body></html>`,

		`<html><body><p>Robots.txt tells crawlers which paths of a site they may
		fetch; a polite crawler also spaces its requests to each host.</p></body></html>`,
	}
	index := simhash.NewIndex(simhash.DefaultK)
	for i, page := range pages {
		fp := simhash.Fingerprint(simhash.VisibleText([]byte(page)))
		if id, dist, ok := index.Near(fp); ok {
			fmt.Printf("page %d: near duplicate of page %d (%d bits apart)\n", i, id, dist)
			continue
		}
		fmt.Printf("page %d: new\n", i)
		index.Add(fp, uint64(i))
	}
	// Output:
	// page 0: new
	// page 1: near duplicate of page 0 (2 bits apart)
	// page 2: new
}

func ExampleVisibleText() {
	page := `<!DOCTYPE html><title>Godwit</title><style>p { color: red }</style>
<nav><a href="/">Home</a></nav><h1>Caf&eacute;</h1><p>Open   <b>every</b>
day.</p><script>track()</script><footer>&copy; 2026</footer>`
	fmt.Printf("%q\n", simhash.VisibleText([]byte(page)))
	// Output:
	// "Café Open every day."
}
