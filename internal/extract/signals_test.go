package extract

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCollapsedLen: collapsedLen is the length of the text with its
// white space collapsed as strings.Fields splits it, on text with ASCII
// and Unicode spaces and invalid UTF-8.
func TestCollapsedLen(t *testing.T) {
	cases := []string{"", " ", "a", " a ", "a  b\tc\n", "\u00a0x\u0085y\u2003 z\u3000", "\xff \xe2\x80", "caf\xe9 na\xc3\xafve"}
	alphabet := []string{" ", "\t", "\n", "\v", "\f", "\r", "a", "Z", "é", "\u00a0", "\u0085", "\u2028", "\xff", "\xe2", "\x80", "日本"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range r.IntN(20) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		if got, want := collapsedLen([]byte(c)), len(strings.Join(strings.Fields(c), " ")); got != want {
			t.Errorf("collapsedLen(%q) = %d, want %d", c, got, want)
		}
	}
}

func BenchmarkCollapsedLen(b *testing.B) {
	t := []byte(strings.Repeat("Paragraph 12 of the article. The bar-tailed godwit flies without stopping,\n  ", 130))
	b.SetBytes(int64(len(t)))
	for b.Loop() {
		collapsedLen(t)
	}
}
