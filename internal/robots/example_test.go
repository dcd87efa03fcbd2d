package robots_test

import (
	"fmt"

	"github.com/godwit-crawler/godwit/internal/robots"
)

func Example() {
	r := robots.Parse([]byte(`
User-agent: *
Disallow: /

User-agent: godwit
Allow: /public/
Disallow: /public/*.pdf$
Crawl-delay: 2.5

Sitemap: https://example.com/sitemap.xml
`))
	g := r.Group("godwit") // once per robots.txt, then for every URL of the host
	for _, path := range []string{"/public/page", "/public/report.pdf", "/private"} {
		fmt.Println(path, g.Allowed(path))
	}
	fmt.Println(g.CrawlDelay())
	fmt.Println(r.Group("otherbot").Allowed("/public/page"))
	fmt.Println(r.Sitemaps())
	// Output:
	// /public/page true
	// /public/report.pdf false
	// /private true
	// 2.5s true
	// false
	// [https://example.com/sitemap.xml]
}
