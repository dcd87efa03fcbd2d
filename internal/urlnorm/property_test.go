package urlnorm_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/extract"
	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// TestKeyMatchesFakewebIdentity walks a simulated web that spells its
// links every way it can (upper-case hosts, ":80", relative forms against
// a <base>, fragments, tracking parameters joined by "&amp;" and "&#38;",
// session IDs minted per visit, unquoted upper-case attributes) and
// compares the crawl key of every link with the web's own, independent
// idea of which page a URL names: each page has exactly one key (its
// spellings are one page to the crawler) and each key names exactly one
// page (different pages never collide).
func TestKeyMatchesFakewebIdentity(t *testing.T) {
	web, err := fakeweb.New(fakeweb.Config{
		Hosts: 6, PagesPerHost: 60, LinksPerPage: 16, Seed: 9,
		Robots: []fakeweb.RobotsKind{fakeweb.RobotsAllow, fakeweb.RobotsDisallow},
		Traps:  fakeweb.AllTraps(),
	})
	if err != nil {
		t.Fatal(err)
	}
	c := urlnorm.NewCanonicalizer(urlnorm.Options{})
	idOfKey := map[string]string{}
	keyOfID := map[string]string{}
	spellings := 0
	// Breadth first over every spelling (not every key): a page fetched
	// under a new session ID shows new spellings of its links.
	queue := web.Seeds()
	fetched := map[string]bool{}
	for len(queue) > 0 && len(fetched) < 3000 {
		page := queue[0]
		queue = queue[1:]
		if fetched[page] {
			continue
		}
		fetched[page] = true
		body, ok := web.Page(page)
		if !ok {
			continue
		}
		base, err := url.Parse(page)
		if err != nil {
			t.Fatal(err)
		}
		links, err := extract.Links(base, body)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			id, ok := web.Identity(l.URL)
			if !ok {
				continue
			}
			spellings++
			if strings.Contains(id, "/hidden/") {
				t.Errorf("link %q found on %s: only a comment or script carries it", l.URL, page)
			}
			u, err := urlnorm.Parse(l.URL)
			if err != nil {
				t.Errorf("Parse(%q) (on %s): %v", l.URL, page, err)
				continue
			}
			if _, ok := web.Page(u.String()); !ok && !strings.Contains(id, "/r/") {
				t.Errorf("link %q on %s names no page (%s): a spelling was misread", l.URL, page, id)
			}
			k := c.Key(u)
			if other, seen := idOfKey[k]; seen && other != id {
				t.Errorf("Key(%q) = %q names two pages: %s and %s", l.URL, k, other, id)
			}
			if other, seen := keyOfID[id]; seen && other != k {
				t.Errorf("page %s has two keys: %q and %q (from %q)", id, other, k, l.URL)
			}
			idOfKey[k], keyOfID[id] = id, k
			if again, err := urlnorm.Parse(k); err != nil || c.Key(again) != k {
				t.Errorf("Key(Parse(Key(%q))) = %v, %v; want %q", l.URL, again, err, k)
			}
			queue = append(queue, u.String())
		}
	}
	t.Logf("%d spellings of %d pages on %d fetches", spellings, len(keyOfID), len(fetched))
	if len(keyOfID) < 6*60 {
		t.Errorf("only %d pages seen: the walk is too small to mean much", len(keyOfID))
	}
}

// TestKeyDistinguishes lists URLs that look alike but name different
// resources: their keys must differ.
func TestKeyDistinguishes(t *testing.T) {
	c := urlnorm.NewCanonicalizer(urlnorm.Options{})
	pairs := [][2]string{
		{"http://example.com/a", "https://example.com/a"},
		{"http://example.com/a", "http://example.com/A"},
		{"http://example.com/a", "http://example.com/a/"},
		{"http://example.com/a/b", "http://example.com/a%2Fb"},
		{"http://example.com/a?x=1", "http://example.com/a?x=2"},
		{"http://example.com/a?x=1&x=2", "http://example.com/a?x=2&x=1"},
		{"http://example.com/a?x", "http://example.com/a?x="},
		{"http://example.com/a?q=a+b", "http://example.com/a?q=a%2Bb"},
		{"http://example.com/a?a=1&b=2", "http://example.com/a?a=1%26b%3D2"},
		{"http://example.com:8080/", "http://example.com/"},
		{"http://www.example.com/", "http://example.com/"},
		{"http://example.com/%7Ea", "http://example.com/%257Ea"},
		{"http://example.com/a;v=1", "http://example.com/a"},
		{"http://example.com/page?id=7", "http://example.com/page?ID=7"},
		{"http://127.0.0.1/", "http://127.0.0.2/"},
	}
	for _, p := range pairs {
		a, errA := urlnorm.Parse(p[0])
		b, errB := urlnorm.Parse(p[1])
		if errA != nil || errB != nil {
			t.Fatalf("Parse: %v, %v", errA, errB)
		}
		if ka, kb := c.Key(a), c.Key(b); ka == kb {
			t.Errorf("Key(%q) = Key(%q) = %q, want different keys", p[0], p[1], ka)
		}
	}
}
