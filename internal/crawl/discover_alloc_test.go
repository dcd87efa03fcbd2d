package crawl

import (
	"fmt"
	"testing"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// TestAppendURLTemplate: the template built in a reused buffer is
// urlTemplate's, whatever the buffer held, and costs no allocation once
// the buffer is grown.
func TestAppendURLTemplate(t *testing.T) {
	buf := appendURLTemplate(nil, "/a/very/long/path/with/9/numbers/12345678-aaaa", "x=1&y=2")
	for _, c := range []struct{ path, query string }{
		{"/section/3/page-17.html", ""},
		{"/about.html", ""}, // nothing to generalize: ""
		{"/search", "page=2&q=w"},
		{"", ""},
		{"/p/0123456789abcdef", "a=1&a=2"},
	} {
		buf = appendURLTemplate(buf[:0], c.path, c.query)
		if got, want := string(buf), urlTemplate(c.path, c.query); got != want {
			t.Errorf("appendURLTemplate(%q, %q) = %q, want %q", c.path, c.query, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		buf = appendURLTemplate(buf[:0], "/section/3/page-17.html", "q=1")
	}); n != 0 {
		t.Errorf("appendURLTemplate allocates %v times a call", n)
	}
}

// TestScopeDomainCache: the domain scope answers the same with its host
// cache, for a host seen again, and after the cache is cleared at
// maxDomains hosts.
func TestScopeDomainCache(t *testing.T) {
	s := newScope(Config{Scope: ScopeDomain})
	seed, _ := urlnorm.Parse("http://www.a.co.uk/")
	s.add(seed)
	check := func(raw string, want bool) {
		t.Helper()
		u, err := urlnorm.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.inSeeds(u); got != want {
			t.Errorf("inSeeds(%s) = %v, want %v", raw, got, want)
		}
	}
	for range 2 {
		check("http://cdn.a.co.uk/x", true)
		check("http://b.co.uk/", false)
		check("http://co.uk/", false)
	}
	for i := range maxDomains + 10 {
		check(fmt.Sprintf("http://h%d.b.example/", i), false)
	}
	check("http://img.a.co.uk/y", true)
	check("http://b.co.uk/", false)
	if len(s.domains) > maxDomains {
		t.Errorf("%d hosts cached, want at most %d", len(s.domains), maxDomains)
	}
}
