package crawl

import "testing"

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
