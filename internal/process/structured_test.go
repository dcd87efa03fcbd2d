package process

import (
	"testing"
)

func TestStructured(t *testing.T) {
	page := `<!doctype html><html><head>
<meta property="og:title" content=" A  page ">
<meta property="og:type" content="article">
<meta property="og:image" content="/a.png"><meta property="og:image" content="/b.png">
<meta name="description" content="not og">
<meta name="twitter:card" content="summary">
<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Hi"}
</script>
<script type="application/ld+json; charset=utf-8">
{"@context": "https://schema.org", "@graph": [{"@type": ["Person", "Author"]}, {"@type": "NewsArticle"}]}
</script>
<script type="application/ld+json">{not json</script>
<script>var x = {"@type": "Ignored"};</script>
</head><body><p>text</p></body></html>`
	v, err := Structured{}.Process(t.Context(), &Page{Body: []byte(page)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"og:title":       "A  page",
		"og:type":        "article",
		"og:image":       "/a.png",
		"twitter:card":   "summary",
		"jsonld-types":   "NewsArticle Person Author",
		"jsonld-items":   "3",
		"jsonld-invalid": "1",
		"jsonld":         `{"@context":"https://schema.org","@type":"NewsArticle","headline":"Hi"}`,
	}
	for k, w := range want {
		if got := v.Annotations[k]; got != w {
			t.Errorf("annotation %s = %q, want %q", k, got, w)
		}
	}
	if len(v.Annotations) != len(want) {
		t.Errorf("annotations = %v, want exactly %v", v.Annotations, want)
	}

	v, err = Structured{}.Process(t.Context(), &Page{Body: []byte("<html><title>plain</title></html>")})
	if err != nil || len(v.Annotations) != 0 {
		t.Errorf("plain page: %v, %v; want no annotation", v, err)
	}
}

func FuzzStructured(f *testing.F) {
	f.Add(`<meta property="og:title" content="x"><script type="application/ld+json">{"@type":"A"}</script>`)
	f.Add(`<script type="application/ld+json">[{"@graph":[{"@type":["B"]}]}]`)
	f.Fuzz(func(t *testing.T, page string) {
		v, err := Structured{}.Process(t.Context(), &Page{Body: []byte(page)})
		if err != nil {
			t.Fatal(err)
		}
		for k := range v.Annotations {
			if !validKey(k) {
				t.Errorf("invalid key %q", k)
			}
		}
	})
}
