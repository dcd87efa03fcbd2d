package extract

import (
	"runtime"
	"strings"
	"testing"

	"golang.org/x/text/encoding/htmlindex"
)

// encodeIn returns s encoded in the encoding labeled label; the tests
// write their pages in UTF-8 and encode them.
func encodeIn(t testing.TB, label, s string) string {
	t.Helper()
	enc, err := htmlindex.Get(label)
	if err != nil {
		t.Fatal(err)
	}
	out, err := enc.NewEncoder().String(s)
	if err != nil {
		t.Fatalf("encode %q in %s: %v", s, label, err)
	}
	return out
}

func TestEncoding(t *testing.T) {
	lateMeta := "<!--" + strings.Repeat("x", 2*prescanLimit) + "-->"
	tests := []struct {
		name        string
		contentType string
		body        string
		encoding    string
		source      string
		title       string
	}{
		{"utf-8 bom beats header and meta", "text/html; charset=shift_jis",
			"\xEF\xBB\xBF<meta charset=latin1><title>caf\u00e9</title>", "utf-8", SourceBOM, "caf\u00e9"},
		{"utf-16le bom", "", "\xFF\xFE" + utf16le("<title>\u03a9mega</title>"), "utf-16le", SourceBOM, "\u03a9mega"},
		{"utf-16be bom", "", "\xFE\xFF" + utf16be("<title>\u03a9mega</title>"), "utf-16be", SourceBOM, "\u03a9mega"},
		{"header", "text/html; charset=Shift_JIS", encodeIn(t, "shift_jis", "<title>日本語</title>"), "shift_jis", SourceHeader, "日本語"},
		{"header beats meta", "text/html;charset=ISO-8859-1", "<meta charset=utf-8><title>caf\xe9</title>", "windows-1252", SourceHeader, "caf\u00e9"},
		{"header quoted, odd parameters", `text/html; foo; charset="euc-kr"; charset=big5;;`,
			encodeIn(t, "euc-kr", "<title>한국어</title>"), "euc-kr", SourceHeader, "한국어"},
		{"header utf-16 stays utf-16", "text/html; charset=utf-16", utf16le("<title>x</title>"), "utf-16le", SourceHeader, "x"},
		{"header bogus charset: meta", "text/html; charset=bogus", "<meta charset=euc-jp><title>t</title>", "euc-jp", SourceMeta, "t"},
		{"header without charset: meta", "text/html", "<meta charset=euc-jp>", "euc-jp", SourceMeta, ""},
		{"header not a MIME type", "charset=euc-jp", "<title>t</title>", "windows-1252", SourceDefault, "t"},
		{"meta charset", "", "<meta charset=iso-8859-2><title>\xb1</title>", "iso-8859-2", SourceMeta, "\u0105"},
		{"meta http-equiv", "", `<meta http-equiv=Content-Type content="text/html; charset=koi8-r"><title>` + "\xc1</title>",
			"koi8-r", SourceMeta, "\u0430"},
		{"meta utf-16 means utf-8", "", "<meta charset=utf-16><title>caf\u00e9</title>", "utf-8", SourceMeta, "caf\u00e9"},
		{"meta x-user-defined means windows-1252", "", "<meta charset=x-user-defined><title>\x80</title>", "windows-1252", SourceMeta, "\u20ac"},
		{"meta replacement", "", "<meta charset=iso-2022-kr><title>t</title><a href=/x>", "replacement", SourceMeta, ""},
		{"sniffed utf-8", "", "<title>caf\u00e9</title>", "utf-8", SourceSniffed, "caf\u00e9"},
		{"sniffed utf-8, last rune cut", "", "<title>caf\u00e9</title>\xe6\x97", "utf-8", SourceSniffed, "caf\u00e9"},
		{"sniffed past the first kilobyte", "", strings.Repeat(" ", 3000) + "<title>\u201cq\u201d</title>", "utf-8", SourceSniffed, "\u201cq\u201d"},
		{"ascii: default", "", "<title>t</title>", "windows-1252", SourceDefault, "t"},
		{"empty: default", "", "", "windows-1252", SourceDefault, ""},
		{"invalid utf-8: default", "", "<title>caf\xe9 \x80</title>", "windows-1252", SourceDefault, "caf\u00e9 \u20ac"},
		{"late meta changes the default", "", lateMeta + "<meta charset=iso-8859-2><title>\xb1</title>", "iso-8859-2", SourceMeta, "\u0105"},
		{"late meta changes sniffed utf-8", "", lateMeta + "<title>caf\u00e9</title><meta charset=windows-1252>",
			"windows-1252", SourceMeta, "caf\u00c3\u00a9"},
		{"late meta confirms, a later one is ignored", "", lateMeta + "<meta charset=latin1><meta charset=iso-8859-2><title>\xb1</title>",
			"windows-1252", SourceMeta, "\u00b1"},
		{"late http-equiv", "", lateMeta + `<meta content="text/html;charset=euc-jp" http-equiv="content-type">`, "euc-jp", SourceMeta, ""},
		{"late meta in svg is not a meta", "", lateMeta + "<svg><meta charset=iso-8859-2></svg>", "windows-1252", SourceDefault, ""},
		{"late meta after a header is ignored", "text/html; charset=utf-8", lateMeta + "<meta charset=iso-8859-2>", "utf-8", SourceHeader, ""},
		{"late meta after the prescan's is ignored", "", "<meta charset=koi8-r>" + lateMeta + "<meta charset=iso-8859-2>", "koi8-r", SourceMeta, ""},
		{"prescan meta inside a script, tokenizer meta wins", "", "<script>'<meta charset=koi8-r>'</script><meta charset=euc-jp>",
			"euc-jp", SourceMeta, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := HTML(page, []byte(tt.body), &Options{ContentType: tt.contentType})
			if err != nil {
				t.Fatal(err)
			}
			if d.Encoding != tt.encoding || d.EncodingSource != tt.source || d.Title != tt.title {
				t.Errorf("HTML(%.60q, %q) = %s (%s) title %q, want %s (%s) title %q",
					tt.body, tt.contentType, d.Encoding, d.EncodingSource, d.Title, tt.encoding, tt.source, tt.title)
			}
		})
	}
}

func utf16le(s string) string {
	var b []byte
	for _, r := range s { // BMP only
		b = append(b, byte(r), byte(r>>8))
	}
	return string(b)
}

func utf16be(s string) string {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r>>8), byte(r))
	}
	return string(b)
}

func TestContentTypeCharset(t *testing.T) {
	tests := []struct {
		ct, want string
		ok       bool
	}{
		{"", "", false},
		{"text/html", "", false},
		{"text/html; charset=utf-8", "utf-8", true},
		{"text/html;charset=UTF-8", "UTF-8", true},
		{"Text/HTML; Charset = utf-8", "", false}, // no spaces around '=' in MIME
		{"text/html; CHARSET=gbk", "gbk", true},
		{`text/html; charset="shift_jis"`, "shift_jis", true},
		{`text/html; charset="a\"b"; x=y`, `a"b`, true},
		{"text/html; charset=latin1 ; q=1", "latin1", true},
		{"text/html; charset=; charset=big5", "big5", true},
		{"text/html; charset=koi8-r; charset=big5", "koi8-r", true},
		{"text/html;;; charset=euc-kr;", "euc-kr", true},
		{"charset=utf-8", "", false},
		{"; charset=utf-8", "", false},
	}
	for _, tt := range tests {
		got, ok := contentTypeCharset(tt.ct)
		if got != tt.want || ok != tt.ok {
			t.Errorf("contentTypeCharset(%q) = %q, %v; want %q, %v", tt.ct, got, ok, tt.want, tt.ok)
		}
	}
}

func TestMetaCharset(t *testing.T) {
	tests := []struct {
		content, want string
		ok            bool
	}{
		{"text/html; charset=utf-8", "utf-8", true},
		{"text/html; CHARSET = 'euc-jp' ", "euc-jp", true},
		{`text/html; charset="big5`, "", false},
		{"text/html; charset", "", false},
		{"charsetcharset=koi8-r;x", "koi8-r", true},
		{"text/html; charset= gbk more", "gbk", true},
		{"text/html", "", false},
	}
	for _, tt := range tests {
		got, ok := metaCharset(tt.content)
		if got != tt.want || ok != tt.ok {
			t.Errorf("metaCharset(%q) = %q, %v; want %q, %v", tt.content, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPrescan(t *testing.T) {
	tests := []struct{ in, want string }{
		{`<meta charset="euc-kr">`, "euc-kr"},
		{`<META CHARSET=EUC-KR>`, "euc-kr"},
		{`<meta/charset=gbk>`, "gbk"},
		{`<!--<meta charset=gbk>--><meta charset=big5>`, "big5"},
		{`<!--><meta charset=big5>`, "big5"},
		{`<script>x='<meta charset=big5>'</script>`, "big5"},
		{`<p title="<meta charset=gbk>"><meta charset=big5>`, "big5"},
		{`<?xml version="1.0"?><meta charset=big5>`, "big5"},
		{`<meta charset=bogus content="text/html; charset=gbk" http-equiv=content-type>`, ""},
		{`<meta content="text/html; charset=gbk" http-equiv=content-type charset=big5>`, "big5"},
		{`<meta charset=big5 charset=gbk>`, "big5"},
		{`<meta http-equiv=content-type content="charset=gbk" content="charset=big5">`, "gbk"},
		{`<meta content="charset=gbk">`, ""},
		{`<meta charset=big5`, ""},
		{`<meta charset="big5`, ""},
		{"<\x00?\x00x\x00m\x00l\x00", "utf-16le"},
		{"\x00<\x00?\x00x\x00m\x00l", "utf-16be"},
		{`<meta charset=utf-16be>`, "utf-8"},
	}
	for _, tt := range tests {
		got, _, _ := prescan([]byte(tt.in))
		if got != tt.want {
			t.Errorf("prescan(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestQueryEncoding checks that the query of a link is encoded in the
// document's encoding and the rest of it in UTF-8, as browsers do.
func TestQueryEncoding(t *testing.T) {
	sjis := func(s string) string { return encodeIn(t, "shift_jis", s) }
	tests := []struct {
		name        string
		contentType string
		body        string
		want        string
	}{
		{"latin-1 entity", "text/html; charset=iso-8859-1", `<a href="/x/caf&eacute;?q=caf&eacute;">`,
			"http://example.com/x/caf%C3%A9?q=caf%E9"},
		{"latin-1 raw byte", "text/html; charset=iso-8859-1", "<a href=\"/x/caf\xe9?q=caf\xe9\">",
			"http://example.com/x/caf%C3%A9?q=caf%E9"},
		{"windows-1252 euro", "", "<meta charset=windows-1252><a href=\"?q=\x80&r=&euro;\">",
			"http://example.com/dir/page.html?q=%80&r=%80"},
		{"windows-1252 lacks the character", "text/html; charset=windows-1252", `<a href="/?q=&#26085;x&#x1F600;">`,
			"http://example.com/?q=%26%2326085%3Bx%26%23128512%3B"},
		{"fragment and path are utf-8", "text/html; charset=windows-1252", "<a href=\"/\xe9?\xe9#\xe9\">",
			"http://example.com/%C3%A9?%E9#%C3%A9"},
		{"shift_jis", "", sjis(`<meta charset="shift_jis"><a href="/検索/日本?q=日本&x=ｶ">`),
			"http://example.com/%E6%A4%9C%E7%B4%A2/%E6%97%A5%E6%9C%AC?q=%93%FA%96{&x=%B6"},
		{"shift_jis lacks the character", "text/html; charset=shift_jis", sjis(`<a href="/?q=日&#x1F600;本&eacute;">`),
			"http://example.com/?q=%93%FA%26%23128512%3B%96{%26%23233%3B"},
		{"euc-kr", "text/html; charset=euc-kr", encodeIn(t, "euc-kr", `<a href="?q=한">`),
			"http://example.com/dir/page.html?q=%C7%D1"},
		{"gbk", "text/html; charset=gbk", encodeIn(t, "gbk", `<a href="?q=中">`),
			"http://example.com/dir/page.html?q=%D6%D0"},
		{"iso-2022-jp", "text/html; charset=iso-2022-jp", encodeIn(t, "iso-2022-jp", `<a href="?q=日本x">`),
			`http://example.com/dir/page.html?q=%1B$BF|K\%1B(Bx`},
		{"utf-8", "text/html; charset=utf-8", `<a href="/caf&eacute;?q=caf&eacute;&r=&#x1F600;">`,
			"http://example.com/caf%C3%A9?q=caf%C3%A9&r=%F0%9F%98%80"},
		{"utf-16 queries are utf-8", "text/html; charset=utf-16le", utf16le(`<a href="?q=é">`),
			"http://example.com/dir/page.html?q=%C3%A9"},
		{"special-query set", "", `<a href="/p?a=<b> 'c' &quot;d&quot;&e=%41&f=%zz">`,
			"http://example.com/p?a=%3Cb%3E%20%27c%27%20%22d%22&e=%41&f=%25zz"},
		{"base query is encoded too", "text/html; charset=iso-8859-1", `<base href="/b?q=&eacute;"><a href="">x</a><a href="c">`,
			"http://example.com/c"},
		{"no query, '?' in the fragment", "text/html; charset=iso-8859-1", "<a href=\"/p#f?\xe9\">",
			"http://example.com/p#f?%C3%A9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := HTML(page, []byte(tt.body), &Options{ContentType: tt.contentType})
			if err != nil {
				t.Fatal(err)
			}
			if got := urls(d.Links); len(got) != 1 || got[0] != tt.want {
				t.Errorf("HTML(%q, %q) links = %q, want [%q]", tt.body, tt.contentType, got, tt.want)
			}
		})
	}
}

// TestDecodeMemory checks that extraction allocates a small multiple of
// the body, for the bodies that grow most when decoded.
func TestDecodeMemory(t *testing.T) {
	const n = 1 << 20
	tests := []struct{ name, contentType, body string }{
		{"windows-1252 high bytes", "text/html; charset=windows-1252", strings.Repeat("\xe9", n)},
		{"shift_jis half-width katakana", "text/html; charset=shift_jis", strings.Repeat("\xb6", n)},
		{"invalid utf-8", "text/html; charset=utf-8", strings.Repeat("\xff", n)},
		{"utf-16 cjk", "text/html; charset=utf-16le", strings.Repeat("\x2e\x6e", n/2)},
		{"late meta, decoded twice", "", "<!--" + strings.Repeat("\xe9", n) + "--><meta charset=iso-8859-2>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(tt.body)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			if _, err := HTML(page, body, &Options{ContentType: tt.contentType}); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 20*uint64(len(body)) {
				t.Errorf("HTML of %d bytes allocated %d bytes, %.1f times the body", len(body), got, float64(got)/float64(len(body)))
			} else {
				t.Logf("%.1f times the body", float64(got)/float64(len(body)))
			}
		})
	}
}
