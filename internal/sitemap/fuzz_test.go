package sitemap

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, respects its caps, and keeps
// the Entry invariants, whatever the input. Seeds are the unit cases'
// kinds of input, and the conformance fixtures when present.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"http://a.example/1\nhttps://a.example/2\r\n# x\n",
		urlset(`<url><loc>http://a.example/?a=1&amp;b=2</loc><lastmod>2024-02-12T12:34:56+01:00</lastmod><changefreq>daily</changefreq><priority>0.8</priority></url>`),
		`<sitemapindex><sitemap><loc><![CDATA[http://a.example/s.xml]]></loc><lastmod>2024</lastmod></sitemap></sitemapindex>`,
		`<rss><channel><item><link>http://a.example/1</link><pubDate>Mon, 12 Feb 2024 12:34:56 GMT</pubDate></item><item><guid>http://a.example/2</guid></item></channel></rss>`,
		`<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="http://a.example/1"/><updated>2024-02-12T12:34:56Z</updated></entry></feed>`,
		"\xef\xbb\xbf  <?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><URLSET><Url><LOC>http://a.example/\xe9</loc></URL>",
		"<urlset><url><loc>http://a.example/1</url><url><loc>http://a.example/2</loc></lco></url>",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
		f.Add(gz(f, s))
	}
	for _, dir := range []string{aafeherDir, oxffaaDir} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil && !strings.HasSuffix(name, "LICENSE") {
				f.Add(data)
			}
		}
	}
	const maxEntries = 8
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		res, err := Parse(bytes.NewReader(data), Options{MaxEntries: maxEntries, MaxBytes: 1 << 16}, func(e Entry) error {
			n++
			if e.URL == "" || len(e.URL) > maxURLBytes || strings.TrimSpace(e.URL) != e.URL {
				t.Errorf("Entry.URL = %q: empty, untrimmed or too long", e.URL)
			}
			if e.ChangeFreq != "" && !strings.Contains(" always hourly daily weekly monthly yearly never ", " "+e.ChangeFreq+" ") {
				t.Errorf("Entry.ChangeFreq = %q", e.ChangeFreq)
			}
			if e.Priority != -1 && !(e.Priority >= 0 && e.Priority <= 1) {
				t.Errorf("Entry.Priority = %v", e.Priority)
			}
			return nil
		})
		if n != res.Entries || n > maxEntries {
			t.Errorf("fn called %d times, Result.Entries = %d, cap %d", n, res.Entries, maxEntries)
		}
		if err != nil && !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse error %v is neither ErrEmpty nor ErrMalformed", err)
		}
		if err != nil && res.Truncated {
			t.Errorf("Parse = %+v with error %v: a cap is not an error", res, err)
		}
		if err == nil && res.Kind == Unknown && !res.Truncated {
			t.Errorf("Parse = %+v, %v: no error, yet the kind is unknown", res, err)
		}
	})
}
