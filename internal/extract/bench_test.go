package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/simhash"
)

// benchPage builds a deterministic page of about 50 KiB shaped like a news
// article: a head with styles and scripts, navigation, paragraphs with
// inline links, a comment section and a footer.
func benchPage() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Godwits cross the Pacific in eleven days &amp; nights | The Example Times</title>
<link rel="stylesheet" href="/static/css/main.3f9a.css"><link rel="canonical" href="https://www.example.com/science/godwits">
<link rel="alternate" hreflang="de" href="https://www.example.com/de/science/godwits">
<script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)}; var s='<a href="/not-a-link">';</script>
<style>.nav a{color:#333}.article p{line-height:1.6}</style></head><body>
<header><nav class="nav">`)
	for i := range 60 {
		fmt.Fprintf(&b, `<a href="/section/%d" class="nav-link">Section %d</a> `, i, i)
	}
	b.WriteString(`</nav></header><main class="article"><h1>Godwits cross the Pacific</h1>`)
	for i := 0; b.Len() < 40<<10; i++ {
		fmt.Fprintf(&b, `<p>Paragraph %d of the article. The bar-tailed godwit flies without stopping, `+
			`as <a href="https://research.example.org/papers/%d?ref=news&amp;utm_source=site">study %d</a> showed; `+
			`see also <a href="../related/%d.html" rel="nofollow">related story</a> and `+
			`<a href="#note-%d">note %d</a>. <img src="/img/%d.jpg" alt="a godwit in flight"></p>`+"\n", i, i, i, i, i, i, i)
	}
	b.WriteString(`</main><!-- comments: <a href="/hidden">x</a> --><section class="comments">`)
	for i := 0; b.Len() < 48<<10; i++ {
		fmt.Fprintf(&b, `<div class="comment"><a href="/user/%d">user%d</a> wrote: lovely birds! `+
			`<a href="mailto:user%d@example.com">mail</a> <a href="javascript:reply(%d)">reply</a></div>`+"\n", i, i, i, i)
	}
	b.WriteString(`</section><footer>`)
	for i := 0; b.Len() < 50<<10; i++ {
		fmt.Fprintf(&b, `<a href="https://partner%d.example.net/">Partner %d</a> | `, i, i)
	}
	b.WriteString(`</footer></body></html>`)
	return []byte(b.String())
}

func BenchmarkHTML(b *testing.B) {
	body := benchPage()
	page := mustURL("https://www.example.com/science/godwits")
	d, err := HTML(page, body, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("page %d bytes, %d links", len(body), len(d.Links))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HTML(page, body, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHTMLText is the crawler's pass over a page: links, meta and
// title, and the visible text for the SimHash in the same pass. Compare
// with BenchmarkHTML plus simhash's BenchmarkVisibleText, the two passes
// it replaced.
func BenchmarkHTMLText(b *testing.B) {
	body := benchPage()
	page := mustURL("https://www.example.com/science/godwits")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		text := simhash.NewText(len(body))
		if _, err := HTML(page, body, &Options{Text: text}); err != nil {
			b.Fatal(err)
		}
		if text.String() == "" {
			b.Fatal("no text")
		}
	}
}

// BenchmarkHTMLFingerprint is the crawler's pass over a page as it is
// now: links, meta and title, and the SimHash of the visible text hashed
// word by word as the text is written (simhash.NewTextFingerprint).
// BenchmarkHTMLTextThenFingerprint is the same result the way it was
// computed before: the text kept, then fingerprinted.
func BenchmarkHTMLFingerprint(b *testing.B) {
	body := benchPage()
	page := mustURL("https://www.example.com/science/godwits")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		text := simhash.NewTextFingerprint()
		if _, err := HTML(page, body, &Options{Text: text}); err != nil {
			b.Fatal(err)
		}
		if _, ok := text.Fingerprint(); !ok {
			b.Fatal("no text")
		}
	}
}

func BenchmarkHTMLTextThenFingerprint(b *testing.B) {
	body := benchPage()
	page := mustURL("https://www.example.com/science/godwits")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		text := simhash.NewText(len(body))
		if _, err := HTML(page, body, &Options{Text: text}); err != nil {
			b.Fatal(err)
		}
		if simhash.Fingerprint(text.String()) == 0 {
			b.Fatal("no fingerprint")
		}
	}
}

// BenchmarkHTMLTextEmbeds is the crawler's pass with page requisites on
// (the default): BenchmarkHTMLText plus the page's embeds (its
// stylesheet, its inline <style>, an image per paragraph), collected in
// the same pass.
func BenchmarkHTMLTextEmbeds(b *testing.B) {
	body := benchPage()
	page := mustURL("https://www.example.com/science/godwits")
	d, err := HTML(page, body, &Options{Embeds: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("page %d bytes, %d links, %d embeds", len(body), len(d.Links), len(d.Embeds))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		text := simhash.NewText(len(body))
		if _, err := HTML(page, body, &Options{Text: text, Embeds: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCSS scans a stylesheet of about 50 KiB: rules with url()
// backgrounds, @font-face sources, @imports and comments.
func BenchmarkCSS(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`@charset "utf-8"; @import url("base.css"); @import 'print.css' print;` + "\n")
	for i := 0; sb.Len() < 50<<10; i++ {
		fmt.Fprintf(&sb, ".c%d { color: #333; margin: 0 auto; background: url('img/bg-%d.png') no-repeat } /* rule %d */\n", i, i, i)
		if i%20 == 0 {
			fmt.Fprintf(&sb, "@font-face { font-family: F%d; src: url(\"fonts/f%d.woff2\") format(\"woff2\"), url(fonts/f%d.woff) }\n", i, i, i)
		}
	}
	css := []byte(sb.String())
	sheet := mustURL("https://www.example.com/static/site.css")
	b.SetBytes(int64(len(css)))
	b.ReportAllocs()
	for b.Loop() {
		if links, _ := CSS(sheet, css, 0); len(links) == 0 {
			b.Fatal("no links")
		}
	}
}

// BenchmarkHTMLTwoPasses is what BenchmarkHTMLText replaced: extraction,
// then the visible text in a second tokenizer pass over the decoded page.
func BenchmarkHTMLTwoPasses(b *testing.B) {
	body := benchPage()
	page := mustURL("https://www.example.com/science/godwits")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := HTML(page, body, nil)
		if err != nil {
			b.Fatal(err)
		}
		if simhash.VisibleTextFrom(Decoded(body, d), len(body)) == "" {
			b.Fatal("no text")
		}
	}
}

// BenchmarkHTMLEncodings measures extraction of pages in other encodings
// than ASCII-only UTF-8: the benchPage article with its prose and some
// link queries in French or Japanese, encoded and declared as a crawler
// meets them.
func BenchmarkHTMLEncodings(b *testing.B) {
	french := strings.NewReplacer(
		"The bar-tailed godwit flies without stopping",
		"La barge rousse vole sans s’arrêter, d’Alaska à la Nouvelle-Zélande — été comme hiver",
		"?ref=news", "?ref=actualités", "lovely birds!", "très beaux oiseaux !")
	japanese := strings.NewReplacer(
		"The bar-tailed godwit flies without stopping",
		"オオソリハシシギはアラスカからニュージーランドまで休まずに飛ぶ",
		"?ref=news", "?ref=ニュース", "lovely birds!", "美しい鳥ですね！")
	page := mustURL("https://www.example.com/science/godwits")
	tests := []struct {
		name, label, contentType string
		replacer                 *strings.Replacer
	}{
		{"utf-8", "utf-8", "text/html; charset=utf-8", french},
		{"utf-8-sniffed", "utf-8", "text/html", japanese},
		{"windows-1252-header", "windows-1252", "text/html; charset=ISO-8859-1", french},
		{"shift_jis-meta", "shift_jis", "text/html", japanese},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			src := tt.replacer.Replace(string(benchPage()))
			if tt.name == "utf-8-sniffed" {
				src = strings.Replace(src, `<meta charset="utf-8">`, "", 1)
			} else {
				src = strings.Replace(src, `<meta charset="utf-8">`, `<meta charset="`+tt.label+`">`, 1)
			}
			body := []byte(encodeIn(b, tt.label, src))
			o := &Options{ContentType: tt.contentType}
			d, err := HTML(page, body, o)
			if err != nil {
				b.Fatal(err)
			}
			if d.Encoding != tt.label {
				b.Fatalf("encoding %s (%s), want %s", d.Encoding, d.EncodingSource, tt.label)
			}
			b.Logf("page %d bytes, %d links, %s from %s", len(body), len(d.Links), d.Encoding, d.EncodingSource)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := HTML(page, body, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
