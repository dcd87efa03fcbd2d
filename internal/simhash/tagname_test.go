package simhash

import "testing"

func TestRawTagName(t *testing.T) {
	for _, c := range []struct {
		raw, want string
		ok        bool
	}{
		{"<A HREF=x>", "a", true},
		{"</Title >", "title", true},
		{"<br/>", "br", true},
		{"<IFRAME\tsrc=x>", "iframe", true},
		{"<svg", "svg", true},            // cut short: the name so far
		{"<blockquote>", "", false},      // longer than the 8 bytes given
		{"<a\x00b>", "", false},          // z.TagName spells the NUL U+FFFD
		{"<abcdefgh>", "abcdefgh", true}, // exactly 8
		{"<abcdefghi x=1>", "", false},   // one more
	} {
		var buf [8]byte
		name, ok := RawTagName([]byte(c.raw), buf[:0])
		if string(name) != c.want || ok != c.ok {
			t.Errorf("RawTagName(%q) = %q, %v; want %q, %v", c.raw, name, ok, c.want, c.ok)
		}
	}
}
