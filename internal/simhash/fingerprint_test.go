package simhash

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b uint64
		want int
	}{
		{0, 0, 0},
		{0, 1, 1},
		{1 << 63, 0, 1},
		{0xff, 0, 8},
		{0xf0f0, 0x0ff0, 8},
		{^uint64(0), 0, 64},
		{0x5555555555555555, 0xaaaaaaaaaaaaaaaa, 64},
		{0xdeadbeef, 0xdeadbeef, 0},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%#x, %#x) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%#x, %#x) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

func shingles(text string) []string {
	var out []string
	forEachShingle(text, func(s []byte) { out = append(out, string(s)) })
	return out
}

func TestShingles(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{" ,;! ", nil},
		{"one", []string{"one"}},
		{"One two", []string{"one", "two"}},
		{"The cat sat on", []string{"the", "cat", "sat", "on"}},
		{"  The, CAT -- sat!\n\ton the mat.", []string{"the", "cat", "sat", "on", "the", "mat"}},
		{"don't stop", []string{"don", "t", "stop"}},
		{"année 2024 Ça va", []string{"année", "2024", "ça", "va"}},
		{"ΣΊΣΥΦΟΣ ήταν", []string{"σίσυφοσ", "ήταν"}},        // unicode.ToLower is per rune: no final sigma
		{"हिन्दी भाषा है", []string{"हिन्दी", "भाषा", "है"}}, // vowel signs and virama are marks
		{"你好，世界", []string{"你", "好", "世", "界"}},              // one word per ideograph
		{"Go言語です", []string{"go", "言", "語", "で", "す"}},       // Latin, Han, Hiragana
		{"a\xffb", []string{"a", "b"}},                       // invalid UTF-8 separates
		{"snake_case x", []string{"snake", "case", "x"}},
	}
	for _, tt := range tests {
		if got := shingles(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("shingles(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestFingerprintIsFromFeatures checks Fingerprint against its definition:
// FromFeatures of the shingles, each weighted by its count.
func TestFingerprintIsFromFeatures(t *testing.T) {
	texts := []string{
		"", "one", "one two", "The cat sat on", "the the the the the",
		randomText(rand.New(rand.NewPCG(1, 2)), 2000, 50), // repeats, and >255 features
		randomText(rand.New(rand.NewPCG(3, 4)), 700, 5000),
	}
	for _, text := range texts {
		counts := map[string]int{}
		for _, s := range shingles(text) {
			counts[s]++
		}
		var fs []Feature
		for s, n := range counts {
			fs = append(fs, Feature{s, n})
		}
		if got, want := Fingerprint(text), FromFeatures(fs); got != want {
			t.Errorf("Fingerprint(%.40q) = %#x, want FromFeatures of its shingles %#x", text, got, want)
		}
	}
}

func TestFromFeatures(t *testing.T) {
	one := xxhash.Sum64String("one")
	tests := []struct {
		name     string
		features []Feature
		want     uint64
	}{
		{"none", nil, 0},
		{"zero weight", []Feature{{"one", 0}}, 0},
		{"one feature is its hash", []Feature{{"one", 1}}, one},
		{"heavier wins", []Feature{{"one", 3}, {"two", 1}, {"three", 1}}, one},
		{"zero weight ignored", []Feature{{"one", 1}, {"two", 0}}, one},
		{"opposite weights cancel", []Feature{{"one", 1}, {"one", -1}}, 0},
	}
	for _, tt := range tests {
		if got := FromFeatures(tt.features); got != tt.want {
			t.Errorf("%s: FromFeatures(%v) = %#x, want %#x", tt.name, tt.features, got, tt.want)
		}
	}
	// A weight is the same as repeating the feature.
	a := FromFeatures([]Feature{{"x", 2}, {"y", 1}, {"z", 1}, {"w", 1}})
	b := FromFeatures([]Feature{{"x", 1}, {"y", 1}, {"x", 1}, {"z", 1}, {"w", 1}})
	if a != b {
		t.Errorf("weight 2 = %#x, two features = %#x", a, b)
	}
}

// TestAccumulator checks the byte-lane accumulator of Fingerprint against
// the plain weighted sum, across flushes.
func TestAccumulator(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 254, 255, 256, 511, 1000, 100000} {
		hashes := make([]uint64, n)
		for i := range hashes {
			// Biased bits, so that counts sit near the majority threshold.
			hashes[i] = r.Uint64()&r.Uint64() | r.Uint64()&r.Uint64()&r.Uint64()
		}
		var acc accumulator
		fs := make([]Feature, n)
		for i, h := range hashes {
			acc.add(h)
			fs[i] = Feature{strconv.Itoa(i), 1}
		}
		want := fromFeatures(fs, func(s string) uint64 {
			i, _ := strconv.Atoi(s)
			return hashes[i]
		})
		if got := acc.sum(); got != want {
			t.Errorf("accumulator over %d hashes = %#x, want %#x", n, got, want)
		}
	}
}

// vocabulary is a fixed list of words for synthetic pages.
var vocabulary = strings.Fields(`the of and to in is was for on that with as by at
from his her it an were are which this be or has had not but first one their
its new after who they have two been also other all into during time would more
only year when over there can most some up three world she him city about
crawler archive page link robot fetch queue host delay record digest index
shingle hash bit table block prefix budget frontier politeness sitemap`)

// randomText returns n words drawn from the first v words of a shuffled
// vocabulary, with v past its length meaning made-up words.
func randomText(r *rand.Rand, n, v int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		w := r.IntN(v)
		if w < len(vocabulary) {
			b.WriteString(vocabulary[w])
		} else {
			b.WriteString("w")
			b.WriteString(strings.Repeat("x", w%7))
			b.WriteString(string(rune('a' + w%26)))
			b.WriteString(string(rune('a' + w/26%26)))
		}
	}
	return b.String()
}

func TestFingerprintNearDuplicates(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	base := randomText(r, 800, 3000)
	words := strings.Fields(base)
	edit := func(f func(w []string) []string) string {
		return strings.Join(f(slices.Clone(words)), " ")
	}
	fp := Fingerprint(base)
	tests := []struct {
		name    string
		text    string
		maxDist int
	}{
		{"identical", base, 0},
		{"case and spacing", strings.ToUpper(strings.ReplaceAll(base, " ", " \n\t ")), 0},
		{"punctuation", strings.ReplaceAll(base, " ", ", "), 0},
		{"one word changed", edit(func(w []string) []string { w[400] = "godwit"; return w }), 6},
		{"one word removed", edit(func(w []string) []string { return slices.Delete(w, 100, 101) }), 6},
		{"date appended", base + " Last updated 21 November 2026", 6},
		{"five words changed", edit(func(w []string) []string {
			for _, i := range []int{10, 200, 390, 580, 770} {
				w[i] = "changed"
			}
			return w
		}), 10},
	}
	for _, tt := range tests {
		d := Distance(fp, Fingerprint(tt.text))
		t.Logf("%s: distance %d", tt.name, d)
		if d > tt.maxDist {
			t.Errorf("%s: distance %d, want at most %d", tt.name, d, tt.maxDist)
		}
	}
}

// TestFingerprintUnrelated checks that unrelated pages are far apart: for
// random fingerprints the distance is binomial(64, 1/2), mean 32, and
// below 11 with probability 1e-5.
func TestFingerprintUnrelated(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var fps []uint64
	for range 50 {
		fps = append(fps, Fingerprint(randomText(r, 300, 3000)))
	}
	sum, pairs, near := 0, 0, 0
	for i := range fps {
		for j := range i {
			d := Distance(fps[i], fps[j])
			sum += d
			pairs++
			if d <= 10 {
				near++
			}
		}
	}
	mean := float64(sum) / float64(pairs)
	t.Logf("unrelated pages: mean distance %.1f over %d pairs, %d at 10 or less", mean, pairs, near)
	if near > 0 || mean < 28 || mean > 36 {
		t.Errorf("unrelated pages: mean distance %.1f, %d of %d pairs within 10; want about 32 and none", mean, near, pairs)
	}
}

// TestSum64: the features' hash is xxhash.Sum64, whatever the length
// (sum64 computes short inputs itself).
func TestSum64(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 100; n++ {
		for range 50 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			if got, want := sum64(b), xxhash.Sum64(b); got != want {
				t.Fatalf("sum64(%x) = %x, want xxhash.Sum64 %x", b, got, want)
			}
		}
	}
}

// TestFingerprintValues pins fingerprints of a few texts: they are stored
// (with each URL's outcome, in the near-duplicate index's snapshots) and
// compared across crawls, so their values must not change.
func TestFingerprintValues(t *testing.T) {
	for _, c := range []struct {
		page string
		fp   uint64
	}{
		{"<p>The cat saw the dog</p>", 0xb3a03a21f8b5f2f},
		{"<title>t</title><p>Godwits are large, long-billed, long-legged <b>wading</b> birds.</p><nav>menu</nav>", 0x640a4f5d79f6dbb5},
		{"<p>Café crème, naïve Übermensch 日本語のテキスト ऋषिकेश 1,000 a-b</p>", 0x5c50e2318afa2d4e},
	} {
		text := NewTextFingerprint()
		text.feed(strings.NewReader(c.page))
		fp, _ := text.Fingerprint()
		if fp != c.fp {
			t.Errorf("%q: fingerprint %#x, want %#x", c.page, fp, c.fp)
		}
	}
}
