package fakeweb_test

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

const disallowFile = "User-agent: *\nDisallow: /private/\n\nUser-agent: otherbot\nDisallow: /\n"

func TestRobotsRedirectServed(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 2, Robots: []fakeweb.RobotsKind{fakeweb.RobotsRedirect, fakeweb.RobotsAllow}})
	r := get(t, tw.proxy, "http://h0.fake.test/robots.txt")
	if r.status != http.StatusMovedPermanently || r.header.Get("Location") != "http://h0.fake.test/robots-real.txt" {
		t.Errorf("GET /robots.txt = %d, Location %q; want 301 to /robots-real.txt", r.status, r.header.Get("Location"))
	}
	r = get(t, tw.origin, "http://h0.fake.test/robots-real.txt")
	if r.status != 200 || string(r.body) != disallowFile {
		t.Errorf("GET /robots-real.txt = %d %q, want 200 %q", r.status, r.body, disallowFile)
	}
	if r := get(t, tw.proxy, "http://h0.fake.test/private/1"); r.status != 200 {
		t.Errorf("GET /private/1 on the redirect host = %d, want 200 (it exists, and is disallowed)", r.status)
	}
	if r := get(t, tw.proxy, "http://h1.fake.test/robots-real.txt"); r.status != 404 {
		t.Errorf("GET /robots-real.txt on another host = %d, want 404", r.status)
	}
}

func TestRobotsFlakyServed(t *testing.T) {
	tests := []struct {
		failures int
		want     []int
	}{
		{0, []int{503, 503, 200, 200}}, // the default
		{1, []int{503, 200, 200}},
		{4, []int{503, 503, 503, 503, 200}},
	}
	for _, tt := range tests {
		tw := startWeb(t, fakeweb.Config{Hosts: 2, Robots: []fakeweb.RobotsKind{fakeweb.RobotsFlaky}, FlakyRobotsFailures: tt.failures})
		for round := range 2 {
			var got []int
			for range tt.want {
				r := get(t, tw.proxy, "http://h0.fake.test/robots.txt")
				got = append(got, r.status)
				if r.status == 200 && string(r.body) != disallowFile {
					t.Errorf("recovered robots.txt %q, want %q", r.body, disallowFile)
				}
			}
			// The other host counts its own failures.
			if r := get(t, tw.proxy, "http://h1.fake.test/robots.txt"); r.status != 503 {
				t.Errorf("first robots.txt of h1 = %d, want 503", r.status)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("failures %d, round %d: statuses %v, want %v", tt.failures, round, got, tt.want)
			}
			if body, ok := tw.web.Page("http://h0.fake.test/robots.txt"); !ok || string(body) != disallowFile {
				t.Errorf("Page(robots.txt) = %q, %v: want the recovered file", body, ok)
			}
			tw.web.Reset() // fails again
		}
	}
}

func TestWildcardPagesServed(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 2, Robots: []fakeweb.RobotsKind{fakeweb.RobotsWildcard, fakeweb.RobotsAllow}})
	home := string(get(t, tw.proxy, "http://h0.fake.test/").body)
	for _, p := range fakeweb.WildcardPaths() {
		r := get(t, tw.proxy, "http://h0.fake.test"+p)
		wantType := "text/html; charset=utf-8"
		if strings.HasSuffix(p, ".pdf") {
			wantType = "application/pdf"
		}
		if r.status != 200 || r.header.Get("Content-Type") != wantType {
			t.Errorf("GET %s = %d %s, want 200 %s", p, r.status, r.header.Get("Content-Type"), wantType)
		}
		if r := get(t, tw.proxy, "http://h1.fake.test"+p); r.status != 404 {
			t.Errorf("GET %s on an allow host = %d, want 404", p, r.status)
		}
		// Linked from the home page, in one spelling or another.
		if !strings.Contains(home, strings.TrimPrefix(p, "/w/")) {
			t.Errorf("the home page does not link to %s", p)
		}
	}
}

type sitemapXML struct {
	XMLName xml.Name
	Locs    []string `xml:"sitemap>loc"`
	URLs    []struct {
		Loc        string `xml:"loc"`
		Lastmod    string `xml:"lastmod"`
		Changefreq string `xml:"changefreq"`
		Priority   string `xml:"priority"`
	} `xml:"url"`
}

func parseSitemap(t *testing.T, body []byte) sitemapXML {
	t.Helper()
	var s sitemapXML
	if err := xml.Unmarshal(body, &s); err != nil {
		t.Fatalf("sitemap does not parse: %v\n%s", err, body)
	}
	return s
}

func TestSitemapsServed(t *testing.T) {
	kinds := fakeweb.RobotsKinds()
	tw := startWeb(t, fakeweb.Config{Hosts: len(kinds), PagesPerHost: 12, Robots: kinds, Sitemaps: true, OrphanPages: 3, Seed: 5})
	for h, kind := range kinds {
		base := "http://h" + strconv.Itoa(h) + ".fake.test"
		t.Run(kind.String(), func(t *testing.T) {
			robotsURL := base + "/robots.txt"
			if kind == fakeweb.RobotsRedirect {
				robotsURL = base + "/robots-real.txt"
			}
			body, ok := tw.web.Page(robotsURL)
			line := "\nSitemap: " + base + "/sitemap_index.xml\n"
			index := get(t, tw.proxy, base+"/sitemap_index.xml")
			if !ok {
				// No robots.txt file: no sitemaps either.
				if index.status != 404 {
					t.Errorf("GET /sitemap_index.xml = %d on a host without robots.txt, want 404", index.status)
				}
				return
			}
			if !strings.HasSuffix(string(body), line) {
				t.Errorf("robots.txt does not end with %q:\n%s", line, body)
			}
			if index.status != 200 || index.header.Get("Content-Type") != "application/xml" {
				t.Fatalf("GET /sitemap_index.xml = %d %s", index.status, index.header.Get("Content-Type"))
			}
			idx := parseSitemap(t, index.body)
			wantLocs := []string{base + "/sitemap-1.xml", base + "/sitemap-2.xml.gz"}
			if idx.XMLName.Local != "sitemapindex" || !slices.Equal(idx.Locs, wantLocs) {
				t.Fatalf("index %s lists %v, want %v", idx.XMLName.Local, idx.Locs, wantLocs)
			}
			var urls []string
			hints := 0
			for _, loc := range idx.Locs {
				r := get(t, tw.proxy, loc)
				ct := r.header.Get("Content-Type")
				if r.status != 200 || r.header.Get("Content-Encoding") != "" {
					t.Fatalf("GET %s = %d, Content-Encoding %q", loc, r.status, r.header.Get("Content-Encoding"))
				}
				b := r.body
				if strings.HasSuffix(loc, ".gz") {
					if ct != "application/gzip" && ct != "application/x-gzip" {
						t.Errorf("GET %s: Content-Type %q, want a gzip type", loc, ct)
					}
					zr, err := gzip.NewReader(bytes.NewReader(b))
					if err != nil {
						t.Fatalf("%s is not gzip: %v", loc, err)
					}
					if b, err = io.ReadAll(zr); err != nil {
						t.Fatal(err)
					}
				} else if ct != "application/xml" {
					t.Errorf("GET %s: Content-Type %q", loc, ct)
				}
				s := parseSitemap(t, b)
				if s.XMLName.Local != "urlset" || len(s.URLs) == 0 {
					t.Fatalf("%s: <%s> with %d URLs", loc, s.XMLName.Local, len(s.URLs))
				}
				for _, u := range s.URLs {
					urls = append(urls, u.Loc)
					if u.Lastmod != "" && u.Changefreq != "" && u.Priority != "" {
						hints++
					}
				}
			}
			if hints == 0 {
				t.Error("no URL with lastmod, changefreq and priority")
			}
			for _, want := range []string{base + "/", base + "/p/11", base + "/orphan/0", base + "/orphan/1", base + "/orphan/2"} {
				if !slices.Contains(urls, want) {
					t.Errorf("sitemaps do not list %s", want)
				}
			}
			if slices.Contains(urls, base+"/orphan/3") {
				t.Error("sitemaps list /orphan/3 of 3 orphans")
			}
			for _, u := range urls {
				if !strings.HasPrefix(u, base+"/") {
					t.Errorf("sitemap lists %s, off the host", u)
				}
				if r := get(t, tw.proxy, u); r.status != 200 {
					t.Errorf("listed URL %s answers %d", u, r.status)
				}
			}
			if kind != fakeweb.RobotsAllow && !slices.Contains(urls, base+"/private/0") {
				t.Error("sitemaps do not list the disallowed /private/0")
			}
			if r := get(t, tw.proxy, base+"/sitemap.xml"); r.status != 404 {
				t.Errorf("GET /sitemap.xml = %d, want 404", r.status)
			}
		})
	}
}

func TestOrphansUnlinked(t *testing.T) {
	cfg := fakeweb.Config{Hosts: 3, PagesPerHost: 40, Sitemaps: true, Seed: 8}
	w, err := fakeweb.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for h := range 3 {
		base := "http://h" + strconv.Itoa(h) + ".fake.test"
		for n := range 40 {
			u := base + "/"
			if n > 0 {
				u = base + "/p/" + strconv.Itoa(n)
			}
			body, ok := w.Page(u)
			if !ok {
				t.Fatalf("Page(%s) not found", u)
			}
			for _, l := range extractLinks(t, mustParse(t, u), body).all {
				if strings.HasPrefix(l.Path, "/orphan/") {
					t.Errorf("%s links to the orphan %s", u, l)
				}
			}
		}
	}
	// Without Sitemaps there are no orphans.
	plain, _ := fakeweb.New(fakeweb.Config{Hosts: 1})
	if _, ok := plain.Page("http://h0.fake.test/orphan/0"); ok {
		t.Error("/orphan/0 exists without Sitemaps")
	}
}

func TestPageSignalsServed(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 60, PageSignals: true, Seed: 2})
	var metas, headers, rels int
	for n := range 60 {
		u := "http://h1.fake.test/"
		if n > 0 {
			u = "http://h1.fake.test/p/" + strconv.Itoa(n)
		}
		r := get(t, tw.proxy, u)
		if bytes.Contains(r.body, []byte(`<meta name="robots"`)) || bytes.Contains(r.body, []byte(`<meta name="godwit"`)) {
			metas++
		}
		if r.header.Get("X-Robots-Tag") != "" {
			headers++
		}
		rels += bytes.Count(r.body, []byte(`nofollow"`))
	}
	if metas == 0 || headers == 0 || rels == 0 {
		t.Errorf("%d pages with robots meta tags, %d with X-Robots-Tag, %d rel=nofollow links: want some of each", metas, headers, rels)
	}
	for n := range 3 {
		if r := get(t, tw.proxy, "http://h0.fake.test/nofollow/"+strconv.Itoa(n)); r.status != 200 {
			t.Errorf("GET /nofollow/%d = %d", n, r.status)
		}
	}
	for n := range 4 {
		if r := get(t, tw.proxy, "http://h0.fake.test/follow/"+strconv.Itoa(n)); r.status != 200 {
			t.Errorf("GET /follow/%d = %d", n, r.status)
		}
	}
	for _, p := range []string{"/nofollow/3", "/follow/4"} {
		if r := get(t, tw.proxy, "http://h0.fake.test"+p); r.status != 404 {
			t.Errorf("GET %s = %d, want 404", p, r.status)
		}
	}
	home := get(t, tw.proxy, "http://h0.fake.test/")
	if !bytes.Contains(home.body, []byte(`/nofollow/0" rel="`)) && !bytes.Contains(home.body, []byte(`nofollow/0" rel="`)) {
		t.Errorf("the home page has no rel=nofollow link to /nofollow/0:\n%s", home.body)
	}
}
