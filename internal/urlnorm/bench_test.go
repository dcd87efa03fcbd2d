package urlnorm

import (
	"net/url"
	"testing"
)

func BenchmarkKey(b *testing.B) {
	c := NewCanonicalizer(Options{})
	for _, bm := range []struct{ name, url string }{
		{"plain", "https://www.example.com/articles/2024/06/some-article-title"},
		{"query", "https://www.example.com/search?q=godwit&page=2&utm_source=news&lang=en"},
		{"escaped", "https://www.example.com/wiki/%E3%83%84?title=%C3%A9t%C3%A9&action=view"},
	} {
		u, err := Parse(bm.url)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = c.Key(u)
			}
		})
	}
}

func BenchmarkResolve(b *testing.B) {
	base, err := url.Parse("https://www.example.com/articles/2024/index.html")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Resolve(base, "../2023/other-article.html?ref=home#comments"); err != nil {
			b.Fatal(err)
		}
	}
}

// typicalLinks are links as pages write them, resolved against
// typicalBase: the mix BenchmarkLink measures.
var typicalLinks = []string{
	"https://www.example.com/articles/2024/06/some-article-title",
	"../2023/other-article.html?ref=home#comments",
	"/search?q=godwit&page=2&utm_source=news&lang=en",
	"//cdn.example.net/img/logo.png",
	"section/page-2.html",
	"https://www.example.com/wiki/%E3%83%84?title=%C3%A9t%C3%A9&action=view",
	"HTTP://WWW.EXAMPLE.COM:80/About/./Team/../Contact#form",
	"?sort=date&order=desc",
}

const typicalBase = "https://www.example.com/articles/2024/index.html"

// BenchmarkLink is the hot path of discovery: resolve a link found on a
// page and compute its crawl key. ns/op and allocs/op are per link.
func BenchmarkLink(b *testing.B) {
	base, err := Parse(typicalBase)
	if err != nil {
		b.Fatal(err)
	}
	c := NewCanonicalizer(Options{})
	b.Run("resolve", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range typicalLinks {
				if _, err := Resolve(base, l); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(typicalLinks)), "ns/link")
	})
	b.Run("resolve+key", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range typicalLinks {
				u, err := Resolve(base, l)
				if err != nil {
					b.Fatal(err)
				}
				_ = c.Key(u)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(typicalLinks)), "ns/link")
	})
	abs := make([]string, len(typicalLinks))
	for i, l := range typicalLinks {
		u, err := Resolve(base, l)
		if err != nil {
			b.Fatal(err)
		}
		abs[i] = u.String()
	}
	b.Run("parse+key", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range abs {
				u, err := Parse(l)
				if err != nil {
					b.Fatal(err)
				}
				_ = c.Key(u)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(abs)), "ns/link")
	})
}

func BenchmarkSURT(b *testing.B) {
	c := NewCanonicalizer(Options{})
	u, err := Parse("https://www.example.com/search?q=godwit&page=2&lang=en")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.SURT(u)
	}
}
