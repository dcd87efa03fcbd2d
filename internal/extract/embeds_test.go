package extract

import (
	"net/url"
	"slices"
	"testing"
)

func TestHTMLEmbeds(t *testing.T) {
	page, _ := url.Parse("http://example.com/d/page.html")
	body := `<!DOCTYPE html><html><head>
<link rel="stylesheet" href="/s/site.css">
<link rel="Shortcut Icon" href="fav.ico">
<link rel="next" href="/d/2.html">
<link rel="preload" href="//cdn.example.net/f.woff2" as="font">
<style>@import "print.css"; body { background: url('bg.png') }</style>
<script src="app.js"></script>
<base href="http://example.com/b/">
</head><body>
<img src="a.png" srcset="a-2x.png 2x, a-3x.png 3x">
<picture><source srcset="p.webp 1x,p2.webp 2x"><img src="p.jpg"></picture>
<video src=v.mp4 poster=poster.jpg><track src=sub.vtt></video>
<audio><source src=s.ogg></audio>
<object data=o.svg></object><embed src=e.swf>
<input type=image src=btn.png><input type=text src=no.png>
<img src="data:image/png;base64,AAAA"><img src="">
<a href="x.html">x</a><iframe src="frame.html"></iframe>
</body></html>`
	d, err := HTML(page, []byte(body), &Options{Embeds: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range d.Embeds {
		got = append(got, e.Tag+" "+e.Attr+" "+e.URL)
	}
	want := []string{
		"link href http://example.com/s/site.css",
		"link href http://example.com/b/fav.ico",
		"link href http://cdn.example.net/f.woff2",
		"style import http://example.com/b/print.css",
		"style url http://example.com/b/bg.png",
		"script src http://example.com/b/app.js",
		"img src http://example.com/b/a.png",
		"img srcset http://example.com/b/a-2x.png",
		"img srcset http://example.com/b/a-3x.png",
		"source srcset http://example.com/b/p.webp",
		"source srcset http://example.com/b/p2.webp",
		"img src http://example.com/b/p.jpg",
		"video src http://example.com/b/v.mp4",
		"video poster http://example.com/b/poster.jpg",
		"track src http://example.com/b/sub.vtt",
		"source src http://example.com/b/s.ogg",
		"object data http://example.com/b/o.svg",
		"embed src http://example.com/b/e.swf",
		"input src http://example.com/b/btn.png",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Embeds =\n%q\nwant\n%q", got, want)
	}
	var links []string
	for _, l := range d.Links {
		links = append(links, l.URL)
	}
	wantLinks := []string{"http://example.com/d/2.html", "http://example.com/b/x.html", "http://example.com/b/frame.html"}
	if !slices.Equal(links, wantLinks) {
		t.Errorf("Links = %q, want %q (a stylesheet is not a link with Embeds)", links, wantLinks)
	}

	// Without Options.Embeds: no embeds, and a stylesheet <link> is a link as before.
	d, _ = HTML(page, []byte(body), nil)
	if len(d.Embeds) != 0 || len(d.Links) != 6 {
		t.Errorf("without Embeds: %d embeds, %d links; want 0 and 6", len(d.Embeds), len(d.Links))
	}
}

func TestSrcset(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a.png", []string{"a.png"}},
		{" a.png 1x , b.png 2x ", []string{"a.png", "b.png"}},
		{"a.png,b.png", []string{"a.png,b.png"}}, // one URL, as the standard reads it
		{"a.png, b.png", []string{"a.png", "b.png"}},
		{"a.png 100w, b.png (max-width: 5px, x) 2x, c.png", []string{"a.png", "b.png", "c.png"}},
		{"data:image/png;base64,AA 1x, d.png", []string{"data:image/png;base64,AA", "d.png"}},
		{",,, ", nil},
	} {
		var got []string
		forSrcset(tc.in, func(ref string) bool { got = append(got, ref); return true })
		if !slices.Equal(got, tc.want) {
			t.Errorf("srcset %q = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCSS(t *testing.T) {
	sheet, _ := url.Parse("http://example.com/s/site.css")
	css := `@charset "utf-8";
@import url("base.css") screen;
@IMPORT 'print.css';
/* url(commented.png) @import "no.css"; */
.a { background: URL( img/bg.png ) no-repeat; content: "url(in-string.png)" }
@font-face { font-family: X; src: url("//cdn.example.net/f.woff2") format("woff2"), url(f.woff) }
.b { background-image: url('\69 mg/esc.png') }
.c { background: url(data:image/png;base64,AAAA) }
.d { cursor: url() }
.e { mask: xurl(no.png) }`
	links, truncated := CSS(sheet, []byte(css), 0)
	var got []string
	for _, l := range links {
		got = append(got, l.Attr+" "+l.URL)
	}
	want := []string{
		"import http://example.com/s/base.css",
		"import http://example.com/s/print.css",
		"url http://example.com/s/img/bg.png",
		"url http://cdn.example.net/f.woff2",
		"url http://example.com/s/f.woff",
		"url http://example.com/s/img/esc.png",
	}
	if truncated || !slices.Equal(got, want) {
		t.Errorf("CSS = %q (truncated %v), want\n%q", got, truncated, want)
	}
	if links, truncated := CSS(sheet, []byte(css), 2); len(links) != 2 || !truncated {
		t.Errorf("CSS with max 2 = %d links, truncated %v; want 2, true", len(links), truncated)
	}
}
