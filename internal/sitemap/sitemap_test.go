package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// collect parses input and returns the entries passed to fn.
func collect(t testing.TB, input []byte, o Options) ([]Entry, Result, error) {
	t.Helper()
	var got []Entry
	res, err := Parse(bytes.NewReader(input), o, func(e Entry) error {
		got = append(got, e)
		return nil
	})
	if res.Entries != len(got) {
		t.Errorf("Result.Entries = %d, fn called %d times", res.Entries, len(got))
	}
	return got, res, err
}

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// e builds an entry with only a URL.
func e(url string) Entry { return Entry{URL: url, Priority: -1} }

// errClass names the class of a Parse error for messages and comparisons.
func errClass(err error) string {
	switch {
	case err == nil:
		return "nil"
	case errors.Is(err, ErrEmpty):
		return "ErrEmpty"
	case errors.Is(err, ErrMalformed):
		return "ErrMalformed"
	}
	return "other: " + err.Error()
}

const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`

func urlset(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>` + "\n<urlset " + ns + ">" + body + "</urlset>\n"
}

func TestParse(t *testing.T) {
	cet := time.FixedZone("", 3600)
	tests := []struct {
		name    string
		in      string
		o       Options
		kind    Kind
		want    []Entry
		skipped int
		trunc   bool
		err     string // errClass
	}{
		{
			name: "urlset with every field",
			in: urlset(`<url><loc>http://a.example/x</loc><lastmod>2024-02-12T12:34:56+01:00</lastmod>` +
				`<changefreq>daily</changefreq><priority>0.8</priority></url>`),
			kind: URLSet,
			want: []Entry{{URL: "http://a.example/x", LastMod: time.Date(2024, 2, 12, 12, 34, 56, 0, cet), ChangeFreq: "daily", Priority: 0.8}},
		},
		{
			name: "sitemapindex",
			in: `<sitemapindex ` + ns + `><sitemap><loc>http://a.example/s1.xml.gz</loc><lastmod>2024-01-02</lastmod></sitemap>` +
				`<sitemap><loc>http://a.example/s2.xml</loc><changefreq>daily</changefreq><priority>1</priority></sitemap></sitemapindex>`,
			kind: Index,
			want: []Entry{
				{URL: "http://a.example/s1.xml.gz", LastMod: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), Priority: -1},
				e("http://a.example/s2.xml"), // changefreq and priority are not index fields
			},
		},
		{
			name: "no namespace",
			in:   `<urlset><url><loc>http://a.example/</loc></url></urlset>`,
			kind: URLSet,
			want: []Entry{e("http://a.example/")},
		},
		{
			name: "prefixed namespace",
			in:   `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://a.example/</sm:loc><sm:priority>0.3</sm:priority></sm:url></sm:urlset>`,
			kind: URLSet,
			want: []Entry{{URL: "http://a.example/", Priority: 0.3}},
		},
		{
			name: "old Google namespace",
			in:   `<urlset xmlns="http://www.google.com/schemas/sitemap/0.84"><url><loc>http://a.example/</loc></url></urlset>`,
			kind: URLSet,
			want: []Entry{e("http://a.example/")},
		},
		{
			name: "mixed case tags",
			in:   `<URLSet><Url><LOC>http://a.example/</loc><ChangeFreq>WEEKLY</changefreq></URL><url><loc>http://a.example/2</LOC></url></urlset>`,
			kind: URLSet,
			want: []Entry{{URL: "http://a.example/", ChangeFreq: "weekly", Priority: -1}, e("http://a.example/2")},
		},
		{
			name: "BOM and white space before the declaration",
			in:   "\xef\xbb\xbf \r\n\t " + urlset(`<url><loc>http://a.example/</loc></url>`),
			kind: URLSet,
			want: []Entry{e("http://a.example/")},
		},
		{
			name: "CDATA, entities and surrounding white space",
			in: urlset(`<url><loc><![CDATA[http://a.example/?a=1&b=2]]></loc></url>` +
				`<url><loc>` + "\n\t  " + `http://a.example/?a=1&amp;b=2&#38;c=&#x33;` + "\n  " + `</loc></url>` +
				`<url><loc>http://a.example/<![CDATA[cd]]>/x</loc></url>`),
			kind: URLSet,
			want: []Entry{e("http://a.example/?a=1&b=2"), e("http://a.example/?a=1&b=2&c=3"), e("http://a.example/cd/x")},
		},
		{
			name: "bare ampersand and HTML entity kept",
			in:   urlset(`<url><loc>http://a.example/?a=1&b=2&nbsp;x</loc></url>`),
			kind: URLSet,
			want: []Entry{e("http://a.example/?a=1&b=2\u00a0x")},
		},
		{
			name: "extensions are not the page",
			in: `<urlset ` + ns + ` xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">` +
				`<url><image:image><image:loc>http://a.example/i.jpg</image:loc></image:image><loc>http://a.example/p</loc>` +
				`<xhtml:link rel="alternate" hreflang="de" href="http://a.example/de/p"/></url>` +
				`<url><image:loc>http://a.example/j.jpg</image:loc></url></urlset>`,
			kind:    URLSet,
			want:    []Entry{e("http://a.example/p")},
			skipped: 1,
		},
		{
			name:    "entries without a usable location are skipped",
			in:      urlset(`<url></url><url><loc/></url><url><loc>  </loc></url><url><loc>http://a.example/` + strings.Repeat("a", 8192) + `</loc></url><url><loc>http://a.example/ok</loc></url>`),
			kind:    URLSet,
			want:    []Entry{e("http://a.example/ok")},
			skipped: 4,
		},
		{
			name: "a location of exactly 8 KiB is kept",
			in:   urlset(`<url><loc>http://a.example/` + strings.Repeat("a", 8192-len("http://a.example/")) + `</loc></url>`),
			kind: URLSet,
			want: []Entry{e("http://a.example/" + strings.Repeat("a", 8192-len("http://a.example/")))},
		},
		{
			name: "first of repeated fields wins",
			in:   urlset(`<url><loc>http://a.example/1</loc><loc>http://a.example/2</loc><priority>0.1</priority><priority>0.2</priority></url>`),
			kind: URLSet,
			want: []Entry{{URL: "http://a.example/1", Priority: 0.1}},
		},
		{
			name: "invalid hints",
			in: urlset(`<url><loc>http://a.example/1</loc><lastmod>yesterday</lastmod><changefreq>often</changefreq><priority>1.5</priority></url>` +
				`<url><loc>http://a.example/2</loc><lastmod>2024-13-01</lastmod><changefreq></changefreq><priority>NaN</priority></url>` +
				`<url><loc>http://a.example/3</loc><lastmod> 2024 </lastmod><changefreq> Never </changefreq><priority> .5 </priority></url>`),
			kind: URLSet,
			want: []Entry{
				e("http://a.example/1"),
				e("http://a.example/2"),
				{URL: "http://a.example/3", LastMod: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), ChangeFreq: "never", Priority: 0.5},
			},
		},
		{
			name: "missing end tags are implied",
			in:   urlset(`<url><loc>http://a.example/1</url><url><loc>http://a.example/2</loc></lco></url>`),
			kind: URLSet,
			want: []Entry{e("http://a.example/1"), e("http://a.example/2")},
		},
		{
			name: "nothing after the root is read",
			in:   urlset(`<url><loc>http://a.example/</loc></url>`) + "<<garbage & \x00",
			kind: URLSet,
			want: []Entry{e("http://a.example/")},
		},
		{
			name: "empty urlset",
			in:   urlset(""),
			kind: URLSet,
		},
		{
			name: "declared Latin-1",
			in:   `<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>http://a.example/caf` + "\xe9" + `</loc></url></urlset>`,
			kind: URLSet,
			want: []Entry{e("http://a.example/café")},
		},
		{
			name: "declared UTF-16 but one byte per character",
			in:   `<?xml version="1.0" encoding="UTF-16"?><urlset><url><loc>http://a.example/é</loc></url></urlset>`,
			kind: URLSet,
			want: []Entry{e("http://a.example/é")},
		},
		{
			name: "unknown declared encoding read as UTF-8",
			in:   `<?xml version="1.0" encoding="x-unknown"?><urlset><url><loc>http://a.example/</loc></url></urlset>`,
			kind: URLSet,
			want: []Entry{e("http://a.example/")},
		},
		{
			name: "RSS 2.0",
			in: `<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>t</title><link>http://a.example/</link>` +
				`<atom:link href="http://a.example/feed" rel="self"/>` +
				`<item><title>1</title><link>http://a.example/1</link><pubDate>Mon, 12 Feb 2024 12:34:56 +0100</pubDate></item>` +
				`<item><guid>http://a.example/2</guid><pubDate>Mon, 12 Feb 2024 12:34:56 GMT</pubDate></item>` +
				`<item><guid isPermaLink="false">http://a.example/3</guid></item>` +
				`<item><atom:link href="http://a.example/4"/><link>http://a.example/4b</link><pubDate>Sun, 4 Feb 2024 10:00:00 EST</pubDate></item>` +
				`</channel></rss>`,
			kind: RSS,
			want: []Entry{
				{URL: "http://a.example/1", LastMod: time.Date(2024, 2, 12, 12, 34, 56, 0, cet), Priority: -1},
				{URL: "http://a.example/2", LastMod: time.Date(2024, 2, 12, 12, 34, 56, 0, time.UTC), Priority: -1},
				{URL: "http://a.example/4b", LastMod: time.Date(2024, 2, 4, 10, 0, 0, 0, time.FixedZone("EST", -5*3600)), Priority: -1},
			},
			skipped: 1,
		},
		{
			name: "RSS 1.0",
			in: `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">` +
				`<channel><link>http://a.example/</link></channel>` +
				`<item><link>http://a.example/1</link><dc:date>2024-02-12T12:34:56Z</dc:date></item></rdf:RDF>`,
			kind: RSS,
			want: []Entry{{URL: "http://a.example/1", LastMod: time.Date(2024, 2, 12, 12, 34, 56, 0, time.UTC), Priority: -1}},
		},
		{
			name: "Atom",
			in: `<feed xmlns="http://www.w3.org/2005/Atom"><link rel="self" href="http://a.example/feed"/>` +
				`<entry><link rel="self" href="http://a.example/e1.atom"/><link rel="alternate" href=" http://a.example/1 "/><updated>2024-02-12T12:34:56.5+01:00</updated><published>2020-01-01</published></entry>` +
				`<entry><link href="http://a.example/2"/><published>2024-02-12</published></entry>` +
				`<entry><link rel="edit" href="http://a.example/3/edit"/></entry></feed>`,
			kind: Atom,
			want: []Entry{
				{URL: "http://a.example/1", LastMod: time.Date(2024, 2, 12, 12, 34, 56, 5e8, cet), Priority: -1},
				{URL: "http://a.example/2", LastMod: time.Date(2024, 2, 12, 0, 0, 0, 0, time.UTC), Priority: -1},
			},
			skipped: 1,
		},
		{
			name:    "text",
			in:      "http://a.example/1\r\n\r\n  https://a.example/2  \n# comment\nftp://a.example/3\nHTTPS://A.EXAMPLE/4\nhttp://\nhttp://a.example/" + strings.Repeat("x", 40000) + "\nhttp://a.example/5",
			kind:    Text,
			want:    []Entry{e("http://a.example/1"), e("https://a.example/2"), e("HTTPS://A.EXAMPLE/4"), e("http://a.example/5")},
			skipped: 4,
		},
		{
			name:    "text without a URL line",
			in:      "Hello\nworld\n",
			kind:    Text,
			skipped: 2,
			err:     "ErrMalformed",
		},
		{
			name:    "robots.txt is not a sitemap",
			in:      "User-agent: *\nDisallow: /\n\nSitemap: http://a.example/sitemap.xml\n",
			kind:    Text,
			skipped: 3,
			err:     "ErrMalformed",
		},
		{name: "empty", in: "", err: "ErrEmpty"},
		{name: "white space", in: " \r\n\t\n", err: "ErrEmpty"},
		{name: "BOM only", in: "\xef\xbb\xbf\n", err: "ErrEmpty"},
		{name: "binary", in: "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", err: "ErrMalformed"},
		{name: "UTF-16", in: "\xff\xfe<\x00u\x00", err: "ErrMalformed"},
		{name: "HTML page", in: "<!DOCTYPE html>\n<html><body>Not found</body></html>", err: "ErrMalformed"},
		{name: "declaration only", in: `<?xml version="1.0"?>` + "\n", err: "ErrMalformed"},
		{name: "syntax error before any entry", in: `<urlset><url><loc>http://a.example/</loc></url`, kind: URLSet, err: "ErrMalformed"},
		{name: "not a tag", in: `< urlset>`, err: "ErrMalformed"},
		{
			name: "syntax error after entries",
			in:   urlset(`<url><loc>http://a.example/1</loc></url><url><loc>http://a.example/2</loc></url><url><loc>http://a.example/3</loc></url <url>`),
			kind: URLSet,
			want: []Entry{e("http://a.example/1"), e("http://a.example/2")},
			err:  "ErrMalformed",
		},
		{
			name: "file cut after entries",
			in:   `<urlset><url><loc>http://a.example/1</loc></url><url><loc>http://a.exa`,
			kind: URLSet,
			want: []Entry{e("http://a.example/1")},
			err:  "ErrMalformed",
		},
		{
			name: "file cut between elements",
			in:   `<urlset><url><loc>http://a.example/1</loc></url>`,
			kind: URLSet,
			want: []Entry{e("http://a.example/1")},
			err:  "ErrMalformed",
		},
		{
			name: "nesting too deep",
			in:   "<urlset>" + strings.Repeat("<a>", 300),
			kind: URLSet,
			err:  "ErrMalformed",
		},
		{
			name: "nesting of 255 is fine",
			in:   "<urlset><url><loc>http://a.example/</loc>" + strings.Repeat("<a>", 253) + strings.Repeat("</a>", 253) + "</url></urlset>",
			kind: URLSet,
			want: []Entry{e("http://a.example/")},
		},
		{
			name: "token longer than 1 MiB",
			in:   urlset(`<url><loc>http://a.example/1</loc></url><!--` + strings.Repeat("<x>", 1<<19) + `--><url><loc>http://a.example/2</loc></url>`),
			kind: URLSet,
			want: []Entry{e("http://a.example/1")},
			err:  "ErrMalformed",
		},
		{
			name:  "MaxEntries reached",
			in:    urlset(`<url><loc>http://a.example/1</loc></url><url><loc>http://a.example/2</loc></url><url><loc>http://a.example/3</loc></url>`),
			o:     Options{MaxEntries: 2},
			kind:  URLSet,
			want:  []Entry{e("http://a.example/1"), e("http://a.example/2")},
			trunc: true,
		},
		{
			name: "MaxEntries exactly",
			in:   urlset(`<url><loc>http://a.example/1</loc></url><url><loc>http://a.example/2</loc></url><url></url>`),
			o:    Options{MaxEntries: 2},
			kind: URLSet,
			want: []Entry{e("http://a.example/1"), e("http://a.example/2")},
			// The empty <url> after the last entry is not one too many.
			skipped: 1,
		},
		{
			name:  "MaxBytes cuts an entry",
			in:    `<urlset><url><loc>http://a.example/1</loc></url><url><loc>http://a.example/2</loc></url>`,
			o:     Options{MaxBytes: int64(len(`<urlset><url><loc>http://a.example/1</loc></url><url><loc>http://a.exa`))},
			kind:  URLSet,
			want:  []Entry{e("http://a.example/1")},
			trunc: true,
		},
		{
			name: "MaxBytes exactly",
			in:   `<urlset><url><loc>http://a.example/1</loc></url></urlset>`,
			o:    Options{MaxBytes: int64(len(`<urlset><url><loc>http://a.example/1</loc></url></urlset>`))},
			kind: URLSet,
			want: []Entry{e("http://a.example/1")},
		},
		{
			name:  "MaxBytes cuts a text line",
			in:    "http://a.example/1\nhttp://a.example/22\n",
			o:     Options{MaxBytes: int64(len("http://a.example/1\nhttp://a.example/2"))},
			kind:  Text,
			want:  []Entry{e("http://a.example/1")},
			trunc: true,
		},
		{
			name:  "MaxEntries in text",
			in:    "http://a.example/1\nhttp://a.example/2\n",
			o:     Options{MaxEntries: 1},
			kind:  Text,
			want:  []Entry{e("http://a.example/1")},
			trunc: true,
		},
		{
			name:  "MaxBytes of white space",
			in:    strings.Repeat(" ", 100) + "<urlset/>",
			o:     Options{MaxBytes: 50},
			trunc: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, compressed := range []bool{false, true} {
				in := []byte(tt.in)
				if compressed {
					in = gz(t, tt.in)
				}
				got, res, err := collect(t, in, tt.o)
				if errClass(err) != classOrNil(tt.err) {
					t.Errorf("Parse(%q) (gzip %v) error = %v, want %s", short(tt.in), compressed, err, classOrNil(tt.err))
				}
				if err != nil && !strings.HasPrefix(err.Error(), "sitemap: ") {
					t.Errorf("error %q lacks the package prefix", err)
				}
				wantRes := Result{Kind: tt.kind, Entries: len(tt.want), Skipped: tt.skipped, Truncated: tt.trunc}
				if res != wantRes {
					t.Errorf("Parse(%q) (gzip %v) = %+v, want %+v", short(tt.in), compressed, res, wantRes)
				}
				if !equalEntries(got, tt.want) {
					t.Errorf("Parse(%q) (gzip %v) entries:\n got %v\nwant %v", short(tt.in), compressed, got, tt.want)
				}
			}
		})
	}
}

func classOrNil(s string) string {
	if s == "" {
		return "nil"
	}
	return s
}

func equalEntries(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.URL != y.URL || !x.LastMod.Equal(y.LastMod) || x.ChangeFreq != y.ChangeFreq || x.Priority != y.Priority {
			return false
		}
		// Same instant is not enough: the offset is kept.
		_, xo := x.LastMod.Zone()
		_, yo := y.LastMod.Zone()
		if xo != yo {
			return false
		}
	}
	return true
}

func TestGzip(t *testing.T) {
	doc := urlset(`<url><loc>http://a.example/1</loc></url><url><loc>http://a.example/2</loc></url>`)
	full := gz(t, doc)
	tests := []struct {
		name    string
		in      []byte
		entries int
		err     string
	}{
		{"one layer", full, 2, "nil"},
		{"two layers (an undecoded Content-Encoding)", gz(t, string(full)), 2, "nil"},
		{"concatenated members", append(gz(t, doc[:40]), gz(t, doc[40:])...), 2, "nil"},
		{"empty content", gz(t, ""), 0, "ErrEmpty"},
		{"bad header", []byte("\x1f\x8b\x08\x63corrupted data"), 0, "ErrMalformed"},
		{"magic only", []byte("\x1f\x8b"), 0, "ErrMalformed"},
		{"cut stream", full[:len(full)-20], 1, "ErrMalformed"},
		// Reading stops at the root's end tag, before the gzip trailer:
		// the XML was whole, so a bad checksum goes unnoticed.
		{"bad checksum after the root", corruptCRC(full), 2, "nil"},
		// A text sitemap is read to the end, trailer included.
		{"bad checksum in text", corruptCRC(gz(t, "http://a.example/1\nhttp://a.example/2\n")), 2, "ErrMalformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, res, err := collect(t, tt.in, Options{})
			if errClass(err) != tt.err || res.Entries != tt.entries {
				t.Errorf("Parse = %+v, %v; want %d entries, %s", res, err, tt.entries, tt.err)
			}
			if tt.err == "ErrMalformed" && err != nil && !strings.Contains(err.Error(), "gzip") {
				t.Errorf("error %q does not mention gzip", err)
			}
		})
	}
}

// corruptCRC flips the CRC-32 of a one-member gzip file.
func corruptCRC(b []byte) []byte {
	b = bytes.Clone(b)
	b[len(b)-8] ^= 0xff
	return b
}

func TestCallbackError(t *testing.T) {
	stop := errors.New("enough")
	in := urlset(`<url><loc>http://a.example/1</loc></url><url><loc>http://a.example/2</loc></url><url><loc>http://a.example/3</loc></url>`)
	n := 0
	res, err := Parse(strings.NewReader(in), Options{}, func(Entry) error {
		if n++; n == 2 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("Parse error = %v, want fn's error unchanged", err)
	}
	if want := (Result{Kind: URLSet, Entries: 2}); res != want {
		t.Errorf("Parse = %+v, want %+v", res, want)
	}
}

func TestReadError(t *testing.T) {
	broken := errors.New("connection reset")
	in := urlset(`<url><loc>http://a.example/1</loc></url><url><loc>http://a.example/2</loc></url>`)
	for _, compressed := range []bool{false, true} {
		b := []byte(in)
		if compressed {
			b = gz(t, in)
		}
		r := io.MultiReader(bytes.NewReader(b[:len(b)/2]), iotest.ErrReader(broken))
		res, err := Parse(r, Options{}, nil)
		if !errors.Is(err, broken) || errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), "sitemap: read: ") {
			t.Errorf("gzip %v: Parse error = %v, want a read error wrapping %v", compressed, err, broken)
		}
		if res.Truncated {
			t.Errorf("gzip %v: Parse = %+v, want not truncated", compressed, res)
		}
	}
}

func TestNilCallbackCounts(t *testing.T) {
	res, err := Parse(strings.NewReader("http://a.example/1\nhttp://a.example/2\n"), Options{}, nil)
	if err != nil || res.Entries != 2 {
		t.Errorf("Parse = %+v, %v; want 2 entries", res, err)
	}
}

func TestOptions(t *testing.T) {
	var o Options
	o.Default()
	if o.MaxEntries != 50_000 || o.MaxBytes != 50*1024*1024 {
		t.Errorf("Default() = %+v", o)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
	bad := Options{MaxEntries: -1}
	if _, err := Parse(strings.NewReader("http://a.example/"), bad, nil); err == nil {
		t.Errorf("Parse with %+v: no error", bad)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Unknown: "unknown", URLSet: "urlset", Index: "sitemapindex", Text: "text", RSS: "rss", Atom: "atom", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestParseW3C(t *testing.T) {
	utc := time.UTC
	tests := []struct {
		in   string
		want time.Time // zero: invalid
		off  int
	}{
		{"2024", time.Date(2024, 1, 1, 0, 0, 0, 0, utc), 0},
		{"2024-02", time.Date(2024, 2, 1, 0, 0, 0, 0, utc), 0},
		{"2024-02-29", time.Date(2024, 2, 29, 0, 0, 0, 0, utc), 0},
		{"2024-02-12T12:34Z", time.Date(2024, 2, 12, 12, 34, 0, 0, utc), 0},
		{"2024-02-12T12:34:56Z", time.Date(2024, 2, 12, 12, 34, 56, 0, utc), 0},
		{"2024-02-12T12:34:56.123+01:00", time.Date(2024, 2, 12, 11, 34, 56, 123e6, utc), 3600},
		{"2024-02-12T12:34:56,5-05:30", time.Date(2024, 2, 12, 18, 4, 56, 5e8, utc), -19800},
		{"2024-02-12T12:34:56.1234567891Z", time.Date(2024, 2, 12, 12, 34, 56, 123456789, utc), 0},
		{"2024-02-12T12:34:56+0100", time.Date(2024, 2, 12, 11, 34, 56, 0, utc), 3600},
		{"2024-02-12T12:34:56+01", time.Date(2024, 2, 12, 11, 34, 56, 0, utc), 3600},
		{"2024-02-12T12:34:56+00:00", time.Date(2024, 2, 12, 12, 34, 56, 0, utc), 0},
		{"2024-02-12 12:34:56", time.Date(2024, 2, 12, 12, 34, 56, 0, utc), 0},
		{"2024-02-12t12:34:56z", time.Date(2024, 2, 12, 12, 34, 56, 0, utc), 0},
		{"2016-12-31T23:59:60Z", time.Date(2017, 1, 1, 0, 0, 0, 0, utc), 0},
		{"", time.Time{}, 0},
		{"24", time.Time{}, 0},
		{"2024-2-12", time.Time{}, 0},
		{"2023-02-29", time.Time{}, 0},
		{"2024-00-10", time.Time{}, 0},
		{"2024-02-12T", time.Time{}, 0},
		{"2024-02-12T24:00:00Z", time.Time{}, 0},
		{"2024-02-12T12:34:56.Z", time.Time{}, 0},
		{"2024-02-12T12:34:56+1", time.Time{}, 0},
		{"2024-02-12T12:34:56 UTC", time.Time{}, 0},
		{"Mon, 12 Feb 2024 12:34:56 GMT", time.Time{}, 0},
		{"２０２４", time.Time{}, 0},
	}
	for _, tt := range tests {
		var zones map[int]*time.Location
		got, ok := parseW3C([]byte(tt.in), &zones)
		if ok != !tt.want.IsZero() || ok && !got.Equal(tt.want) {
			t.Errorf("parseW3C(%q) = %v, %v; want %v", tt.in, got, ok, tt.want)
			continue
		}
		if _, off := got.Zone(); ok && off != tt.off {
			t.Errorf("parseW3C(%q) offset = %d, want %d", tt.in, off, tt.off)
		}
	}
}

func TestParseRFC822(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"Mon, 12 Feb 2024 12:34:56 +0100", time.Date(2024, 2, 12, 11, 34, 56, 0, time.UTC)},
		{"Mon, 12 Feb 2024 12:34:56 GMT", time.Date(2024, 2, 12, 12, 34, 56, 0, time.UTC)},
		{"Mon, 12 Feb 2024 12:34:56 PDT", time.Date(2024, 2, 12, 19, 34, 56, 0, time.UTC)},
		{"Mon, 12 Feb 2024 12:34:56 XYZ", time.Date(2024, 2, 12, 12, 34, 56, 0, time.UTC)},
		{"Mon, 2 Feb 2024 12:34 +0000", time.Date(2024, 2, 2, 12, 34, 0, 0, time.UTC)},
		{"12 Feb 2024 12:34:56 -0500", time.Date(2024, 2, 12, 17, 34, 56, 0, time.UTC)},
		{"Mon, 12 Feb 24 12:34:56 EST", time.Date(2024, 2, 12, 17, 34, 56, 0, time.UTC)},
		{"yesterday", time.Time{}},
	}
	for _, tt := range tests {
		if got := parseRFC822(tt.in); !got.Equal(tt.want) {
			t.Errorf("parseRFC822(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestCaps checks the protocol's limit with the default options: a file of
// 50,001 URLs gives 50,000 and Truncated, in each format.
func TestCaps(t *testing.T) {
	formats := map[string]func(n int) []byte{
		"urlset": func(n int) []byte {
			var b bytes.Buffer
			b.WriteString("<urlset " + ns + ">\n")
			for i := range n {
				fmt.Fprintf(&b, "<url><loc>https://www.example.com/page/%d</loc></url>\n", i)
			}
			b.WriteString("</urlset>\n")
			return b.Bytes()
		},
		"text": func(n int) []byte {
			var b bytes.Buffer
			for i := range n {
				fmt.Fprintf(&b, "https://www.example.com/page/%d\n", i)
			}
			return b.Bytes()
		},
	}
	for name, gen := range formats {
		for _, n := range []int{50_000, 50_001} {
			in := gen(n)
			last := ""
			res, err := Parse(bytes.NewReader(in), Options{}, func(e Entry) error {
				last = e.URL
				return nil
			})
			wantTrunc := n > 50_000
			if err != nil || res.Entries != 50_000 || res.Truncated != wantTrunc {
				t.Errorf("%s of %d URLs: Parse = %+v, %v; want 50000 entries, truncated %v", name, n, res, err, wantTrunc)
			}
			if want := "https://www.example.com/page/49999"; last != want {
				t.Errorf("%s of %d URLs: last entry %q, want %q", name, n, last, want)
			}
		}
	}
}

// sitemapOf returns a urlset of n URLs with every field, as a generator
// writes them.
func sitemapOf(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<urlset " + ns + ">\n")
	for i := range n {
		fmt.Fprintf(&b, "  <url>\n    <loc>https://www.example.com/page/%d</loc>\n    <lastmod>2024-02-12T12:34:56+01:00</lastmod>\n"+
			"    <changefreq>weekly</changefreq>\n    <priority>0.5</priority>\n  </url>\n", i)
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}
