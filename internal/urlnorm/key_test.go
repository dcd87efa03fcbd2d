package urlnorm

import (
	"net/netip"
	"net/url"
	"testing"

	"golang.org/x/net/publicsuffix"
)

func mustParse(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("url.Parse(%q): %v", s, err)
	}
	return u
}

func TestKey(t *testing.T) {
	c := NewCanonicalizer(Options{})
	tests := []struct {
		in, want string
	}{
		{"http://example.com", "http://example.com/"},
		{"http://example.com/?", "http://example.com/"},
		{"http://example.com/a#f", "http://example.com/a"},
		// Sorting, stable for repeated names.
		{"http://example.com/?b=2&a=1&c=3", "http://example.com/?a=1&b=2&c=3"},
		{"http://example.com/?b=2&a=1&b=1", "http://example.com/?a=1&b=2&b=1"},
		{"http://example.com/?a=1&&b=2&", "http://example.com/?a=1&b=2"},
		{"http://example.com/?flag&a", "http://example.com/?a&flag"},
		// Tracking parameters, case-insensitive, prefixes.
		{"http://example.com/?utm_source=x&utm_medium=y&id=7", "http://example.com/?id=7"},
		{"http://example.com/?UTM_Source=x&id=7", "http://example.com/?id=7"},
		{"http://example.com/?utm%5Fsource=x&id=7", "http://example.com/?id=7"},
		{"http://example.com/?gclid=1&fbclid=2&_ga=3&msclkid=4", "http://example.com/"},
		{"http://example.com/?utm=1", "http://example.com/?utm=1"},
		{"http://example.com/?xgclid=1", "http://example.com/?xgclid=1"},
		// Session identifiers in the query and as path parameters.
		{"http://example.com/cart?PHPSESSID=abc&item=2", "http://example.com/cart?item=2"},
		{"http://example.com/cart;jsessionid=0123ABC?item=2", "http://example.com/cart?item=2"},
		{"http://example.com/a;JSESSIONID=1/b;v=2", "http://example.com/a/b;v=2"},
		{"http://example.com/a;x=1;sid=2;y=3", "http://example.com/a;x=1;y=3"},
		{"http://example.com/?ASPSESSIONIDQQGGQGPG=x&k=v", "http://example.com/?k=v"},
		{"http://example.com/a;sidx=1", "http://example.com/a;sidx=1"},
		// Normalization happens first.
		{"HTTP://WWW.Example.COM:80/a/./b/../c?%7a=1", "http://www.example.com/a/c?z=1"},
	}
	for _, tt := range tests {
		if got := c.Key(mustParse(t, tt.in)); got != tt.want {
			t.Errorf("Key(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKeySpellings(t *testing.T) {
	c := NewCanonicalizer(Options{})
	groups := [][]string{
		{
			"http://example.com/a/b?x=1&y=2",
			"HTTP://EXAMPLE.COM:80/a/./b?y=2&x=1",
			"http://example.com./a/c/../b?x=1&utm_source=news&y=2#top",
			"http://example.com/%61/%62?%78=1&y=2&",
			"http://user@example.com/a;jsessionid=42/b?y=2&x=1&gclid=9",
		},
		{
			"https://bücher.example/ü",
			"https://xn--bcher-kva.example/%c3%bc",
			"https://BÜCHER.example:443/%C3%BC?",
		},
	}
	for _, g := range groups {
		want := c.Key(mustParse(t, g[0]))
		for _, s := range g[1:] {
			u, err := Parse(s)
			if err != nil {
				t.Fatalf("Parse(%q): %v", s, err)
			}
			if got := c.Key(u); got != want {
				t.Errorf("Key(%q) = %q, want %q (as for %q)", s, got, want, g[0])
			}
		}
	}
}

func TestKeyOptions(t *testing.T) {
	u := mustParse(t, "http://example.com/a;sid=1?b=1&utm_x=2&a=3&ref=4")
	tests := []struct {
		name string
		o    *Options
		want string
	}{
		{"nil is default", nil, "http://example.com/a?a=3&b=1&ref=4"},
		{"keep order", &Options{KeepQueryOrder: true}, "http://example.com/a?b=1&a=3&ref=4"},
		{"strip nothing", &Options{StripParams: []string{}, SessionParams: []string{}}, "http://example.com/a;sid=1?a=3&b=1&ref=4&utm_x=2"},
		{"custom", &Options{StripParams: []string{"REF", "utm_*"}}, "http://example.com/a?a=3&b=1"},
		{"strip all", &Options{StripParams: []string{"*"}}, "http://example.com/a"},
	}
	for _, tt := range tests {
		if got := Key(u, tt.o); got != tt.want {
			t.Errorf("%s: Key(%q) = %q, want %q", tt.name, u, got, tt.want)
		}
	}
}

func TestOptions(t *testing.T) {
	var o Options
	o.Default()
	if len(o.StripParams) != 10 || len(o.SessionParams) != 5 {
		t.Errorf("Default() = %+v", o)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("Validate(defaults) = %v", err)
	}
	// Default does not share its lists between calls.
	o.StripParams[0] = "changed"
	var o2 Options
	o2.Default()
	if o2.StripParams[0] != "utm_*" {
		t.Errorf("Default() shares state: %q", o2.StripParams[0])
	}
	bad := Options{StripParams: []string{"ok", ""}, SessionParams: []string{"a=b"}}
	if err := bad.Validate(); err == nil {
		t.Errorf("Validate(%+v) = nil, want error", bad)
	}
}

func TestHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://Example.COM/", "example.com"},
		{"http://example.com:80/", "example.com"},
		{"https://example.com:443/", "example.com"},
		{"http://example.com:443/", "example.com:443"},
		{"https://example.com:8443/", "example.com:8443"},
		{"http://example.com.:8080/", "example.com:8080"},
		{"http://bücher.example/", "xn--bcher-kva.example"},
		{"http://[2001:DB8::1]:8080/", "[2001:db8::1]:8080"},
		{"http://[::1]/", "[::1]"},
	}
	for _, tt := range tests {
		if got := Host(mustParse(t, tt.in)); got != tt.want {
			t.Errorf("Host(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDomain(t *testing.T) {
	tests := []struct{ in, want string }{
		{"www.example.com", "example.com"},
		{"a.b.example.com", "example.com"},
		{"example.com", "example.com"},
		{"www.example.co.uk", "example.co.uk"},
		{"WWW.Example.COM.", "example.com"},
		{"www.example.com:8080", "example.com"},
		{"foo.blogspot.com", "foo.blogspot.com"},
		{"co.uk", "co.uk"},
		{"com", "com"},
		{"localhost", "localhost"},
		{"localhost:8080", "localhost"},
		{"intranet", "intranet"},
		{"192.0.2.1", "192.0.2.1"},
		{"192.0.2.1:8080", "192.0.2.1"},
		{"[2001:db8::1]", "[2001:db8::1]"},
		{"[2001:db8::1]:8080", "[2001:db8::1]"},
		{"2001:db8::1", "2001:db8::1"},
		{"xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Domain(tt.in); got != tt.want {
			t.Errorf("Domain(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDomainNameAllocations: Domain runs once per link found (the
// domain scope); for a lower-case domain name it allocates no more than
// the public suffix lookup itself does (no refused IP parse).
func TestDomainNameAllocations(t *testing.T) {
	const h = "www.example.co.uk"
	want := testing.AllocsPerRun(100, func() { _, _ = publicsuffix.EffectiveTLDPlusOne(h) })
	if n := testing.AllocsPerRun(100, func() { _ = Domain(h) }); n > want {
		t.Errorf("Domain(%q): %v allocations, want %v (the public suffix lookup's)", h, n, want)
	}
}

// FuzzMayBeIP: every string netip parses as an address is one mayBeIP
// lets through to it, so skipping the parse never changes Domain.
func FuzzMayBeIP(f *testing.F) {
	for _, s := range []string{"192.0.2.1", "2001:db8::1", "::ffff:192.0.2.1", "fe80::1%eth0", "example.com", "1.2.3.4.", "0x7f.1", "a.b.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := netip.ParseAddr(s); err == nil && !mayBeIP(s) {
			t.Errorf("mayBeIP(%q) = false for an address netip parses", s)
		}
	})
}

func TestSURT(t *testing.T) {
	c := NewCanonicalizer(Options{})
	tests := []struct{ in, want string }{
		{"http://www.example.com/", "com,example)/"},
		{"https://www.Example.com:8080/A/b/?q=2&a=1", "com,example:8080)/a/b?a=1&q=2"},
		{"http://example.com", "com,example)/"},
		{"http://www2.news.example.co.uk/Story.html", "uk,co,example,news)/story.html"},
		{"http://www.com/", "com,www)/"},
		{"http://wwwx.example.com/", "com,example,wwwx)/"},
		{"http://192.0.2.1:8080/x/", "1,2,0,192:8080)/x"},
		{"http://[2001:db8::1]/", "[2001:db8::1])/"},
		{"http://example.com/a?b=2&b=1&a&a=", "com,example)/a?a&a=&b=1&b=2"},
		{"http://example.com/?utm_source=x&sid=1", "com,example)/"},
		{"http://example.com/%C3%A9t%C3%A9", "com,example)/%c3%a9t%c3%a9"},
		{"http://xn--bcher-kva.example/", "example,xn--bcher-kva)/"},
	}
	for _, tt := range tests {
		u, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if got := c.SURT(u); got != tt.want {
			t.Errorf("SURT(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := SURT(c.Key(u)); got != tt.want {
			t.Errorf("SURT(Key(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
