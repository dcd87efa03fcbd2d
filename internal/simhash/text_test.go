package simhash

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestVisibleText(t *testing.T) {
	tests := []struct {
		name, page, want string
	}{
		{"empty", "", ""},
		{"plain text", "hello   world", "hello world"},
		{"document", `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Title</title>
			<link rel=stylesheet href=a.css></head><body><h1>Heading</h1><p>Body text.</p></body></html>`,
			"Heading Body text."},
		{"script and style", `<p>a</p><script>var x = "<p>not text</p>";</script><style>p{color:red}</style><p>b</p>`, "a b"},
		{"script with end tag in a string", `a<script>document.write("</scr" + "ipt>")</script>b`, "a b"},
		{"noscript template svg math", `a<noscript>enable JS</noscript>b<template><p>t</p></template>c<svg><text>s</text></svg>d<math><mi>x</mi></math>e`, "a b c d e"},
		{"noembed noframes", `a<noembed><p>x</p></noembed>b<noframes>y</noframes>c`, "a b c"},
		{"self-closing svg", `a<svg/>b<svg viewBox="0 0 1 1"><path d=""/></svg>c`, "a b c"},
		{"comments do not separate", `a<!-- hidden --> b<!-->c`, "a bc"},
		{"entities", `Caf&eacute; &amp; cr&#xE8;me &lt;br&gt; &copy;2026 &bogus; &#0;`, "Café & crème <br> ©2026 &bogus; \uFFFD"},
		{"legacy entity without semicolon", `&notit; &copy 2026`, "¬it; © 2026"},
		{"nbsp collapses", "a&nbsp;&nbsp;b\u00a0\u2003c", "a b c"},
		{"whitespace", "\n\t  a \r\n\t b  \n", "a b"},
		{"inline tags join", `<p>G<b>od</b>w<span>it</span> <a href=/>link</a>s</p>`, "Godwit links"},
		{"blocks separate", `<div>a</div><div>b</div><p>c<br>d</p><li>e</li><td>f</td>`, "a b c d e f"},
		{"nav", `<nav><a href=/>Home</a> <a href=/about>About</a></nav><main>Content</main>`, "Content"},
		{"nested nav", `<nav>x<nav>y</nav>z</nav>w`, "w"},
		{"page header and footer", `<header>Site name</header><p>Content</p><footer>Copyright</footer>`, "Content"},
		{"article header kept", `<header>Site</header><article><header><h1>Headline</h1></header><p>Story</p><footer>By me</footer></article><footer>Copyright</footer>`, "Headline Story By me"},
		{"aside", `<p>Main</p><aside>Related <a>links</a></aside><p>More</p>`, "Main More"},
		{"role navigation", `<div role="navigation"><div>Menu</div><div>Items</div></div><div>Content</div>`, "Content"},
		{"role list", `<ul role="Navigation menubar"><li>a</li></ul><p>b</p><div role="main">c</div><div role=banner>d</div>`, "b c"},
		{"hidden", `<p hidden>secret</p><p>shown</p><div hidden=""><div>x</div></div>`, "shown"},
		{"select", `Pick <select><option>One<option>Two</select> now`, "Pick now"},
		{"title in body svg dropped", `<svg><title>icon</title></svg>text`, "text"},
		{"textarea kept", `<textarea>typed &amp; text</textarea>`, "typed & text"},
		{"unclosed nav ends at body end", `<body><p>a</p><nav>menu</body>b`, "a b"},
		{"self-closing html element opens", `a<nav/>menu</nav>b`, "a b"},
		{"void tags inside skipped", `<nav><img src=x><br>menu<hr></nav>text`, "text"},
		{"uppercase tags", `<NAV>menu</NAV><SCRIPT>x</SCRIPT><P>Text</P>`, "Text"},
		{"cdata in html is a comment", `a<![CDATA[b]]>c`, "ac"},
		{"invalid UTF-8", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"malformed", `<p <div>text</p><<>>`, "text <<>>"},
	}
	for _, tt := range tests {
		if got := VisibleText([]byte(tt.page)); got != tt.want {
			t.Errorf("%s: VisibleText(%q) = %q, want %q", tt.name, tt.page, got, tt.want)
		}
	}
}

func TestVisibleTextCap(t *testing.T) {
	for _, tc := range []struct {
		name string
		unit string
	}{
		{"ascii words", "word "},
		{"three-byte runes", "語"},
		{"four-byte runes split by tags", "😀<p>"},
	} {
		page := strings.Repeat(tc.unit, 2*MaxText/len(tc.unit)+1)
		got := VisibleText([]byte(page))
		if len(got) > MaxText || len(got) < MaxText-4 {
			t.Errorf("%s: %d bytes of text, want %d or a few less", tc.name, len(got), MaxText)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: text cut inside a character", tc.name)
		}
	}
}

func FuzzVisibleText(f *testing.F) {
	for _, s := range []string{
		"", "<p>a</p>", "<nav>x</nav>y", "<script>x</script>", "&amp;&#xFFFFFF;&#xD800;",
		"<svg/><math/>", "<div role=navigation hidden>x</div>", "a\xffb", "<header><article><footer>",
		"<plaintext><p>x", "<textarea>&lt;", "<title>t</title>", "<!--", "<a\x00b>c",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, page []byte) {
		got := VisibleText(page)
		if len(got) > MaxText {
			t.Fatalf("VisibleText returned %d bytes, more than MaxText", len(got))
		}
		if !utf8.ValidString(got) {
			t.Fatalf("VisibleText(%q) = %q, not valid UTF-8", page, got)
		}
		if strings.HasPrefix(got, " ") || strings.HasSuffix(got, " ") || strings.Contains(got, "  ") {
			t.Fatalf("VisibleText(%q) = %q: white space not collapsed", page, got)
		}
		if strings.ContainsFunc(got, func(r rune) bool { return r != ' ' && isSpace(r) }) {
			t.Fatalf("VisibleText(%q) = %q: white space other than one space", page, got)
		}
		_ = Fingerprint(got)
	})
}

// TestWordHasherIsFingerprint: a Text of NewTextFingerprint, which hashes
// words as the text is written and keeps none of it, gives Fingerprint of
// the text a Text of NewText keeps, for every page of TestVisibleText's
// kind and for random pages of words in several scripts, inline and block
// tags, entities, invalid bytes and text over MaxText; also after Reset.
func TestWordHasherIsFingerprint(t *testing.T) {
	pages := []string{"", "a", "hello   world", "G<b>od</b>w<span>it</span> x", "日本語のテキスト and English",
		"Café crème naïve", "a\xffb\xc3", "&copy;2026 &amp; more", "x<p>y</p>z", "ऋषिकेश हिन्दी",
		strings.Repeat("word ", MaxText/5+3), strings.Repeat("日", MaxText/3+1)}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"word", "Word", "WORD", " ", "\n", "<b>", "</b>", "<p>", "</p>", "<nav>", "</nav>",
		"日本", "カタカナ", "ひらがな", "é", "e\u0301", "ß", "İ", "Ω", "1,000", "a-b", "&amp;", "&nbsp;", "\xff", "\u00a0",
		"<br>", "<span>", "</span>", "x", "\u2003", "🙂", "ﬁ", "ǅ"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		pages = append(pages, b.String())
	}
	kept, streamed := NewText(0), NewTextFingerprint()
	for _, page := range pages {
		for _, reset := range []bool{false, true} {
			if reset {
				kept.feed(strings.NewReader("earlier page <p>text</p>"))
				streamed.feed(strings.NewReader("earlier page <p>text</p>"))
			}
			kept.Reset()
			streamed.Reset()
			kept.feed(strings.NewReader(page))
			streamed.feed(strings.NewReader(page))
			text := kept.String()
			fp, ok := streamed.Fingerprint()
			if fp != Fingerprint(text) || ok != (text != "") || streamed.String() != "" {
				t.Fatalf("page %.200q: streamed fingerprint %x (text %v), want %x of %.200q", page, fp, ok, Fingerprint(text), text)
			}
		}
	}
}
