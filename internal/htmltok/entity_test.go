package htmltok

import (
	"bytes"
	"fmt"
	"testing"

	"golang.org/x/net/html"
)

// referenceNames are named references of every kind the standard has
// (written without ';' too, two runes, the longest, ASCII values) and
// names that are none or only start with one.
var referenceNames = []string{
	"amp", "amp;", "AMP", "AMP;", "lt", "gt;", "quot", "nbsp", "nbsp;",
	"copy", "COPY;", "reg", "not", "not;", "notin;", "notinva;", "eacute",
	"Eacute;", "frac12", "frac34;", "sup2", "yuml", "szlig;", "THORN",
	"hellip;", "mdash;", "rarr;", "rArr;", "euro;", "trade;", "semi;",
	"num;", "lowbar;", "fjlig;", "NotEqualTilde;", "bne;", "acE;",
	"nvlt;", "ThickSpace;", "CounterClockwiseContourIntegral;",
	"DoubleLongLeftRightArrow;", "Afr;", "zwnj;", "ic;",
	// None, or a shorter one followed by more.
	"notit;", "notit", "ampx", "amp0;", "foo;", "x", "a1;", "nbspx",
	"eacutex;", "CounterClockwiseContourIntegralX;", "hellip", "mdash",
}

// TestEntitiesAreXNet decodes named references of every kind, and each
// followed by what changes how it is read ("=", a letter, ";"), in text
// and in an attribute value, as x/net/html does. (Before the copied
// table went, it held all 2,231 of the standard's names to x/net/html's
// tokenizer as askXNet asks it: none differed.)
func TestEntitiesAreXNet(t *testing.T) {
	for _, name := range referenceNames {
		for _, tail := range []string{"", "=", "x", ";", "9=", "&amp;"} {
			ref := "&" + name + tail
			if got, want := string(decode(nil, []byte(ref), false, true, false)), html.UnescapeString(ref); got != want {
				t.Errorf("text %q = %q, x/net/html %q", ref, got, want)
			}
			page := []byte(`<a b="` + ref + `">`)
			z := html.NewTokenizer(bytes.NewReader(page))
			z.Next()
			_, want, _ := z.TagAttr()
			ours := New(page)
			ours.Next()
			if _, got := ours.Attr(0); !bytes.Equal(got, want) {
				t.Errorf("attribute %q = %q, x/net/html %q", ref, got, want)
			}
		}
	}
}

// TestNamedMissesBounded reads more distinct non-references than the
// cache keeps: each is still no reference, and the cache stops growing.
func TestNamedMissesBounded(t *testing.T) {
	for i := range maxMisses + 100 {
		name := []byte(fmt.Sprintf("zz%dq;", i))
		if _, _, ok := named(name); ok {
			t.Fatalf("%q is a reference", name)
		}
	}
	// Other tests of the package may have filled the cache first, with
	// references and misses: count the misses kept, whoever added them.
	names.RLock()
	misses := 0
	for _, r := range names.known {
		if r[0] == 0 {
			misses++
		}
	}
	_, lastKept := names.known[fmt.Sprintf("zz%dq;", maxMisses+99)]
	names.RUnlock()
	if misses > maxMisses || lastKept {
		t.Errorf("%d misses kept (the last one too: %v), bound %d", misses, lastKept, maxMisses)
	}
	if r1, _, ok := named([]byte("hellip;")); !ok || r1 != '\u2026' {
		t.Errorf("hellip; after the bound = %q, %v", r1, ok)
	}
}
