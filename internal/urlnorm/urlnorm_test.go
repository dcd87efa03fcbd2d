package urlnorm

import (
	"errors"
	"net/url"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		// Scheme and host case, default ports, empty path.
		{in: "HTTP://Example.COM", want: "http://example.com/"},
		{in: "http://example.com:80/", want: "http://example.com/"},
		{in: "https://example.com:443/", want: "https://example.com/"},
		{in: "http://example.com:443/", want: "http://example.com:443/"},
		{in: "https://example.com:80/", want: "https://example.com:80/"},
		{in: "http://example.com:8080/", want: "http://example.com:8080/"},
		{in: "http://example.com:0080/", want: "http://example.com/"},
		{in: "http://example.com:08080/", want: "http://example.com:8080/"},
		{in: "http://example.com:/", want: "http://example.com/"},
		// Fragments.
		{in: "http://example.com/a#frag", want: "http://example.com/a"},
		{in: "http://example.com/a?q=1#frag#more", want: "http://example.com/a?q=1"},
		{in: "http://example.com/#", want: "http://example.com/"},
		// Dot segments.
		{in: "http://example.com/a/./b", want: "http://example.com/a/b"},
		{in: "http://example.com/a/b/../c", want: "http://example.com/a/c"},
		{in: "http://example.com/a/b/..", want: "http://example.com/a/"},
		{in: "http://example.com/a/b/.", want: "http://example.com/a/b/"},
		{in: "http://example.com/../../a", want: "http://example.com/a"},
		{in: "http://example.com/a/%2e%2E/b", want: "http://example.com/b"},
		{in: "http://example.com/.well-known/x", want: "http://example.com/.well-known/x"},
		{in: "http://example.com/a..b/..c", want: "http://example.com/a..b/..c"},
		{in: "http://example.com//a//b", want: "http://example.com//a//b"},
		// Percent-encoding.
		{in: "http://example.com/%7euser/%41%42", want: "http://example.com/~user/AB"},
		{in: "http://example.com/a%2fb", want: "http://example.com/a%2Fb"},
		{in: "http://example.com/%e3%83%84", want: "http://example.com/%E3%83%84"},
		{in: "http://example.com/ツ", want: "http://example.com/%E3%83%84"},
		{in: "http://example.com/a b", want: "http://example.com/a%20b"},
		{in: "http://example.com/a%20b", want: "http://example.com/a%20b"},
		{in: "http://example.com/100%", want: "http://example.com/100%25"},
		{in: "http://example.com/%zz", want: "http://example.com/%25zz"},
		{in: "http://example.com/a|b{c}", want: "http://example.com/a%7Cb%7Bc%7D"},
		{in: "http://example.com/(a)!*$,;=:@", want: "http://example.com/(a)!*$,;=:@"},
		{in: "http://example.com/?q=%7e%2b+x%20y", want: "http://example.com/?q=~%2B+x%20y"},
		{in: "http://example.com/?q=a b", want: "http://example.com/?q=a%20b"},
		{in: "http://example.com/?q=é", want: "http://example.com/?q=%C3%A9"},
		{in: "http://example.com/?q='\"<>", want: "http://example.com/?q=%27%22%3C%3E"},
		{in: "http://example.com/?q=a|b^c", want: "http://example.com/?q=a|b^c"},
		// Query order kept, empty query kept.
		{in: "http://example.com/?b=2&a=1", want: "http://example.com/?b=2&a=1"},
		{in: "http://example.com/?", want: "http://example.com/?"},
		{in: "http://example.com/a??b", want: "http://example.com/a??b"},
		// IDN and trailing dots.
		{in: "http://bücher.example/", want: "http://xn--bcher-kva.example/"},
		{in: "http://BÜCHER.example/", want: "http://xn--bcher-kva.example/"},
		{in: "http://xn--bcher-kva.example/", want: "http://xn--bcher-kva.example/"},
		{in: "http://XN--BCHER-KVA.example/", want: "http://xn--bcher-kva.example/"},
		// An ASCII domain is only lower-cased, even when a label is not
		// valid Punycode (WHATWG URL Standard, "domain to ASCII").
		{in: "http://xn--a.EXAMPLE/", want: "http://xn--a.example/"},
		{in: "http://例え.テスト/", want: "http://xn--r8jz45g.xn--zckzah/"},
		{in: "http://example.com./", want: "http://example.com/"},
		{in: "http://example.com.../", want: "http://example.com/"},
		{in: "http://ＥＸＡＭＰＬＥ.com/", want: "http://example.com/"},
		{in: "http://r3---sn-abc.example/", want: "http://r3---sn-abc.example/"},
		{in: "http://my_host.example/", want: "http://my_host.example/"},
		// IP addresses.
		{in: "http://127.0.0.1:8080/", want: "http://127.0.0.1:8080/"},
		{in: "http://[2001:DB8:0:0:0:0:0:1]/", want: "http://[2001:db8::1]/"},
		{in: "http://[::1]:80/", want: "http://[::1]/"},
		// IPv4 in every form a browser accepts, and percent-encoded hosts.
		{in: "http://0x7f.1/", want: "http://127.0.0.1/"},
		{in: "http://2130706433/", want: "http://127.0.0.1/"},
		{in: "http://0177.0.0.01/", want: "http://127.0.0.1/"},
		{in: "http://192.168.257/", want: "http://192.168.1.1/"},
		{in: "http://1.2.3.4./", want: "http://1.2.3.4/"},
		{in: "http://%31%32%37.0.0.1/", want: "http://127.0.0.1/"},
		{in: "http://ex%41mple.com/", want: "http://example.com/"},
		{in: "http://b%C3%BCcher.example/", want: "http://xn--bcher-kva.example/"},
		{in: "http://[::ffff:192.0.2.1]/", want: "http://[::ffff:c000:201]/"},
		// Whitespace, tabs and newlines.
		{in: "  http://example.com/a  ", want: "http://example.com/a"},
		{in: "\t\nhttp://example.com/\x00", want: "http://example.com/"},
		{in: "http://exa\tmple.com/a\nb\rc", want: "http://example.com/abc"},
		// Browser leniency for special schemes.
		{in: `http:\\example.com\a\b?x\y`, want: `http://example.com/a/b?x\y`},
		{in: "http:example.com/a", want: "http://example.com/a"},
		{in: "http:/example.com/a", want: "http://example.com/a"},
		{in: "http:///example.com/a", want: "http://example.com/a"},
		// Userinfo is dropped.
		{in: "http://user:pass@example.com/", want: "http://example.com/"},
		{in: "http://example.org@example.com/", want: "http://example.com/"},
		// Control characters are encoded in the path.
		{in: "http://example.com/a\x01b", want: "http://example.com/a%01b"},
		// Rejections.
		{in: "mailto:someone@example.com", err: ErrNotHTTP},
		{in: "javascript:void(0)", err: ErrNotHTTP},
		{in: "JavaScript:alert('x y')", err: ErrNotHTTP},
		{in: "ftp://example.com/", err: ErrNotHTTP},
		{in: "data:text/html,hi", err: ErrNotHTTP},
		{in: "tel:+123", err: ErrNotHTTP},
		{in: `c:\windows`, err: ErrNotHTTP},
		{in: "", err: ErrInvalid},
		{in: "   ", err: ErrInvalid},
		{in: "/relative/path", err: ErrInvalid},
		{in: "//example.com/", err: ErrInvalid},
		{in: "example.com", err: ErrInvalid},
		{in: "http://", err: ErrInvalid},
		{in: "http:///", err: ErrInvalid},
		{in: "http://:80/", err: ErrInvalid},
		{in: "http://exa mple.com/", err: ErrInvalid},
		{in: "http://exa%20mple.com/", err: ErrInvalid},
		{in: "http://exa\x01mple.com/", err: ErrInvalid},
		{in: "http://exa<mple.com/", err: ErrInvalid},
		{in: "http://example.com:99999/", err: ErrInvalid},
		{in: "http://example.com:8x/", err: ErrInvalid},
		{in: "http://[::1/", err: ErrInvalid},
		{in: "http://[fe80::1%25eth0]/", err: ErrInvalid},
		{in: "http://./", err: ErrInvalid},
		{in: "http://256.0.0.1/", err: ErrInvalid},
		{in: "http://1.2.3.4.5/", err: ErrInvalid},
		{in: "http://example.0x/", err: ErrInvalid},
		{in: "http://a{b}.example/", err: ErrInvalid},
		{in: "http://ex%00ample.com/", err: ErrInvalid},
		{in: "http://\u00ad/", err: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := Parse(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Parse(%q) = %v, %v; want error %v", tt.in, u, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tt.in, err)
			}
			if got := u.String(); got != tt.want {
				t.Errorf("Parse(%q) = %q, want %q", tt.in, got, tt.want)
			}
			// The result is a fixed point of Normalize, and parses back to itself.
			if got := Normalize(u).String(); got != tt.want {
				t.Errorf("Normalize(Parse(%q)) = %q, want %q", tt.in, got, tt.want)
			}
			if again, err := Parse(tt.want); err != nil || again.String() != tt.want {
				t.Errorf("Parse(%q) = %v, %v; want itself", tt.want, again, err)
			}
		})
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := Parse("http://example.com:99999/")
	want := `urlnorm: invalid URL "http://example.com:99999/": invalid port "99999"`
	if err == nil || err.Error() != want {
		t.Errorf("Parse error = %v, want %s", err, want)
	}
}

func TestResolve(t *testing.T) {
	base, err := url.Parse("http://a.example/b/c/d;p?q=1#f")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref, want string
		err       error
	}{
		// RFC 3986 section 5.4.1, normal examples, with normalization applied.
		{ref: "g", want: "http://a.example/b/c/g"},
		{ref: "./g", want: "http://a.example/b/c/g"},
		{ref: "g/", want: "http://a.example/b/c/g/"},
		{ref: "/g", want: "http://a.example/g"},
		{ref: "//g", want: "http://g/"},
		{ref: "?y", want: "http://a.example/b/c/d;p?y"},
		{ref: "g?y", want: "http://a.example/b/c/g?y"},
		{ref: "#s", want: "http://a.example/b/c/d;p?q=1"},
		{ref: "g#s", want: "http://a.example/b/c/g"},
		{ref: ";x", want: "http://a.example/b/c/;x"},
		{ref: "", want: "http://a.example/b/c/d;p?q=1"},
		{ref: ".", want: "http://a.example/b/c/"},
		{ref: "./", want: "http://a.example/b/c/"},
		{ref: "..", want: "http://a.example/b/"},
		{ref: "../", want: "http://a.example/b/"},
		{ref: "../g", want: "http://a.example/b/g"},
		{ref: "../..", want: "http://a.example/"},
		{ref: "../../g", want: "http://a.example/g"},
		// Abnormal examples.
		{ref: "../../../g", want: "http://a.example/g"},
		{ref: "/./g", want: "http://a.example/g"},
		{ref: "/../g", want: "http://a.example/g"},
		{ref: "g.", want: "http://a.example/b/c/g."},
		{ref: "..g", want: "http://a.example/b/c/..g"},
		{ref: "./../g", want: "http://a.example/b/g"},
		{ref: "g/./h", want: "http://a.example/b/c/g/h"},
		{ref: "g/../h", want: "http://a.example/b/c/h"},
		// Protocol-relative and absolute.
		{ref: "//Other.Example:80/p?x#y", want: "http://other.example/p?x"},
		{ref: "https://other.example/", want: "https://other.example/"},
		{ref: "HTTPS://other.example", want: "https://other.example/"},
		// Browser clean-up.
		{ref: "  g  ", want: "http://a.example/b/c/g"},
		{ref: "\n\tg\r\nh\n", want: "http://a.example/b/c/gh"},
		{ref: `..\g\h`, want: "http://a.example/b/g/h"},
		{ref: `\\other.example\x`, want: "http://other.example/x"},
		{ref: "http:g", want: "http://a.example/b/c/g"},
		{ref: "http:/g", want: "http://a.example/g"},
		{ref: "https:g", want: "https://g/"},
		{ref: "g h", want: "http://a.example/b/c/g%20h"},
		{ref: "100%", want: "http://a.example/b/c/100%25"},
		{ref: "?utm_source=x&b=1", want: "http://a.example/b/c/d;p?utm_source=x&b=1"},
		// Rejections.
		{ref: "mailto:x@example.com", err: ErrNotHTTP},
		{ref: "javascript:void(0)", err: ErrNotHTTP},
		{ref: " javascript:alert(1)", err: ErrNotHTTP},
		{ref: "java\nscript:alert(1)", err: ErrNotHTTP},
		{ref: "tel:+1", err: ErrNotHTTP},
		{ref: "//exa mple.com/", err: ErrInvalid},
		{ref: "http://", err: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			u, err := Resolve(base, tt.ref)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Resolve(%q) = %v, %v; want error %v", tt.ref, u, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q) error: %v", tt.ref, err)
			}
			if got := u.String(); got != tt.want {
				t.Errorf("Resolve(%q) = %q, want %q", tt.ref, got, tt.want)
			}
		})
	}
}

func TestResolveNilBase(t *testing.T) {
	if _, err := Resolve(nil, "/a"); !errors.Is(err, ErrInvalid) {
		t.Errorf("Resolve(nil, %q) error = %v, want ErrInvalid", "/a", err)
	}
	u, err := Resolve(nil, "http://example.com")
	if err != nil || u.String() != "http://example.com/" {
		t.Errorf("Resolve(nil, %q) = %v, %v", "http://example.com", u, err)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		in   url.URL
		want string
	}{
		{url.URL{Scheme: "HTTP", Host: "Example.COM:80", Path: "/a/../b c", Fragment: "x"}, "http://example.com/b%20c"},
		{url.URL{Scheme: "https", Host: "example.com", Path: "a"}, "https://example.com/a"},
		{url.URL{Scheme: "https", Host: "example.com", User: url.User("me")}, "https://example.com/"},
		{url.URL{Scheme: "http", Host: "example.com", Path: "/a/b", RawPath: "/a%2fb"}, "http://example.com/a%2Fb"},
		{url.URL{Scheme: "http", Host: "example.com", RawQuery: "a=%7e"}, "http://example.com/?a=~"},
		// Not validated by Normalize: best effort.
		{url.URL{Scheme: "http", Host: "xn--a.EXAMPLE"}, "http://xn--a.example/"},
		{url.URL{Scheme: "ftp", Host: "Example.com"}, "ftp://Example.com"},
	}
	for _, tt := range tests {
		in := tt.in
		got := Normalize(&in)
		if got.String() != tt.want {
			t.Errorf("Normalize(%s) = %q, want %q", tt.in.String(), got.String(), tt.want)
		}
		if in != tt.in {
			t.Errorf("Normalize(%s) modified its argument", tt.in.String())
		}
		if again := Normalize(got).String(); again != got.String() {
			t.Errorf("Normalize(Normalize(%s)) = %q, want %q", tt.in.String(), again, got.String())
		}
	}
}
