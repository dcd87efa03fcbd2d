package htmltok_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/htmltok"
)

// tokens returns the token stream of page as x/net/html's Tokenizer
// gives it (xnet) or ours, one line a token: type, raw bytes, then the
// name and attributes of a tag, or the text of the rest. notRaw reads the
// content of <noscript> and <noframes> as markup (NextIsNotRawText), as
// extract does.
func xnetTokens(page []byte, notRaw bool) []token {
	var out []token
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		tt := z.Next()
		line := token{tt: tt, raw: string(z.Raw())}
		switch tt {
		case html.ErrorToken:
			line.text = z.Err().Error()
			return append(out, line)
		case html.TextToken, html.CommentToken, html.DoctypeToken:
			line.text = string(z.Text())
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, more := z.TagName()
			line.name = string(name)
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				line.attrs = append(line.attrs, string(k), string(v))
			}
			if notRaw && tt != html.EndTagToken && (string(name) == "noscript" || string(name) == "noframes") {
				z.NextIsNotRawText()
			}
		}
		out = append(out, line)
	}
}

func ourTokens(page []byte, notRaw bool) []token {
	var out []token
	z := htmltok.New(page)
	for {
		tt := z.Next()
		line := token{tt: html.TokenType(tt), raw: string(z.Raw())}
		switch tt {
		case htmltok.ErrorToken:
			line.text = z.Err().Error()
			return append(out, line)
		case htmltok.TextToken, htmltok.CommentToken, htmltok.DoctypeToken:
			line.text = string(z.Text())
		case htmltok.StartTagToken, htmltok.SelfClosingTagToken, htmltok.EndTagToken:
			name := z.TagName()
			line.name = string(name)
			if tt != htmltok.EndTagToken {
				for i := range z.NumAttr() {
					k, v := z.Attr(i)
					line.attrs = append(line.attrs, string(k), string(v))
				}
			}
			if notRaw && tt != htmltok.EndTagToken && (string(name) == "noscript" || string(name) == "noframes") {
				z.NextIsNotRawText()
			}
		}
		out = append(out, line)
	}
}

// token is a token as the test compares them: the name and attributes
// of a tag, the text of the rest (Err's text for an ErrorToken).
type token struct {
	tt              html.TokenType
	raw, text, name string
	attrs           []string
}

func (t token) String() string {
	return fmt.Sprintf("%v raw=%q text=%q name=%q attrs=%q", t.tt, t.raw, t.text, t.name, t.attrs)
}

func (t token) equal(u token) bool {
	return t.tt == u.tt && t.raw == u.raw && t.text == u.text && t.name == u.name && slices.Equal(t.attrs, u.attrs)
}

// sameTokens fails t if the two tokenizers disagree on page.
func sameTokens(t *testing.T, name string, page []byte, notRaw bool) {
	t.Helper()
	orig := bytes.Clone(page)
	want, got := xnetTokens(page, notRaw), ourTokens(page, notRaw)
	if !bytes.Equal(page, orig) {
		t.Fatalf("%s: the tokenizer changed its input", name)
	}
	for i := range max(len(want), len(got)) {
		var w, g token
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if !w.equal(g) {
			t.Fatalf("%s (notRaw %v): token %d of %q:\nx/net/html: %s\nhtmltok:    %s", name, notRaw, i, trim(page), w, g)
		}
	}
}

func trim(b []byte) []byte {
	if len(b) > 300 {
		return b[:300]
	}
	return b
}

// edgeCases are the corners of the tokenizer, one or more each.
var edgeCases = []string{
	"", "plain", "<", "a<", "a<b", "<a", "</", "a</", "</>", "</ x>", "</3>", "<!", "<!>", "<!-", "<!--", "<!-->", "<!--->",
	"<!---->", "<!--a-->", "<!--a--!>", "<!--a--!-->", "<!--a--!x-->", "<!--a--", "<!--a--!", "<!--a-", "<!-- -- -->",
	"<!--a->b-->", "<!DOCTYPE html>", "<!doctype>", "<!DocType   html  >", "<!DOCTYPE", "<!DOC", "<!DOCTYPE  ", "<![CDATA[x]]>",
	"<?xml version=1?>x", "<?", "<? ", "a < b", "a <3 b", "<a href=x>", "<A HREF=X>", "<a href='x'>", `<a href="x">`,
	`<a href = "x" >`, "<a href=x/>", "<a href='x'/>", "<a b/>", "<a b=c b=d/>", "<a =b>", "<a ==b>", "<a b==c>", "<a/b>",
	"<a / b>", "<a b c d>", "<a b=>", "<a b= >", "<a b='>'>", "<a b=\"c\"d=e>", "<a b=c", "<a b='c", "<a b", "<a ", "<a b=c ",
	"<br/>", "<br />", "<img src=a.png/>", "<p a=/>", "</p a=b>", "</p/>", "<a Href=1 HREF=2 href=3>", "<a hr\x00ef=1 hr\x00ef=2>",
	"<a\x00b>", "<A\x00>", "x\x00y", "<title>a\x00b&amp;</title>", "<script>a\x00b&amp;</script>", "<!--\x00-->",
	"a\r\nb\rc", "<a href='a\r\nb\rc'>", "<textarea>a\r\n&lt;</textarea>", "a&amp;b&lt&notit;&notin;&#65;&#x41;&#0;&#128;&#xD800;&#1114112;",
	"<a href='?a=1&amp;b=2&copy=3&copy;&notit&#x26;'>", "&", "&#", "&#x", "&#;", "&#x;", "&amp", "&nGt;&nGt;x&nLt;", "<a href='&nGt;&gt;'>",
	"<title>x<b>y</b></title>z", "<title></title>x", "<TITLE>x</TITLE >y", "<title>x</titlex>y</title/>", "<title>x</tit", "<title>x</title",
	"<script>a</script>b", "<script>a</SCRIPT>b", "<script>a</scripty></script>", "<script><!--a</script>b", "<script><!--<script>a</script>b</script>c",
	"<script><!--<script>a</script>-->b</script>c", "<script><!--a-->b</script>", "<script><!-x</script>", "<script><!--<scrip", "<script><!--<SCRIPT>-->x</script>",
	"<script><!--<script/></script>--></script>", "<script><!----><script>", "<script>", "<script/>x</script>y", "<style>a<b>c</style>d", "<xmp><a></xmp>",
	"<iframe><a href=x></iframe>", "<noembed><a></noembed>", "<noframes><a href=y></noframes>", "<noscript><a href=z></noscript>",
	"<plaintext><a></plaintext>", "<plaintext>", "<textarea><a></textarea>", "<svg><title>t</title></svg>", "<a\thref\n=\fx\r>",
	"<a href=\"x\"\"y\">", "<a 'b'=c>", "<a b=c'd>", "<a b=c\"d'e>", "<div id=root hidden role='navigation main'>", "<p>a<b>b</b> c</p>",
	"\ufeff<a>", "<é>", "<a é=ü>", "<<a>>", "<a<b>", "<a b<c>", "</a<b>", "<!---->-->", "<!-- --!> -->",
}

// TestTokenizerMatchesXNet compares the two tokenizers on the edge cases
// and on random HTML built from their pieces.
func TestTokenizerMatchesXNet(t *testing.T) {
	for i, c := range edgeCases {
		sameTokens(t, fmt.Sprint("edge case ", i), []byte(c), false)
		sameTokens(t, fmt.Sprint("edge case ", i), []byte(c), true)
	}
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"<", ">", "/", "!", "-", "--", "?", "=", "'", "\"", " ", "\n", "\r", "\x00", "&", "&amp;", "&lt", "&#", "&#x4", ";",
		"a", "A", "b", "x", "href", "script", "SCRIPT", "style", "title", "textarea", "noscript", "noframes", "plaintext", "iframe", "xmp",
		"<a", "</", "<!--", "-->", "<!DOCTYPE", "<script>", "</script>", "<title>", "</title>", "é", "\xff"}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for i := range n {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		sameTokens(t, fmt.Sprint("random ", i), []byte(b.String()), i%2 == 0)
	}
}

// TestFakewebPagesMatchXNet compares the two tokenizers on the pages of
// fakeweb's hostile web: tag soup, legacy charsets, signals, traps.
func TestFakewebPagesMatchXNet(t *testing.T) {
	pages := fakewebPages(t)
	for _, page := range pages {
		sameTokens(t, "fakeweb", page, true)
	}
	t.Logf("%d pages", len(pages))
}

// fakewebPages returns the bodies of fakeweb pages of a small hostile web
// with every kind of page.
func fakewebPages(t testing.TB) [][]byte {
	w, err := fakeweb.New(fakeweb.Config{Hosts: 4, PagesPerHost: 20, Hostile: true, PageSignals: true, Requisites: true, Duplicates: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var pages [][]byte
	seen := map[string]bool{}
	queue := w.Seeds()
	for _, p := range []string{"/x/malformed", "/x/mal/0", "/x/mal/1", "/x/mal/2", "/x/cs/latin1-meta", "/x/cs/sjis-meta", "/x/sniffed", "/x/landing", "/x/slow"} {
		queue = append(queue, strings.TrimSuffix(w.Seeds()[0], "/")+p)
	}
	for len(queue) > 0 && len(pages) < 400 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		body, ok := w.Page(u)
		if !ok {
			continue
		}
		pages = append(pages, body)
		z := html.NewTokenizer(bytes.NewReader(body))
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			if tt != html.StartTagToken {
				continue
			}
			for k, v, more := z.TagAttr(); ; k, v, more = z.TagAttr() {
				if string(k) == "href" && strings.HasPrefix(string(v), "/") && !strings.HasPrefix(string(v), "/x/") {
					queue = append(queue, strings.TrimSuffix(w.Seeds()[0], "/")+string(v))
				}
				if !more {
					break
				}
			}
		}
	}
	if len(pages) < 20 {
		t.Fatalf("only %d fakeweb pages", len(pages))
	}
	return pages
}

const pyDocs = "/usr/share/doc/python3.11/html"

// pyDocsPages returns the pages of Debian's python3.11-doc, if installed.
func pyDocsPages(t testing.TB) [][]byte {
	var pages [][]byte
	filepath.WalkDir(pyDocs, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".html") {
			if b, err := os.ReadFile(path); err == nil {
				pages = append(pages, b)
			}
		}
		return nil
	})
	return pages
}

// TestPythonDocsMatchXNet compares the two tokenizers on every page of
// the Python documentation. Skipped without python3.11-doc.
func TestPythonDocsMatchXNet(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 530 pages of 100 KiB")
	}
	pages := pyDocsPages(t)
	if len(pages) == 0 {
		t.Skipf("no pages in %s (apt-get install python3.11-doc)", pyDocs)
	}
	for _, p := range pages {
		sameTokens(t, "python docs", p, true)
	}
	t.Logf("%d pages", len(pages))
}

// FuzzTokenizerMatchesXNet holds our token stream to x/net/html's on any
// input: types, raw bytes, names, attributes, text.
func FuzzTokenizerMatchesXNet(f *testing.F) {
	for _, c := range edgeCases {
		f.Add([]byte(c), false)
	}
	for _, p := range fakewebPages(f) {
		f.Add(p, true)
	}
	for _, p := range repoPages(f) {
		f.Add(p, true)
	}
	if !testing.Short() {
		// Seeds from the conformance data and the Python docs only when
		// fuzzing or in full runs.
		for _, p := range conformancePages(f) {
			f.Add(p, false)
		}
		pages := pyDocsPages(f)
		for i, p := range pages {
			if i%10 == 0 { // a sample: every page is in TestPythonDocsMatchXNet
				f.Add(p, true)
			}
		}
	}
	f.Fuzz(func(t *testing.T, page []byte, notRaw bool) {
		sameTokens(t, "fuzz", page, notRaw)
	})
}

// repoPages returns the repository's own HTML files (the admin UI).
func repoPages(t testing.TB) [][]byte {
	var pages [][]byte
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "../.." {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".html") || strings.HasSuffix(path, ".htm")) {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			pages = append(pages, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no HTML file in the repository")
	}
	return pages
}

// conformancePages returns the documents of the html5lib encoding tests.
func conformancePages(t testing.TB) [][]byte {
	var pages [][]byte
	dir := "../../../shared/conformance/html5lib-encoding"
	files, _ := filepath.Glob(filepath.Join(dir, "*.dat"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range bytes.Split(b, []byte("#data\n"))[1:] {
			if data, _, ok := bytes.Cut(block, []byte("\n#encoding\n")); ok {
				pages = append(pages, data)
			}
		}
	}
	return pages
}
