package htmltok

import (
	"bytes"
	"testing"

	"golang.org/x/net/html"
)

// TestEntitiesAreXNet decodes every named reference of our tables, and
// each followed by what changes how it is read ("=", a letter, ";"), in
// text and in an attribute value, as x/net/html does.
func TestEntitiesAreXNet(t *testing.T) {
	names := make([]string, 0, len(entity)+len(entity2))
	for name := range entity {
		names = append(names, name)
	}
	for name := range entity2 {
		names = append(names, name)
	}
	if len(names) != 2231 {
		t.Errorf("%d named references, want the standard's 2231", len(names))
	}
	for _, name := range names {
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
