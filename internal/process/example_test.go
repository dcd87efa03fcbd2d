package process_test

import (
	"context"
	"fmt"

	"github.com/godwit-crawler/godwit/internal/process"
)

func Example() {
	r, err := process.NewRunner([]process.Processor{process.Structured{}}, process.Options{})
	if err != nil {
		panic(err)
	}
	res := r.Run(context.Background(), &process.Page{
		URL:    "https://example.test/",
		Status: 200,
		Body: []byte(`<head><meta property="og:type" content="article">
<script type="application/ld+json">{"@type":"NewsArticle"}</script></head>`),
	})
	for _, a := range res.Annotations {
		fmt.Printf("%s=%s\n", a.Key, a.Value)
	}
	// Output:
	// jsonld={"@type":"NewsArticle"}
	// jsonld-items=1
	// jsonld-types=NewsArticle
	// og:type=article
}
