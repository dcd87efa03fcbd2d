package extract

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzHTML(f *testing.F) {
	f.Add("http://example.com/a/b", `<base href="../x/"><a href=y rel=NoFollow>t</a><title> T </title>`)
	f.Add("https://example.com/", `<A HREF='\\h\p?q#f'><iframe src=//o/i></iframe><noscript><a href=/n>`)
	f.Add("http://example.com/", `<svg><title>s</title></svg><title>x`+strings.Repeat("é", 300)+`</title>`)
	f.Add("http://example.com/", "<a href=\"java\tscript:x\"><a href='#'><a href=' /%zz '><area href=mailto:x>")
	f.Add("http://example.com/", `<META NAME=Robots CONTENT="noindex, unavailable_after: Fri, 25 Jun 2010 15:00:00 PST"><meta name=godwit content=none><a href=/x rel="UGC,nofollow">`)
	f.Fuzz(func(t *testing.T, pageURL, body string) {
		page, err := url.Parse(pageURL)
		if err != nil || !page.IsAbs() || page.Host == "" {
			return
		}
		d, err := HTML(page, []byte(body), &Options{MaxLinks: 50, Agents: []string{"godwit"}})
		if err != nil {
			t.Fatalf("HTML(%q): %v", body, err)
		}
		if len(d.Links) > 50 {
			t.Fatalf("%d links, more than MaxLinks", len(d.Links))
		}
		if len(d.Title) > MaxTitle || !utf8.ValidString(d.Title) || strings.Trim(d.Title, " \t\n\f\r") != d.Title {
			t.Fatalf("bad title %q", d.Title)
		}
		for _, l := range d.Links {
			u, err := url.Parse(l.URL)
			if err != nil {
				t.Fatalf("link %q does not parse: %v", l.URL, err)
			}
			if s := strings.ToLower(u.Scheme); s != "http" && s != "https" || u.Host == "" {
				t.Fatalf("link %q is not an absolute http(s) URL", l.URL)
			}
			switch l.Tag + "/" + l.Attr {
			case "a/href", "area/href", "link/href", "frame/src", "iframe/src":
			default:
				t.Fatalf("link %+v: unexpected tag/attr", l)
			}
		}
	})
}
