package frontier

import (
	"bytes"
	"testing"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/dedup"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

// TestAppendURLKey: the key add builds in its reused buffer is urlKey's,
// whatever the buffer held before (a longer key of another host).
func TestAppendURLKey(t *testing.T) {
	buf := appendURLKey(nil, "a-much-longer-host-name.example", "https://a-much-longer-host-name.example/some/long/path?q=1")
	for _, c := range []struct{ host, key string }{
		{"a.example", "https://a.example/"},
		{"b.example", "https://b.example/x"},
		{"", ""},
	} {
		buf = appendURLKey(buf[:0], c.host, c.key)
		if want := urlKey(c.host, c.key); !bytes.Equal(buf, want) {
			t.Errorf("appendURLKey(%q, %q) = %q, want %q", c.host, c.key, buf, want)
		}
	}
}

// TestKeyHashIsTheFilters: keyHash, which no longer copies the key, is
// still the seen-set filter's hash of the key's bytes (a stored filter
// is read back with it).
func TestKeyHashIsTheFilters(t *testing.T) {
	for _, k := range []string{"", "https://a.example/", "https://b.example/p/7.html?q=1"} {
		if got, want := keyHash(k), dedup.Hash([]byte(k)); got != want {
			t.Errorf("keyHash(%q) = %x, want %x", k, got, want)
		}
	}
}

// TestAddKeysWithOneBuffer adds, in one batch, links to known URLs of
// hosts with names of different lengths (their record keys built in
// one reused buffer), and checks each URL's own record took its link:
// a shorter path lowers each one's depth, and only its.
func TestAddKeysWithOneBuffer(t *testing.T) {
	f := openTest(t, politeness.Policy{})
	ctx := t.Context()
	hosts := []string{"a-very-long-host-name.example", "b.example", "cc.example"}
	var first, second []crawl.Link
	for i, h := range hosts {
		l := link(h, 0)
		l.Depth = 5 + i
		first = append(first, l)
		l.Depth = 1 + i
		second = append(second, l)
	}
	if _, err := f.Add(ctx, first); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add(ctx, second); err != nil {
		t.Fatal(err)
	}
	for i, h := range hosts {
		rec, err := f.urlRecord(h, link(h, 0).Key)
		if err != nil {
			t.Fatal(err)
		}
		if rec.depth != 1+i {
			t.Errorf("%s: depth %d, want %d", h, rec.depth, 1+i)
		}
	}
}
