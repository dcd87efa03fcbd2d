package urlnorm

import (
	"errors"
	"testing"
)

var fuzzSeeds = []string{
	"http://example.com/",
	"HTTP://Example.COM:80/a/./b/../c?b=2&a=1#frag",
	"https://bücher.example/ü?q=é",
	"http://example.com./%7e/%2f/%2E%2E/x?utm_source=a&%41=1",
	"http://[2001:DB8::1]:8080/a;jsessionid=1?PHPSESSID=2",
	`http:\\example.com\a\..\b`,
	"  http://exa\tmple.com/a b%zz  ",
	"//example.com/p",
	"?q=1",
	"#frag",
	"../../a/./b",
	"mailto:x@example.com",
	"javascript:void(0)",
	"http://user:pass@example.com:0080/",
	"http://xn--bcher-kva.example/",
}

// checkNormalized checks the invariants of a URL returned by Parse or Resolve.
func checkNormalized(t *testing.T, in string, c *Canonicalizer, u interface{ String() string }, key string) {
	t.Helper()
	s := u.String()
	again, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q) gave %q, which does not parse: %v", in, s, err)
	}
	if again.String() != s {
		t.Fatalf("Parse(%q) gave %q, which parses to %q", in, s, again.String())
	}
	if n := Normalize(again).String(); n != s {
		t.Fatalf("Normalize(%q) = %q, want it unchanged", s, n)
	}
	if k := c.Key(again); k != key {
		t.Fatalf("Key is not stable under re-parse: Key(%q) = %q, Key(Parse(%q)) = %q", in, key, s, k)
	}
	ku, err := Parse(key)
	if err != nil {
		t.Fatalf("Key(%q) = %q, which does not parse: %v", in, key, err)
	}
	if k := c.Key(ku); k != key {
		t.Fatalf("Key(%q) = %q, but Key(Parse(key)) = %q", in, key, k)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	c := NewCanonicalizer(Options{})
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := Parse(raw)
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrNotHTTP) {
				t.Fatalf("Parse(%q) error %v wraps no sentinel", raw, err)
			}
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" {
			t.Fatalf("Parse(%q) = %q: not a normalized http(s) URL", raw, u)
		}
		if Normalize(Normalize(u)).String() != Normalize(u).String() {
			t.Fatalf("Normalize is not idempotent on %q", u)
		}
		checkNormalized(t, raw, c, u, c.Key(u))
		_ = Host(u)
		_ = Domain(Host(u))
	})
}

func FuzzResolve(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add("http://a.example/b/c?d#e", s)
	}
	c := NewCanonicalizer(Options{})
	f.Fuzz(func(t *testing.T, base, ref string) {
		b, err := Parse(base)
		if err != nil {
			return
		}
		u, err := Resolve(b, ref)
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrNotHTTP) {
				t.Fatalf("Resolve(%q, %q) error %v wraps no sentinel", base, ref, err)
			}
			return
		}
		checkNormalized(t, ref, c, u, c.Key(u))
	})
}

// FuzzWHATWG checks the WHATWG parser alone: no panics, and its
// serialization parses back to itself, with and without a base.
func FuzzWHATWG(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "http://a.example/b/c?d#e")
	}
	f.Add("file:///C|/x/../y", "file:///D:/z")
	f.Add("non-special://h:1/a/./b", "")
	f.Add("web+demo:/.//not-a-host/", "")
	f.Add("sc:opaque  ?q#f", "")
	f.Add("//[::1.2.3.4]:80/p", "https://x/")
	f.Fuzz(func(t *testing.T, input, baseInput string) {
		var base *record
		if baseInput != "" {
			b, err := parseWHATWG(baseInput, nil)
			if err != nil {
				return
			}
			base = &b
		}
		r, err := parseWHATWG(input, base)
		if err != nil {
			return
		}
		again, err := parseWHATWG(r.href, nil)
		if err != nil {
			t.Fatalf("parse(%q) = %q, which does not parse: %v", input, r.href, err)
		}
		if again.href != r.href {
			t.Fatalf("parse(%q) = %q, which parses to %q", input, r.href, again.href)
		}
	})
}
