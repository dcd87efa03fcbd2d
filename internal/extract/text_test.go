package extract

import (
	"net/url"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/simhash"
)

// TestTextOnePass: the visible text collected while extracting links
// (Options.Text) is the text simhash.VisibleText makes in a pass of its
// own, links and all: link tags' attributes are read once, for both.
func TestTextOnePass(t *testing.T) {
	pages := []string{
		"",
		"hello   world",
		`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Title</title><link rel=stylesheet href=a.css></head><body><h1>Heading</h1><p>Body text.</p></body></html>`,
		`<p>a</p><script>var x = "<p>not text</p>";</script><style>p{color:red}</style><p>b</p>`,
		`a<noscript>enable <a href=/js>JS</a></noscript>b<template><p>t</p></template>c<svg><text>s</text></svg>d<math><mi>x</mi></math>e`,
		`a<noembed><p>x</p></noembed>b<noframes>y <a href=/f>f</a></noframes>c`,
		`Caf&eacute; &amp; cr&#xE8;me &lt;br&gt; &copy;2026 &bogus; &#0;`,
		`<p>G<b>od</b>w<span>it</span> <a href=/>link</a>s</p>`,
		`<nav><a href=/>Home</a> <a href=/about>About</a></nav><main>Content <a href=/x>x</a></main>`,
		`<header>Site</header><article><header><h1>Headline</h1></header><p>Story</p><footer>By me</footer></article><footer>Copyright</footer>`,
		`<a href=/a hidden>hidden link</a> <a role=navigation href=/b>nav link</a> <a href=/c role="button">shown</a> <A HREF=/d HIDDEN>x</A>`,
		`<frameset><frame src=/f1 hidden>in frame</frame><frame src=/f2></frameset>after`,
		`<iframe src=/i>no</iframe><area href=/m hidden>text<link href=/l hidden>more`,
		`<base href="http://other.test/"><a href=p>p</a> <div role="Navigation menubar">menu</div>tail`,
		`<ul role="Navigation menubar"><li>a</li></ul><p>b</p><div role="main">c</div><div role=banner>d</div>`,
		`<p hidden>secret</p><p>shown</p><div hidden=""><div>x</div></div>`,
		`<body><p>a</p><nav>menu</body>b`,
		`<my-very-long-custom-element-name hidden>secret</my-very-long-custom-element-name>visible`,
		`<p <div>text</p><<>> <a href="/q?x=1&amp;y=2">q</a>`,
		"a\xffb\xc3",
		`<title>T</title><svg><title>icon</title></svg>text`,
	}
	page, _ := url.Parse("http://example.test/dir/page")
	for _, p := range pages {
		text := simhash.NewText(len(p))
		if _, err := HTML(page, []byte(p), &Options{Text: text, ContentType: "text/html; charset=utf-8"}); err != nil {
			t.Fatal(err)
		}
		if got, want := text.String(), simhash.VisibleText([]byte(p)); got != want {
			t.Errorf("one-pass text of %q = %q, want %q (simhash.VisibleText)", p, got, want)
		}
	}
}

// TestTextOnePassRestart: a <meta> past the prescan that changes the
// encoding reads the page again; the text is of the second reading only.
func TestTextOnePassRestart(t *testing.T) {
	body := []byte("<p>before</p><!--" + strings.Repeat("x", 1100) + "--><meta charset=iso-8859-2><p>caf\xe9 au lait</p>")
	page, _ := url.Parse("http://example.test/")
	text := simhash.NewText(len(body))
	d, err := HTML(page, body, &Options{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if d.EncodingSource != SourceMeta || text.String() != "before café au lait" {
		t.Errorf("text of a page whose late <meta> names another encoding = %q (encoding %s from %s), want %q", text.String(), d.Encoding, d.EncodingSource, "before café au lait")
	}
}

// TestSignalsOnePassRestart: the render signals of a page read again in
// the encoding a late <meta> names are those of the second pass alone.
func TestSignalsOnePassRestart(t *testing.T) {
	page := `<html><head><script>var x = 1;</script>` + strings.Repeat("<!-- padding -->", 80) +
		`<meta charset="windows-1252"></head><body><div id="root"></div><a href="/a">caf` + "\xc3\xa9" + `</a>` +
		`<noscript>Enable JavaScript</noscript></body></html>`
	d, err := HTML(mustURL("http://example.com/"), []byte(page), &Options{Signals: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Encoding != "windows-1252" || d.EncodingSource != SourceMeta {
		t.Fatalf("encoding %s from %s: the page was not read again", d.Encoding, d.EncodingSource)
	}
	// The body is valid UTF-8, so sniffed as UTF-8 until the <meta>; read
	// again as windows-1252, "caf\xc3\xa9" is "cafÃ©", 7 bytes in UTF-8.
	want := Signals{TextBytes: 7, ScriptBytes: 10, Scripts: 1, Links: 1, EmptyRoot: true, NoScriptJS: true}
	if d.Signals != want {
		t.Errorf("signals %+v, want %+v", d.Signals, want)
	}
}
