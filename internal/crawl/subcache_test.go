package crawl

import (
	"net/http"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/render"
)

// TestSubCache: the requisite cache keeps 200 answers for subCacheTTL,
// refuses no-store and oversized bodies, and drops the least recently
// used entries past its byte bound.
func TestSubCache(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := newSubCache(func() time.Time { return now })
	ok := func(n int, header ...string) *render.Response {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Set(header[i], header[i+1])
		}
		return &render.Response{Status: http.StatusOK, Header: h, Body: make([]byte, n)}
	}
	c.put("http://a/app.js", ok(10))
	if c.get("http://a/app.js") == nil {
		t.Fatal("a 200 answer was not kept")
	}
	c.put("http://a/404", &render.Response{Status: http.StatusNotFound, Header: http.Header{}})
	c.put("http://a/private", ok(10, "Cache-Control", "private, No-Store"))
	c.put("http://a/huge", ok(subCacheEntry+1))
	for _, u := range []string{"http://a/404", "http://a/private", "http://a/huge"} {
		if c.get(u) != nil {
			t.Errorf("%s kept, want refused", u)
		}
	}
	now = now.Add(subCacheTTL + time.Second)
	if c.get("http://a/app.js") != nil {
		t.Error("an entry older than the TTL was answered")
	}
	if c.size != 0 || len(c.byURL) != 0 {
		t.Errorf("after expiry: size %d, %d entries; want none", c.size, len(c.byURL))
	}
	// Byte bound: 17 entries of a sixteenth each; the first, least
	// recently used, goes, except one touched since.
	for i := range 17 {
		c.put("http://a/"+string(rune('a'+i)), ok(subCacheEntry))
		if i == 1 {
			c.get("http://a/a") // a is now more recent than b
		}
	}
	if c.size > subCacheBytes {
		t.Errorf("size %d over the bound %d", c.size, subCacheBytes)
	}
	if c.get("http://a/a") == nil || c.get("http://a/b") != nil {
		t.Error("want the least recently used entry (b) dropped and a, used since, kept")
	}
}
