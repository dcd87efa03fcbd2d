package fakeweb

import "testing"

func TestCleanPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "/"},
		{"/", "/"},
		{"/p/7", "/p/7"},
		{"/p/7/", "/p/7/"},
		{"/p/./7", "/p/7"},
		{"/p/x/../7", "/p/7"},
		{"/../p/7", "/p/7"},
		{"//p//7", "/p/7"},
		{"/p/7/.", "/p/7/"},
		{"/p/7/..", "/p/"},
		{"p/7", "/p/7"},
	}
	for _, tt := range tests {
		if got := cleanPath(tt.in); got != tt.want {
			t.Errorf("cleanPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLookupHostAndResolve(t *testing.T) {
	w, err := New(Config{Hosts: 12, PagesPerHost: 20, Robots: []RobotsKind{RobotsAllow, RobotsDisallow}})
	if err != nil {
		t.Fatal(err)
	}
	hosts := []struct {
		in   string
		want int
		ok   bool
	}{
		{"h3.fake.test", 3, true},
		{"H3.FAKE.TEST", 3, true},
		{"h3.fake.test:80", 3, true},
		{"h11.fake.test", 11, true},
		{"h12.fake.test", 0, false},
		{"h03.fake.test", 0, false},
		{"h3.fake.test:8080", 0, false},
		{"h3.fake.test.", 0, false},
		{"x3.fake.test", 0, false},
		{"fake.test", 0, false},
		{"127.0.0.1:80", 0, false},
	}
	for _, tt := range hosts {
		got, ok := w.lookupHost(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("lookupHost(%q) = %d, %v, want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	paths := []struct {
		host int
		path string
		want resource
	}{
		{0, "/", resource{resPage, 0}},
		{0, "/p/19", resource{resPage, 19}},
		{0, "/p/20", resource{resNotFound, 0}},
		{0, "/p/0", resource{resNotFound, 0}},
		{0, "/p/007", resource{resNotFound, 0}},
		{0, "/p/7/", resource{resNotFound, 0}},
		{0, "/r/7", resource{resRedirect, 7}},
		{0, "/robots.txt", resource{resRobots, 0}},
		{0, "/private/0", resource{resNotFound, 0}}, // host 0 allows everything: no private pages
		{1, "/private/0", resource{resPrivate, 0}},
		{1, "/private/19", resource{resPrivate, 19}},
		{1, "/private", resource{resNotFound, 0}},
	}
	for _, tt := range paths {
		if got := w.resolve(tt.host, tt.path); got != tt.want {
			t.Errorf("resolve(%d, %q) = %+v, want %+v", tt.host, tt.path, got, tt.want)
		}
	}
}
