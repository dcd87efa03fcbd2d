package render

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestReadAsSecondPass checks that Read, now the signals of extract's one
// pass over the page, gives what the second tokenizer pass it replaced
// (readSecondPass, kept here as the reference) gave, on fakeweb's pages
// (static and SPA shells) and on markup that exercises each signal:
// <noscript> and <noframes> (which the crawl's pass reads as markup, the
// reference as raw text), <template>, scripts, application roots, entities.
func TestReadAsSecondPass(t *testing.T) {
	article := "<p>" + strings.Repeat("Plenty of words in a static article. ", 30) + "</p>"
	pages := []string{
		``,
		`<div id="root"></div><script src="/app.js"></script>`,
		`<html><body><div id="root"><div><span></span></div></div><script src="/a.js"></script></body></html>`,
		`<app-root></app-root>` + article + `<script src="/main.js"></script>`,
		`<div id="app"><p>` + article + `</p></div><script src="/a.js"></script>`,
		`<div class="x" id="__next"><img src=a.png><br></div>`,
		`<div hidden id="root"></div><div id=app>text</div>`,
		`<div id="root"><div id="app"></div></div>`,
		`<div id="root">`,
		`<div id="root"><noscript>Please enable JavaScript.</noscript></div>`,
		article + `<noscript>You need to enable JavaScript to run this app.</noscript>`,
		`<noscript><a href="/x">Enable JS</a> to see <b>this</b></noscript><a href="/y">y</a>`,
		`<noscript><p>no script here</p><!-- javascript --></noscript>`,
		`<noscript/>some text <a href=/z>z</a></noscript> after`,
		`<noscript>never closed, enable js`,
		`<noframes><p>frames   are <i>off</i></p></noframes><p>after</p>`,
		`<div id=root><noframes>x</noframes></div>`,
		`<noframes>never closed   text`,
		`<template><p>hidden text</p><script>s()</script>visible?</template> and after`,
		`<template><noscript>enable javascript</noscript></template>`,
		`<style>p{color:red}</style><p>styled &amp; text</p>`,
		`<script>` + strings.Repeat("x=1;\r\n", 200) + `</script><script src=a.js></script><script/>`,
		`<a href="">empty</a><a>none</a><a href=/ok>ok</a><area href=/m><area>`,
		`<p>` + "caf\u00e9 \u00a0 na\u00efve\u2003words\u0085end" + `</p><p>   </p><p>a   b	c
d</p>`,
		`<svg><title>t</title><a href=/s>s</a></svg><title>page</title>`,
		`<textarea><a href=/t>t</a></textarea><xmp><b>x</b></xmp><iframe src=/f><p>i</p></iframe>`,
		`<DIV ID="ROOT"></DIV><Script>var a</Script><NOSCRIPT>ENABLE JAVASCRIPT</NOSCRIPT>`,
	}
	for _, cfg := range []fakeweb.Config{
		{Hosts: 3, PagesPerHost: 6, Seed: 2},
		{Hosts: 3, PagesPerHost: 6, Seed: 3, SPA: true, SPAShare: 1},
		{Hosts: 2, PagesPerHost: 6, Seed: 4, Requisites: true, Duplicates: true},
	} {
		cfg.Default()
		web, err := fakeweb.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, seed := range web.Seeds() {
			for _, p := range []string{"", "p/1", "p/2", "p/5"} {
				rec := httptest.NewRecorder()
				web.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, seed+p, nil))
				if rec.Code == http.StatusOK && strings.Contains(rec.Header().Get("Content-Type"), "html") {
					pages = append(pages, rec.Body.String())
				}
			}
		}
		_ = web.Close()
	}
	if len(pages) < 40 {
		t.Fatalf("only %d pages", len(pages))
	}
	for i, p := range pages {
		if got, want := Read([]byte(p)), readSecondPass([]byte(p)); got != want {
			name := p
			if len(name) > 80 {
				name = fmt.Sprintf("fakeweb page %d", i)
			}
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
}

// readSecondPass reads the signals of a decoded HTML page.
func readSecondPass(body []byte) Signals {
	var s Signals
	z := html.NewTokenizer(bytes.NewReader(body))
	var (
		skip       atom.Atom // inside script or style: not visible text
		inNoscript bool
		noscript   strings.Builder
		rootOpen   int // depth inside an application root, 0 when outside
		rootEmpty  bool
		depth      int
	)
	closeRoot := func() {
		if rootEmpty {
			s.EmptyRoot = true
		}
		rootOpen = 0
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if rootOpen > 0 {
				closeRoot()
			}
			return s
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			var id, href string
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "id":
					id = string(v)
				case "href":
					href = string(v)
				}
			}
			if rootOpen > 0 {
				rootEmpty = false
			}
			switch {
			case a == atom.Script:
				s.Scripts++
				if tt == html.StartTagToken {
					skip = a // its text is script (none for src=)
				}
			case a == atom.Style || a == atom.Template:
				if tt == html.StartTagToken {
					skip = a
				}
			case a == atom.Noscript:
				inNoscript = tt == html.StartTagToken
				noscript.Reset()
			case (a == atom.A || a == atom.Area) && href != "":
				s.Links++
			}
			if rootOpen == 0 && tt == html.StartTagToken &&
				(string(name) == "app-root" || a == atom.Div && (id == "root" || id == "app" || id == "__next" || id == "__nuxt")) {
				rootOpen, rootEmpty, depth = 1, true, 0
				continue
			}
			if rootOpen > 0 && tt == html.StartTagToken && !voidElement(a) {
				depth++
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if skip != 0 && a == skip {
				skip = 0
				continue
			}
			if a == atom.Noscript && inNoscript {
				inNoscript = false
				t := strings.ToLower(noscript.String())
				if strings.Contains(t, "javascript") || strings.Contains(t, "enable js") {
					s.NoScriptJS = true
				}
			}
			if rootOpen > 0 {
				if depth == 0 {
					closeRoot()
				} else {
					depth--
				}
			}
		case html.TextToken:
			text := z.Text()
			if skip == atom.Script {
				s.ScriptBytes += len(text)
				continue
			}
			if skip != 0 {
				continue
			}
			if inNoscript {
				noscript.Write(text)
				continue
			}
			n := len(strings.Join(strings.Fields(string(text)), " "))
			if n > 0 && rootOpen > 0 {
				rootEmpty = false
			}
			s.TextBytes += n
		}
	}
}

func voidElement(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Link, atom.Meta, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}
