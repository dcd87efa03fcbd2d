package extract_test

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/godwit-crawler/godwit/internal/extract"
	"github.com/godwit-crawler/godwit/internal/robots"
)

func Example() {
	page, _ := url.Parse("https://example.com/blog/post.html")
	body := []byte(`<html><head><title>My  post</title><base href="/blog/"></head>
<body>
  <a href="next.html">Next</a>
  <a href="https://ads.example.net/" rel="nofollow sponsored">Ad</a>
  <a href="mailto:me@example.com">Mail me</a>
  <!-- <a href="/draft">draft</a> -->
</body></html>`)
	d, err := extract.HTML(page, body, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", d.Title)
	for _, l := range d.Links {
		fmt.Println(l.Tag, l.URL, l.HasRel("nofollow"))
	}
	// Output:
	// "My post"
	// a https://example.com/blog/next.html false
	// a https://ads.example.net/ true
}

// The page-level robots signals of a response: its <meta> tags, read by
// HTML, merged with its X-Robots-Tag headers.
func ExampleHTML_robots() {
	page, _ := url.Parse("https://example.com/forum/thread/42")
	header := http.Header{}
	header.Add("X-Robots-Tag", "otherbot: noindex")
	header.Add("X-Robots-Tag", "godwit: noarchive")
	body := []byte(`<html><head>
<meta name="robots" content="index, follow">
<meta name="GodWit" content="nofollow">
</head><body>
  <a href="/forum/thread/43">Next thread</a>
  <a href="https://spam.example/" rel="ugc,nofollow">a user's link</a>
</body></html>`)
	d, err := extract.HTML(page, body, &extract.Options{Agents: []string{"godwit"}})
	if err != nil {
		panic(err)
	}
	signals := d.Robots.Merge(robots.ParseXRobotsTag(header.Values("X-Robots-Tag"), "godwit"))
	fmt.Printf("noindex %v, nofollow %v, noarchive %v\n", signals.NoIndex, signals.NoFollow, signals.NoArchive)
	for _, l := range d.Links {
		fmt.Println(l.URL, "nofollow:", signals.NoFollow || l.HasRel("nofollow"))
	}
	// Output:
	// noindex false, nofollow true, noarchive true
	// https://example.com/forum/thread/43 nofollow: true
	// https://spam.example/ nofollow: true
}

// A page in Latin-1, as its Content-Type says: the title is decoded, the
// path of a link is UTF-8 and its query is in the page's encoding, as
// browsers send it.
func ExampleHTML_encoding() {
	page, _ := url.Parse("http://example.com/menu")
	body := []byte("<title>Caf\xe9 cr\xe8me</title><a href=\"/caf\xe9?q=cr\xe8me&amp;r=&#x65E5;\">search</a>")
	d, err := extract.HTML(page, body, &extract.Options{ContentType: "text/html; charset=ISO-8859-1"})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Encoding, d.EncodingSource, d.Title)
	fmt.Println(d.Links[0].URL)
	// Output:
	// windows-1252 header Café crème
	// http://example.com/caf%C3%A9?q=cr%E8me&r=%26%2326085%3B
}
