package urlnorm_test

import (
	"fmt"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

func Example() {
	page, err := urlnorm.Parse("HTTP://WWW.Example.COM:80/news/./today.html#top")
	if err != nil {
		panic(err)
	}
	fmt.Println(page)

	link, err := urlnorm.Resolve(page, "../archive/?utm_source=home&b=2&a=1")
	if err != nil {
		panic(err)
	}
	fmt.Println(link)

	keys := urlnorm.NewCanonicalizer(urlnorm.Options{})
	fmt.Println(keys.Key(link))
	fmt.Println(keys.SURT(link))
	fmt.Println(urlnorm.Host(link), urlnorm.Domain(urlnorm.Host(link)))

	_, err = urlnorm.Resolve(page, "mailto:editor@example.com")
	fmt.Println(err)
	// Output:
	// http://www.example.com/news/today.html
	// http://www.example.com/archive/?utm_source=home&b=2&a=1
	// http://www.example.com/archive/?a=1&b=2
	// com,example)/archive?a=1&b=2
	// www.example.com example.com
	// urlnorm: not an http(s) URL "mailto:editor@example.com": scheme "mailto"
}
