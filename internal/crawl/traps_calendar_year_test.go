package crawl

import (
	"math/rand/v2"
	"testing"
)

// hasYearByPosition is hasYear as it was written before it looked at
// runs of digits: every position tried. The reference for TestHasYearRuns.
func hasYearByPosition(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if (i == 0 || !isDigitByte(s[i-1])) && isYear(s[i:i+4]) && (i+4 == len(s) || !isDigitByte(s[i+4])) {
			return true
		}
		if (i == 0 || !isDigitByte(s[i-1])) && i+8 <= len(s) && isCompactDate(s[i:i+8]) && (i+8 == len(s) || !isDigitByte(s[i+8])) {
			return true
		}
	}
	return false
}

// TestHasYearRuns: hasYear answers as the position-by-position reference
// on chosen keys and on random strings of digits and separators.
func TestHasYearRuns(t *testing.T) {
	cases := []string{"", "2026", "/2026/", "/x2026y", "12026", "20261", "1899", "2199", "2200",
		"/20261121", "/20261321", "/202611211", "/a/2026-11-21", "page=2026&q=1", "/p/123456789", "19001231x"}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "0123456789012345678912/-a?"
	for range 20000 {
		b := make([]byte, r.IntN(14))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	yes := 0
	for _, c := range cases {
		got, want := hasYear(c), hasYearByPosition(c)
		if got != want {
			t.Errorf("hasYear(%q) = %v, want %v", c, got, want)
		}
		if got {
			yes++
		}
	}
	if yes < 100 {
		t.Errorf("only %d of %d strings have a year: the random ones test little", yes, len(cases))
	}
}
