package urlnorm

import (
	"net/url"
	"testing"
)

func TestSession(t *testing.T) {
	c := NewCanonicalizer(Options{})
	for raw, want := range map[string]string{
		"http://h/sess/2?sid=9f3a":              "sid=9f3a",
		"http://h/cart;jsessionid=0123/x?y=1":   "jsessionid=0123",
		"http://h/a?page=2&PHPSESSID=1":         "PHPSESSID=1",
		"http://h/list?page=3":                  "",
		"http://h/a;v=1":                        "",
		"http://h/search?q=sid&utm_source=feed": "",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Session(u); got != want {
			t.Errorf("Session(%q) = %q, want %q", raw, got, want)
		}
	}
}
