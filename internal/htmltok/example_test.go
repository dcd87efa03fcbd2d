package htmltok_test

import (
	"fmt"

	"github.com/godwit-crawler/godwit/internal/htmltok"
)

// The links of a page and its text, as extract and simhash read them.
func Example() {
	page := []byte(`<title>Tea &amp; cake</title><A HREF="/menu?a=1&amp;b=2" href=/dup>Menu</a><script>if (a<b) x()</script>`)
	z := htmltok.New(page)
	for {
		tt := z.Next()
		switch tt {
		case htmltok.ErrorToken:
			fmt.Println("end:", z.Err())
			return
		case htmltok.TextToken:
			fmt.Printf("text %q\n", z.Text())
		case htmltok.StartTagToken:
			fmt.Printf("<%s>", z.TagName())
			for i := range z.NumAttr() {
				k, v := z.Attr(i)
				fmt.Printf(" %s=%q", k, v)
			}
			fmt.Println()
		case htmltok.EndTagToken:
			fmt.Printf("</%s>\n", z.TagName())
		}
	}
	// Output:
	// <title>
	// text "Tea & cake"
	// </title>
	// <a> href="/menu?a=1&b=2"
	// text "Menu"
	// </a>
	// <script>
	// text "if (a<b) x()"
	// </script>
	// end: EOF
}
