package crawl

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// BenchmarkDiscover is the discovery chain (normalize through anomaly,
// without the frontier's seen-set) for a page of 60 links to other pages
// of its own site and a few off-site ones, as the throughput web writes
// them: ns/op, B/op and allocs/op are per page; ns/link per link.
func BenchmarkDiscover(b *testing.B) {
	c, err := New(Config{}, Deps{Frontier: nop{}, Fetcher: nop{}, Archive: nop{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.AddSeeds(b.Context(), []string{"http://a.example/", "http://b.example/"}); err != nil {
		b.Fatal(err)
	}
	page := "http://a.example/section/3/page-17.html"
	u, _ := urlnorm.Parse(page)
	task := Task{Link: Link{URL: page, Key: c.canon.Key(u), Host: "a.example", Depth: 2}}
	var raws []string
	for i := range 60 {
		switch i % 10 {
		case 0:
			raws = append(raws, fmt.Sprintf("http://b.example/p/%d.html", i))
		case 1:
			raws = append(raws, fmt.Sprintf("http://a.example/search?q=w%d&page=2", i))
		default:
			raws = append(raws, fmt.Sprintf("http://a.example/section/%d/page-%d.html", i%7, i))
		}
	}
	cands := make([]foundURL, len(raws))
	b.ReportAllocs()
	for b.Loop() {
		for i, r := range raws {
			cands[i] = foundURL{raw: r}
		}
		if got := c.discoverFrom(task, cands, false); len(got) != len(raws) {
			b.Fatalf("discover admitted %d of %d links", len(got), len(raws))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(raws)), "ns/link")
}

// BenchmarkDiscoverLongPage is the chain for a long table of contents:
// 5,000 links to 100 pages of its site, each page linked 50 times at
// different fragments, the shape of the Python documentation's
// contents.html (14,000 links to ~500 pages). Most are in-page duplicates
// and never become Links: B/op is what the page costs the heap beyond its
// candidates, per page.
func BenchmarkDiscoverLongPage(b *testing.B) {
	c, err := New(Config{}, Deps{Frontier: nop{}, Fetcher: nop{}, Archive: nop{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.AddSeeds(b.Context(), []string{"http://a.example/"}); err != nil {
		b.Fatal(err)
	}
	page := "http://a.example/contents.html"
	u, _ := urlnorm.Parse(page)
	task := Task{Link: Link{URL: page, Key: c.canon.Key(u), Host: "a.example", Depth: 1}}
	const pages, repeats = 100, 50
	var raws []string
	for i := range pages * repeats {
		raws = append(raws, fmt.Sprintf("http://a.example/library/m%d.html#section-%d", i/repeats, i%repeats))
	}
	cands := make([]foundURL, len(raws))
	b.ReportAllocs()
	for b.Loop() {
		for i, r := range raws {
			cands[i] = foundURL{raw: r}
		}
		if got := c.discoverFrom(task, cands, false); len(got) != pages {
			b.Fatalf("discover admitted %d of %d links, want %d", len(got), len(raws), pages)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(raws)), "ns/link")
}
