package extract_test

import (
	"fmt"
	"net/url"

	"github.com/godwit-crawler/godwit/internal/extract"
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
