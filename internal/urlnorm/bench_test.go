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
