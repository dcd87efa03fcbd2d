package extract

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/godwit-crawler/godwit/internal/simhash"
)

// FuzzHTML feeds random pages, Content-Types and byte order marks: no
// panic, bounded output, absolute http(s) links, valid UTF-8 everywhere.
func FuzzHTML(f *testing.F) {
	f.Add("http://example.com/a/b", "", `<base href="../x/"><a href=y rel=NoFollow>t</a><title> T </title>`, byte(0))
	f.Add("https://example.com/", "text/html", `<A HREF='\\h\p?q#f'><iframe src=//o/i></iframe><noscript><a href=/n>`, byte(0))
	f.Add("http://example.com/", "text/html; charset=utf-8", `<svg><title>s</title></svg><title>x`+strings.Repeat("é", 300)+`</title>`, byte(1))
	f.Add("http://example.com/", "", "<a href=\"java\tscript:x\"><a href='#'><a href=' /%zz '><area href=mailto:x>", byte(0))
	f.Add("http://example.com/", "", `<META NAME=Robots CONTENT="noindex, unavailable_after: Fri, 25 Jun 2010 15:00:00 PST"><meta name=godwit content=none><a href=/x rel="UGC,nofollow">`, byte(0))
	f.Add("http://example.com/", "text/html; charset=\"Shift_JIS\"", "<title>\x93\xfa</title><a href=\"/\x93\xfa?q=\x93\xfa&r=&#x1F600;\">", byte(0))
	f.Add("http://example.com/", "text/html;charset=latin1", "<a href=\"/caf\xe9?q=caf\xe9#\xe9\">", byte(0))
	f.Add("http://example.com/", "", "<meta http-equiv=content-type content='text/html; charset=euc-kr'><a href=?q=\xc7\xd1>", byte(0))
	f.Add("http://example.com/", "", "<!--"+strings.Repeat("-", 1100)+"--><meta charset=iso-2022-jp><a href='?q=\x1b$BF|\x1b(B'>", byte(0))
	f.Add("http://example.com/", "text/html; charset=utf-16", "<\x00a\x00 \x00h\x00r\x00e\x00f\x00=\x00x\x00>\x00", byte(2))
	f.Add("http://example.com/", "", "<meta charset=x-user-defined><meta charset=utf-16be><title>\x80\xff</title>", byte(3))
	f.Add("http://example.com/d/", "", `<link rel="Shortcut Icon" href=/f.ico><img src=a.png srcset="b.png 2x, c.png (x,y) 3w,d.png"><style>@import "s.css"; p{background:URL( 'i\\2e png' )}</style><link rel=next href=n>`, byte(4))
	f.Fuzz(func(t *testing.T, pageURL, contentType, body string, bom byte) {
		page, err := url.Parse(pageURL)
		if err != nil || !page.IsAbs() || page.Host == "" {
			return
		}
		body = [...]string{"", "\xEF\xBB\xBF", "\xFF\xFE", "\xFE\xFF"}[bom%4] + body
		const maxLinks = 50
		text := simhash.NewText(len(body))
		embeds := bom&4 != 0
		d, err := HTML(page, []byte(body), &Options{MaxLinks: maxLinks, Agents: []string{"godwit"}, ContentType: contentType, Text: text, Embeds: embeds})
		if err != nil {
			t.Fatalf("HTML(%q): %v", body, err)
		}
		if s := text.String(); len(s) > simhash.MaxText || !utf8.ValidString(s) || strings.TrimSpace(s) != s {
			t.Fatalf("bad visible text %q", s)
		}
		if len(d.Links) > maxLinks || len(d.Embeds) > maxLinks {
			t.Fatalf("%d links and %d embeds, more than MaxLinks", len(d.Links), len(d.Embeds))
		}
		if !embeds && len(d.Embeds) > 0 {
			t.Fatalf("%d embeds without Options.Embeds", len(d.Embeds))
		}
		for _, l := range d.Embeds {
			checkAbsolute(t, l)
		}
		if len(d.Title) > MaxTitle || !utf8.ValidString(d.Title) || strings.Trim(d.Title, " \t\n\f\r") != d.Title {
			t.Fatalf("bad title %q", d.Title)
		}
		if _, _, ok := lookup(d.Encoding); !ok {
			t.Fatalf("encoding %q is not an encoding", d.Encoding)
		}
		switch d.EncodingSource {
		case SourceBOM, SourceHeader, SourceMeta, SourceSniffed, SourceDefault:
		default:
			t.Fatalf("encoding source %q", d.EncodingSource)
		}
		for _, l := range d.Links {
			if !utf8.ValidString(l.URL) || !utf8.ValidString(l.Rel) {
				t.Fatalf("link %+v is not valid UTF-8", l)
			}
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

// checkAbsolute fails t unless l is an absolute http(s) URL in valid UTF-8.
func checkAbsolute(t *testing.T, l Link) {
	t.Helper()
	if !utf8.ValidString(l.URL) {
		t.Fatalf("link %+v is not valid UTF-8", l)
	}
	u, err := url.Parse(l.URL)
	if err != nil {
		t.Fatalf("link %q does not parse: %v", l.URL, err)
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" || u.Host == "" {
		t.Fatalf("link %q is not an absolute http(s) URL", l.URL)
	}
}

// FuzzCSS feeds random stylesheets: no panic, at most max links, each an
// absolute http(s) URL.
func FuzzCSS(f *testing.F) {
	f.Add(`@import url("a.css") screen; @IMPORT 'b.css'; /* url(no) */ p { background: url( c.png ) } q{src:url("d\\.woff2")}`)
	f.Add(`a{b:url(`)
	f.Add(`@import "unterminated`)
	f.Add(`x{y:u\rl(z)} z{w:url('\31 23')} v{w:xurl(no)}`)
	f.Fuzz(func(t *testing.T, css string) {
		sheet, _ := url.Parse("http://example.com/s/site.css")
		const max = 20
		links, _ := CSS(sheet, []byte(css), max)
		if len(links) > max {
			t.Fatalf("%d links, more than %d", len(links), max)
		}
		for _, l := range links {
			checkAbsolute(t, l)
			if l.Tag != "css" || l.Attr != "url" && l.Attr != "import" {
				t.Fatalf("link %+v: unexpected tag/attr", l)
			}
		}
	})
}
