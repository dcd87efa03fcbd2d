package robots

import (
	"fmt"
	"strings"
	"testing"
)

// realistic is shaped like the robots.txt of a large shop or news site:
// about 50 rules over a few groups, with wildcards, anchors and escapes.
const realistic = `# robots.txt for www.example.com
User-agent: *
Disallow: /cgi-bin/
Disallow: /tmp/
Disallow: /admin/
Disallow: /account/
Disallow: /cart
Disallow: /checkout
Disallow: /login
Disallow: /logout
Disallow: /register
Disallow: /search
Disallow: /*?sort=
Disallow: /*&sort=
Disallow: /*?sessionid=
Disallow: /*&sessionid=
Disallow: /*?ref=*
Disallow: /*.json$
Disallow: /*.xml$
Disallow: /print/
Disallow: /api/
Allow: /api/public/
Disallow: /catalog/*/compare
Disallow: /catalog/*/reviews/write
Allow: /catalog/
Disallow: /wishlist
Disallow: /%7Estaff/
Disallow: /caf%C3%A9/private
Disallow: /internal$
Disallow: /drafts/
Disallow: /preview/
Disallow: /feeds/*/comments
Disallow: /tag/*/page/
Disallow: /author/*/feed
Allow: /*.css$
Allow: /*.js$
Crawl-delay: 1

User-agent: godwit
Disallow: /heavy/
Disallow: /export/
Disallow: /*/download$
Disallow: /catalog/*/print
Allow: /catalog/
Disallow: /events/*?date=
Disallow: /calendar/
Disallow: /archive/*/*/*/
Allow: /archive/index.html
Disallow: /media/*.mp4$
Disallow: /media/*.zip$
Crawl-delay: 2

User-agent: badbot
Disallow: /

Sitemap: https://www.example.com/sitemap.xml
Sitemap: https://www.example.com/news-sitemap.xml
`

func BenchmarkAllowed(b *testing.B) {
	g := Parse([]byte(realistic)).Group("godwit")
	paths := []string{
		"/catalog/item/12345/reviews?page=2&sort=new",
		"/archive/2024/06/01/story.html",
		"/media/videos/intro.mp4",
		"/about/team",
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		g.Allowed(paths[i%len(paths)])
		i++
	}
}

func BenchmarkAllowedStar(b *testing.B) {
	g := Parse([]byte(realistic)).Group("otherbot")
	b.ReportAllocs()
	for b.Loop() {
		g.Allowed("/catalog/item/12345/reviews?page=2&sort=new")
	}
}

func BenchmarkParse(b *testing.B) {
	body := []byte(realistic)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(body)
	}
}

// largeRobots builds, deterministically, a robots.txt of 300 rules shaped
// like those of big shops and news sites: a "*" group of 250 rules
// (directory prefixes, wildcard paths, tracking and sort parameters, file
// extensions, single pages, exceptions), then a group of 40 for named
// search engines and a list of blocked bots. godwit is not named, so it
// gets the "*" group.
func largeRobots() []byte {
	sections := []string{
		"account", "admin", "ajax", "api", "archive", "basket", "blog", "brand", "cart", "catalog",
		"category", "checkout", "cms", "compare", "content", "customer", "download", "events", "export", "feed",
		"forum", "gallery", "help", "images", "internal", "jobs", "landing", "legacy", "login", "media",
		"members", "my", "news", "newsletter", "offers", "order", "partner", "print", "product", "profile",
		"promo", "register", "reviews", "search", "shop", "sitemap", "static", "store", "support", "tag",
		"tmp", "track", "user", "video", "widget", "wishlist", "wp-admin", "wp-content", "wp-includes", "xml",
	}
	params := []string{
		"sort", "order", "dir", "limit", "page_size", "sessionid", "sid", "ref", "utm_source", "utm_medium",
		"utm_campaign", "gclid", "fbclid", "filter", "color", "size", "price", "view", "mode", "print",
	}
	exts := []string{"json", "xml", "pdf", "zip", "csv", "xls", "doc", "mp4", "txt", "rss"}
	var b strings.Builder
	b.WriteString("# robots.txt for www.example.com\n# generated for the benchmark\n\nUser-agent: *\n")
	for i, s := range sections { // 60 prefixes, a third of them with a sub-directory
		fmt.Fprintf(&b, "Disallow: /%s/\n", s)
		if i%3 == 0 {
			fmt.Fprintf(&b, "Disallow: /%s/%s/private\n", sections[(i+7)%len(sections)], s)
		}
	}
	for i, s := range sections[:40] { // 40 wildcard paths
		fmt.Fprintf(&b, "Disallow: /%s/*/%s\n", s, sections[(i+11)%len(sections)])
	}
	for _, p := range params { // 40 parameters
		fmt.Fprintf(&b, "Disallow: /*?%s=\nDisallow: /*&%s=\n", p, p)
	}
	for _, e := range exts { // 10 extensions
		fmt.Fprintf(&b, "Disallow: /*.%s$\n", e)
	}
	for i, s := range sections[:30] { // 30 exceptions and exact sections
		if i%2 == 0 {
			fmt.Fprintf(&b, "Allow: /%s/public/\n", s)
		} else {
			fmt.Fprintf(&b, "Disallow: /%s$\n", s)
		}
	}
	for i := range 47 { // 47 single pages, some anchored
		s := sections[(i*7)%len(sections)]
		if i%3 == 0 {
			fmt.Fprintf(&b, "Disallow: /%s/%s-%d.html$\n", s, params[i%len(params)], 1000+i*37)
		} else {
			fmt.Fprintf(&b, "Disallow: /%s/%s-%d\n", s, params[i%len(params)], 1000+i*37)
		}
	}
	b.WriteString("Allow: /*.css$\nAllow: /*.js$\nAllow: /static/img/\nCrawl-delay: 1\n\n")
	b.WriteString("User-agent: Googlebot\nUser-agent: Bingbot\n")
	for i, s := range sections[:40] { // 40 rules for the search engines
		if i%4 == 0 {
			fmt.Fprintf(&b, "Allow: /%s/\n", s)
		} else {
			fmt.Fprintf(&b, "Disallow: /%s/*?%s=\n", s, params[i%len(params)])
		}
	}
	b.WriteString("\n")
	for _, bot := range []string{"GPTBot", "CCBot", "ClaudeBot", "Bytespider", "AhrefsBot", "SemrushBot", "MJ12bot", "DotBot", "PetalBot", "Amazonbot"} {
		fmt.Fprintf(&b, "User-agent: %s\nDisallow: /\n\n", bot)
	}
	b.WriteString("Sitemap: https://www.example.com/sitemap.xml\n")
	return []byte(b.String())
}

// largePaths are paths a crawl of such a site asks about: most are
// allowed, which is the slow case (no rule matches, all are tried).
var largePaths = []string{
	"/2024/06/01/godwits-cross-the-pacific.html",
	"/catalog/shoes/running/12345?utm_source=newsletter&color=red",
	"/product/12345/reviews/page/3",
	"/about/team/",
	"/search?q=godwit",
	"/wp-content/themes/site/style.css",
	"/downloads/report-2023.pdf",
	"/news/world/europe/some-long-article-slug-with-many-words-in-it",
}

func BenchmarkAllowedLarge(b *testing.B) {
	r := Parse(largeRobots())
	g := r.Group("godwit")
	b.ReportMetric(float64(len(g.rules)), "rules")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		g.Allowed(largePaths[i%len(largePaths)])
		i++
	}
}
