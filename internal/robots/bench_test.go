package robots

import "testing"

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
