package extract

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// attrsOf returns the attributes of every start tag of page, as attrReader
// reads them and as z.TagAttr hands them out (from two tokenizers: the
// attributes are handed out once), and how many tags attrReader read from
// their raw text.
func attrsOf(page string) (raw, want []string, fromRaw int) {
	for _, viaRaw := range []bool{true, false} {
		z := html.NewTokenizer(strings.NewReader(page))
		for {
			tt := z.Next()
			if tt == html.ErrorToken {
				break
			}
			if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
				continue
			}
			tag := fmt.Sprintf("%q:", z.Raw())
			if viaRaw {
				var spans [maxRawAttrs]attrSpan
				if _, ok := rawAttrs(z.Raw(), &spans); ok {
					fromRaw++
				}
				raw = append(raw, tag)
				var r attrReader
				r.init(z)
				for k, v, ok := r.next(); ok; k, v, ok = r.next() {
					raw = append(raw, fmt.Sprintf("%q=%q", k, v))
				}
				continue
			}
			want = append(want, tag)
			for {
				k, v, more := z.TagAttr()
				if len(k) > 0 {
					want = append(want, fmt.Sprintf("%q=%q", k, v))
				}
				if !more {
					break
				}
			}
		}
	}
	return raw, want, fromRaw
}

// TestEachAttrIsTagAttr: on tags built from pieces near the tokenizer's
// edges (quotes, missing values, '=' first, slashes, repeated keys in
// other cases, spaces, references, NUL, carriage returns), attrReader reads
// the attributes z.TagAttr hands out, and reads most plain tags from
// their raw text.
func TestEachAttrIsTagAttr(t *testing.T) {
	pieces := []string{" ", "  ", "\n", "\t", "\f", "\r", "/", "=", "==", ">", "'", `"`, "a", "A", "href", "HREF", "Href", "rel",
		"hidden", "role", "x-y", "=x", "=\"v\"", "='v'", "=v", "= v", "=\"a b\"", "='a\"b'", "=\"", "&amp;", "&", "\x00", "é", "<", "`",
		strings.Repeat("k", 70), "data-a", "data-b", "id", "=/", "/>"}
	rng := rand.New(rand.NewPCG(11, 12))
	tags := 0
	fromRaw := 0
	for range 20_000 {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString([]string{"<a", "<link", "<img", "<DIV", "<br"}[rng.IntN(5)])
			if rng.IntN(2) == 0 {
				b.WriteByte(' ')
			}
			for range rng.IntN(12) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			b.WriteString(">text")
		}
		got, want, n := attrsOf(b.String())
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("page %q:\nattrReader  %s\nTagAttr   %s", b.String(), strings.Join(got, " "), strings.Join(want, " "))
		}
		tags += strings.Count(strings.Join(want, " "), `":`)
		fromRaw += n
	}
	if fromRaw < tags/4 {
		t.Errorf("%d of %d tags read from their raw text", fromRaw, tags)
	}
	for _, tag := range []string{`<a href="/p/15">`, `<link rel="next" href="http://h0.fake.test/p/46">`, `<a href=16 class=x>`, `<img src='a.png' alt="">`} {
		if _, _, n := attrsOf(tag); n != 1 {
			t.Errorf("%s is not read from its raw text", tag)
		}
	}
}

// FuzzEachAttr: attrReader reads what z.TagAttr hands out, on any page.
func FuzzEachAttr(f *testing.F) {
	f.Add(`<a href="/p/15" HREF=x rel = nofollow/><img src='a' alt>`)
	f.Add("<a =x b=\"c\"d=e f/g>")
	f.Fuzz(func(t *testing.T, page string) {
		got, want, _ := attrsOf(page)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("page %q:\nattrReader  %s\nTagAttr   %s", page, strings.Join(got, " "), strings.Join(want, " "))
		}
	})
}
