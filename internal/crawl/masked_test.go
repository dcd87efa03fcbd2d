package crawl

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func TestMaskedFingerprint(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`<input name="csrf" value="8f3a9c01d2e4b7aa">`, `<input name="csrf" value="17bc4e9f0a2d6c31">`, true},
		{`<a href="/?sid=a1b2c3d4e5f6">`, `<a href="/?sid=f6e5d4c3b2a1">`, true},
		{`generated 1795729201`, `generated 1795729262`, true},
		{`<h1>home</h1>`, `<h1>legacy-home</h1>`, false},
		{`<a href="/a/17">`, `<a href="/a/18">`, false},
		{`page 2026-11-26`, `page 2026-11-27`, false},
		{`token abc`, `token xyz`, false},
		{`nonce 8123456789012345a`, `nonce 0123456789f12345a`, true},
		{`nonce a8c1e9f0b2d4c6e7`, `nonce 8123456789012345`, true},
		{`the internationalization`, `the internationalisation`, false},
	} {
		if got := maskedFingerprint([]byte(c.a)) == maskedFingerprint([]byte(c.b)); got != c.same {
			t.Errorf("maskedFingerprint(%q) == maskedFingerprint(%q) is %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

// TestMaskedFingerprintStable: the fingerprint is stored with each URL's
// outcome and compared at its next fetch, so its value must not change
// between versions: it equals the byte-by-byte implementation it
// replaced (maskedFingerprintBytes) on random text rich in token-like runs.
func TestMaskedFingerprintStable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("aZ09-_ <>=\"/é\x00")
	for range 3000 {
		b := make([]byte, r.IntN(200))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
			if r.IntN(3) == 0 {
				b[i] = '0' + byte(r.IntN(10))
			}
		}
		if got, want := maskedFingerprint(b), maskedFingerprintBytes(b); got != want {
			t.Fatalf("maskedFingerprint(%q) = %x, want %x", b, got, want)
		}
	}
}

// maskedFingerprintBytes is maskedFingerprint as it was first written,
// a comparison per byte: the reference of TestMaskedFingerprintStable.
func maskedFingerprintBytes(body []byte) uint64 {
	isTokenByte := func(c byte) bool {
		return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_'
	}
	d := xxhash.New()
	start := 0
	for i := 0; i < len(body); {
		if !isTokenByte(body[i]) {
			i++
			continue
		}
		j, digits, letters, dashes := i, 0, 0, 0
		for ; j < len(body) && isTokenByte(body[j]); j++ {
			switch c := body[j]; {
			case '0' <= c && c <= '9':
				digits++
			case c == '-':
				dashes++
			case c != '_':
				letters++
			}
		}
		if j-i >= minTokenLen && digits >= 2 && (letters > 0 || dashes == 0) {
			_, _ = d.Write(body[start:i])
			_, _ = d.Write([]byte{0})
			start = j
		}
		i = j
	}
	_, _ = d.Write(body[start:])
	return max(d.Sum64(), 1)
}

func BenchmarkMaskedFingerprint(b *testing.B) {
	page := []byte(strings.Repeat(`<p>Paragraph 12 of the article, <a href="/section/3/page-17.html?sid=a1b2c3d4e5f6">godwits</a> fly on 2026-11-27.</p>`+"\n", 130))
	for _, f := range []struct {
		name string
		fp   func([]byte) uint64
	}{{"table", maskedFingerprint}, {"bytes", maskedFingerprintBytes}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				f.fp(page)
			}
		})
	}
}
