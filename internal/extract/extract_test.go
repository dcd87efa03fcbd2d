package extract

import (
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var page = mustURL("http://example.com/dir/page.html?x=1")

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// urls returns the URLs of links.
func urls(links []Link) []string {
	var out []string
	for _, l := range links {
		out = append(out, l.URL)
	}
	return out
}

func TestLinks(t *testing.T) {
	tests := []struct {
		name string
		html string
		want []string
	}{
		{
			name: "relative forms",
			html: `<a href="a.html">1</a><a href="/b">2</a><a href="../c">3</a><a href="./d/">4</a>
				<a href="?q=2">5</a><a href="//other.example/e">6</a><a href="https://secure.example/">7</a>`,
			want: []string{
				"http://example.com/dir/a.html", "http://example.com/b", "http://example.com/c",
				"http://example.com/dir/d/", "http://example.com/dir/page.html?q=2",
				"http://other.example/e", "https://secure.example/",
			},
		},
		{
			name: "unquoted and upper-case",
			html: `<A HREF=one.html>1</A><a href=two.html?a=1&b=2>2</a><AREA Href='three'><LINK rel=stylesheet HREF="s.css">`,
			want: []string{
				"http://example.com/dir/one.html", "http://example.com/dir/two.html?a=1&b=2",
				"http://example.com/dir/three", "http://example.com/dir/s.css",
			},
		},
		{
			name: "entities",
			html: `<a href="/p?a=1&amp;b=2&lt;">x</a><a href="/q?a=1&b=2&copy=3">y</a><a href="&#47;r">z</a>`,
			want: []string{"http://example.com/p?a=1&b=2%3C", "http://example.com/q?a=1&b=2&copy=3", "http://example.com/r"},
		},
		{
			name: "frames",
			html: `<frameset><frame src="f1.html"><frame src=""></frameset><iframe src="/embed"><a href="/inside-iframe"></a></iframe>`,
			want: []string{"http://example.com/dir/f1.html", "http://example.com/embed"},
		},
		{
			name: "skipped values",
			html: `<a href="">e</a><a>none</a><a href="   ">ws</a><a href="#top">f</a><a href=" #x">g</a>
				<a href="javascript:void(0)">j</a><a href="JavaScript:alert(1)">J</a><a href="java&#10;script:alert(1)">J2</a>
				<a href="mailto:a@example.com">m</a><a href="tel:+1">t</a><a href="data:text/html,x">d</a>
				<a href="ftp://example.com/">f</a><a href="http://exa mple.com/">bad host</a><a href="http://[::1/">bad</a>
				<a href="ok">ok</a>`,
			want: []string{"http://example.com/dir/ok"},
		},
		{
			name: "comments, scripts and raw text are not markup",
			html: `<!-- <a href="/commented">x</a> --><script>document.write('<a href="/script">')</script>
				<style>a[href="/style"]{}</style><textarea><a href="/textarea"></a></textarea>
				<title><a href="/title"></a></title><a href="/real">r</a>`,
			want: []string{"http://example.com/real"},
		},
		{
			name: "noscript and noframes are markup",
			html: `<noscript><a href="/ns">x</a></noscript><noframes><a href="/nf">y</a></noframes>`,
			want: []string{"http://example.com/ns", "http://example.com/nf"},
		},
		{
			name: "base href, relative, applies to earlier links too",
			html: `<a href="early">e</a><base href="/other/sub/"><a href="late">l</a><a href="/abs">a</a>`,
			want: []string{"http://example.com/other/sub/early", "http://example.com/other/sub/late", "http://example.com/abs"},
		},
		{
			name: "first base with href wins",
			html: `<base target="_blank"><base href="http://cdn.example/x/"><base href="http://ignored.example/"><a href="y">y</a>`,
			want: []string{"http://cdn.example/x/y"},
		},
		{
			name: "non-http base is ignored",
			html: `<base href="javascript:void(0)"><a href="y">y</a>`,
			want: []string{"http://example.com/dir/y"},
		},
		{
			name: "browser clean-up",
			html: "<a href=\"  /a\n/b\t?c \">x</a><a href='\\\\other.example\\p'>y</a><a href='/100%'>z</a><a href='/sp ace'>s</a>",
			want: []string{"http://example.com/a/b?c", "http://other.example/p", "http://example.com/100%25", "http://example.com/sp%20ace"},
		},
		{
			name: "fragments kept for the normalizer",
			html: `<a href="/p#sec">x</a><a href="HTTP://Example.COM:80/Q">y</a>`,
			want: []string{"http://example.com/p#sec", "http://Example.COM:80/Q"},
		},
		{
			name: "first of repeated attributes wins",
			html: `<a href="/first" href="/second">x</a>`,
			want: []string{"http://example.com/first"},
		},
		{
			name: "svg links",
			html: `<svg><title>not the title</title><a href="/in-svg"><text>t</text></a></svg>`,
			want: []string{"http://example.com/in-svg"},
		},
		{
			name: "broken markup",
			html: `<a href="/unterminated`,
			want: nil,
		},
		{
			name: "not html at all",
			html: "\x00\xff\xfe binary <<<>>>",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			links, err := Links(page, []byte(tt.html))
			if err != nil {
				t.Fatalf("Links error: %v", err)
			}
			if got := urls(links); !slices.Equal(got, tt.want) {
				t.Errorf("Links(%q) =\n%q\nwant\n%q", tt.html, got, tt.want)
			}
		})
	}
}

func TestLinkFields(t *testing.T) {
	html := `<a href="/a" rel=" NoFollow  UGC ">a</a><link rel="canonical" href="/c"><area href="/m">
		<frame src="/f"><iframe src="/i" rel="x"></iframe>`
	links, err := Links(page, []byte(html))
	if err != nil {
		t.Fatal(err)
	}
	want := []Link{
		{URL: "http://example.com/a", Tag: "a", Attr: "href", Rel: "nofollow  ugc"},
		{URL: "http://example.com/c", Tag: "link", Attr: "href", Rel: "canonical"},
		{URL: "http://example.com/m", Tag: "area", Attr: "href"},
		{URL: "http://example.com/f", Tag: "frame", Attr: "src"},
		{URL: "http://example.com/i", Tag: "iframe", Attr: "src"},
	}
	if !slices.Equal(links, want) {
		t.Errorf("Links(%q) =\n%+v\nwant\n%+v", html, links, want)
	}
	if !links[0].HasRel("nofollow") || !links[0].HasRel("ugc") || links[0].HasRel("follow") || links[2].HasRel("nofollow") {
		t.Errorf("HasRel on %+v / %+v is wrong", links[0], links[2])
	}
}

func TestTitle(t *testing.T) {
	long := strings.Repeat("é", MaxTitle) // 2 bytes each
	tests := []struct{ html, want string }{
		{`<html><head><title>  Hello,
			 World  </title></head>`, "Hello, World"},
		{`<TITLE>Fish &amp; Chips &lt;3</TITLE>`, "Fish & Chips <3"},
		{`<title>First</title><title>Second</title>`, "First"},
		{`<svg><title>Icon</title></svg><title>Page</title>`, "Page"},
		{`<title><b>not bold</b></title>`, "<b>not bold</b>"},
		{`<title/>`, ""},
		{`<p>no title</p>`, ""},
		{`<title>` + long + `</title>`, long[:MaxTitle]},
		{"<meta charset=utf-8><title>bad \xff utf-8</title>", "bad \uFFFD utf-8"},
		{"<title>no charset: \xff is windows-1252</title>", "no charset: \u00ff is windows-1252"},
		{`<title>unterminated`, "unterminated"},
	}
	for _, tt := range tests {
		d, err := HTML(page, []byte(tt.html), nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.Title != tt.want {
			t.Errorf("HTML(%q).Title = %q, want %q", tt.html, d.Title, tt.want)
		}
	}
}

func TestMaxLinks(t *testing.T) {
	var b strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, `<a href="javascript:x">j</a><a href="/%d">%d</a>`, i, i)
	}
	d, err := HTML(page, []byte(b.String()), &Options{MaxLinks: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://example.com/0", "http://example.com/1", "http://example.com/2", "http://example.com/3"}
	if got := urls(d.Links); !slices.Equal(got, want) || !d.Truncated {
		t.Errorf("HTML with MaxLinks 4 = %q, truncated %v; want %q, true", got, d.Truncated, want)
	}
	d, err = HTML(page, []byte(b.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Links) != 10 || d.Truncated {
		t.Errorf("HTML with defaults = %d links, truncated %v; want 10, false", len(d.Links), d.Truncated)
	}
	var o Options
	o.Default()
	if o.MaxLinks != DefaultMaxLinks {
		t.Errorf("Default() MaxLinks = %d, want %d", o.MaxLinks, DefaultMaxLinks)
	}
}

func TestPageURL(t *testing.T) {
	for _, p := range []*url.URL{nil, mustURL("/relative"), mustURL("mailto:x@example.com")} {
		if _, err := HTML(p, []byte(`<a href="/x">`), nil); !errors.Is(err, ErrPageURL) {
			t.Errorf("HTML(%v) error = %v, want ErrPageURL", p, err)
		}
	}
}

// TestHugeTokenStopsExtraction: one text run longer than MaxToken (a
// decompression bomb of spaces) ends extraction with the links before it,
// and memory stays near MaxToken rather than a multiple of the page.
func TestHugeTokenStopsExtraction(t *testing.T) {
	page := mustURL("http://a.test/")
	body := []byte(`<a href="/before">b</a><p>` + strings.Repeat(" ", 8*MaxToken) + `<a href="/after">a</a>`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := HTML(page, body, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Links) != 1 || d.Links[0].URL != "http://a.test/before" || !d.Truncated {
		t.Errorf("links %+v truncated %v; want only /before, truncated", d.Links, d.Truncated)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 6*MaxToken {
		t.Errorf("allocated %d MiB for a %d MiB page, want at most %d MiB", alloc>>20, len(body)>>20, 6*MaxToken>>20)
	}
}
