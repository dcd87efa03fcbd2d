package robots_test

import (
	"fmt"
	"net/http"

	"github.com/godwit-crawler/godwit/internal/robots"
)

func ExampleGroup_Match() {
	r := robots.Parse([]byte(`User-agent: *
Disallow: /private/
Allow: /private/press/
`))
	g := r.Group("godwit")
	for _, path := range []string{"/private/a", "/private/press/kit.zip", "/about"} {
		if rule, ok := g.Match(path); ok {
			fmt.Printf("%s: %v, by %q at line %d, group %q\n", path, rule.Allow, rule, rule.Line, rule.Agents)
		} else {
			fmt.Printf("%s: allowed, no rule matches\n", path)
		}
	}
	// Output:
	// /private/a: false, by "Disallow: /private/" at line 2, group ["*"]
	// /private/press/kit.zip: true, by "Allow: /private/press/" at line 3, group ["*"]
	// /about: allowed, no rule matches
}

func ExampleParseXRobotsTag() {
	h := http.Header{}
	h.Add("X-Robots-Tag", "noindex")
	h.Add("X-Robots-Tag", "otherbot: nofollow")
	h.Add("X-Robots-Tag", "GodWit: noarchive, unavailable_after: Fri, 25 Jun 2010 15:00:00 PST")
	d := robots.ParseXRobotsTag(h.Values("X-Robots-Tag"), "godwit")
	fmt.Println(d.NoIndex, d.NoFollow, d.NoArchive, d.UnavailableAfter)
	// Output:
	// true false true 2010-06-25 23:00:00 +0000 UTC
}

func ExampleParseMeta() {
	// <meta name="robots" content="NONE">
	fmt.Printf("%+v\n", robots.ParseMeta("NONE").Merge(robots.ParseMeta("noarchive")))
	// Output:
	// {NoIndex:true NoFollow:true NoArchive:true NoSnippet:false NoImageIndex:false UnavailableAfter:0001-01-01 00:00:00 +0000 UTC}
}
