package htmltok_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/godwit-crawler/godwit/internal/htmltok"
)

// limitedTokens returns the tokens of page up to and with the first
// error, read by x/net/html with SetMaxBuf(limit) or by ours with
// SetMaxToken(limit); an error token is its type and whether it is the
// limit's.
func limitedTokens(page []byte, limit int, xnet bool) []token {
	var out []token
	if xnet {
		z := html.NewTokenizer(bytes.NewReader(page))
		z.SetMaxBuf(limit)
		for {
			tt := z.Next()
			t := token{tt: tt, raw: string(z.Raw())}
			switch tt {
			case html.ErrorToken:
				return append(out, token{tt: tt, text: fmt.Sprint(errors.Is(z.Err(), html.ErrBufferExceeded))})
			case html.TextToken:
				t.text = string(z.Text())
			}
			out = append(out, t)
		}
	}
	z := htmltok.New(page)
	z.SetMaxToken(limit)
	for {
		tt := z.Next()
		t := token{tt: html.TokenType(tt), raw: string(z.Raw())}
		switch tt {
		case htmltok.ErrorToken:
			return append(out, token{tt: html.ErrorToken, text: fmt.Sprint(errors.Is(z.Err(), htmltok.ErrTooLong))})
		case htmltok.TextToken:
			t.text = string(z.Text())
		}
		out = append(out, t)
	}
}

// sameLimitedTokens fails t unless the two tokenizers, limited to limit
// bytes a token, agree: the same tokens, a long text token cut at the
// same byte, the same error; except where x/net/html hands out a comment
// or doctype cut by the limit, or with the look-ahead that reached it
// ("<!>x"): no caller reads those, and ours may end there or hand out
// the comment whole; after it, x/net/html can even read on past the
// limit (a "<!DOCTYPE" cut by it).
func sameLimitedTokens(t *testing.T, page []byte, limit int) {
	t.Helper()
	want, got := limitedTokens(page, limit, true), limitedTokens(page, limit, false)
	for i := range min(len(want), len(got)) {
		w, g := want[i], got[i]
		if (w.tt == html.CommentToken || w.tt == html.DoctypeToken) && !w.equal(g) &&
			(g.tt == html.ErrorToken && g.text == "true" || i+1 < len(want) && want[i+1].tt == html.ErrorToken && want[i+1].text == "true") {
			return
		}
		if !w.equal(g) {
			t.Fatalf("limit %d, token %d of %q:\nx/net/html: %s\nhtmltok:    %s", limit, i, trim(page), w, g)
		}
	}
	if len(want) != len(got) {
		t.Fatalf("limit %d: %d tokens of %q, x/net/html %d", limit, len(got), trim(page), len(want))
	}
}

// TestMaxTokenMatchesXNet holds SetMaxToken to x/net/html's SetMaxBuf on
// random pages with small limits.
func TestMaxTokenMatchesXNet(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"<", ">", "/", "!", "-", "--", "=", "'", " ", "\n", "&amp;", "a", "b", "x", "text ", "<a href=x>", "</a>",
		"<!--", "-->", "<script>", "</script>", "<title>", "</title>", "<p>", "é"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(20) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		sameLimitedTokens(t, []byte(b.String()), 1+r.IntN(40))
	}
}

// FuzzMaxTokenMatchesXNet is TestMaxTokenMatchesXNet on any input.
func FuzzMaxTokenMatchesXNet(f *testing.F) {
	for _, c := range edgeCases {
		f.Add([]byte(c), uint8(5))
	}
	f.Add([]byte("<p>"+strings.Repeat("word ", 20)+"<a href=x>"), uint8(30))
	f.Fuzz(func(t *testing.T, page []byte, limit uint8) {
		if limit == 0 {
			return
		}
		sameLimitedTokens(t, page, int(limit))
	})
}
