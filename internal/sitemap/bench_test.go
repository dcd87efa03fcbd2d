package sitemap

import (
	"bytes"
	"fmt"
	"testing"
)

// benchInputs are the files of the benchmarks: 50,000 URLs (the
// protocol's limit), as a urlset with every field (about 9 MB), the same
// gzipped, and as text.
func benchInputs(b *testing.B) map[string][]byte {
	b.Helper()
	xml := sitemapOf(50_000)
	var text bytes.Buffer
	for i := range 50_000 {
		fmt.Fprintf(&text, "https://www.example.com/page/%d\n", i)
	}
	return map[string][]byte{"urlset": xml, "urlset.gz": gz(b, string(xml)), "text": text.Bytes()}
}

func BenchmarkParse50k(b *testing.B) {
	inputs := benchInputs(b)
	for _, name := range []string{"urlset", "urlset.gz", "text"} {
		in := inputs[name]
		b.Run(name, func(b *testing.B) {
			// Throughput in uncompressed bytes, the work done.
			size := len(in)
			if name == "urlset.gz" {
				size = len(inputs["urlset"])
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				res, err := Parse(bytes.NewReader(in), Options{}, func(Entry) error { return nil })
				if err != nil || res.Entries != 50_000 {
					b.Fatalf("Parse = %+v, %v", res, err)
				}
			}
		})
	}
}
