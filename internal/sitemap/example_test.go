package sitemap_test

import (
	"fmt"
	"strings"

	"github.com/godwit-crawler/godwit/internal/sitemap"
)

func ExampleParse() {
	const file = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url>
    <loc>https://www.example.com/?lang=en&amp;page=1</loc>
    <lastmod>2024-02-12</lastmod>
    <changefreq>weekly</changefreq>
  </url>
  <url><loc>https://www.example.com/about</loc><priority>0.8</priority></url>
  <url><loc>https://www.example.com/contact</loc></url>
</urlset>`
	res, err := sitemap.Parse(strings.NewReader(file), sitemap.Options{MaxEntries: 2}, func(e sitemap.Entry) error {
		fmt.Printf("%s lastmod=%s changefreq=%q priority=%v\n",
			e.URL, e.LastMod.Format("2006-01-02"), e.ChangeFreq, e.Priority)
		return nil
	})
	fmt.Println(res.Kind, res.Entries, res.Truncated, err)
	// Output:
	// https://www.example.com/?lang=en&page=1 lastmod=2024-02-12 changefreq="weekly" priority=-1
	// https://www.example.com/about lastmod=0001-01-01 changefreq="" priority=0.8
	// urlset 2 true <nil>
}
