package fakeweb

import (
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"net/http"
	"strconv"
)

// Sitemaps (Config.Sitemaps). A host whose robots.txt answers 200 names
// its sitemap index there; the index lists a plain child and a gzip
// child, which between them list the host's URLs: its pages (up to
// maxSitemapPages), its orphan pages, which nothing else links to, and,
// as a test of the crawler, URLs robots.txt disallows (/private/0 and
// the disallowed /w/ paths).

const (
	orphanPrefix = "/orphan/"
	// maxSitemapPages bounds the ordinary pages listed, keeping each child
	// far below the protocol's 50,000 URLs.
	maxSitemapPages = 10000
	sitemapNS       = "http://www.sitemaps.org/schemas/sitemap/0.9"
)

// The sitemap resources, by resource n.
const (
	sitemapIndex = iota // /sitemap_index.xml, a <sitemapindex>
	sitemapPlain        // /sitemap-1.xml, a <urlset>
	sitemapGzip         // /sitemap-2.xml.gz, a gzip-compressed <urlset>
	sitemapProbe        // /sitemap.xml, which some crawlers try: 404
	numSitemapPaths
)

var sitemapPaths = [numSitemapPaths]string{"/sitemap_index.xml", "/sitemap-1.xml", "/sitemap-2.xml.gz", "/sitemap.xml"}

// hasSitemaps reports whether host names sitemaps in its robots.txt.
func (w *Web) hasSitemaps(host int) bool { return w.cfg.Sitemaps && w.kind(host).hasRules() }

// sitemapLine is what Config.Sitemaps appends to the robots.txt of host.
func (w *Web) sitemapLine(host int) string {
	return "\nSitemap: " + w.scheme() + w.hostName(host) + sitemapPaths[sitemapIndex] + "\n"
}

// eachSitemapEntry calls f with every URL the sitemaps of host list, in
// order; entry i is in the plain child if i is even, in the gzip child
// if odd.
func (w *Web) eachSitemapEntry(host int, f func(i int, t target)) {
	i := 0
	emit := func(t target) {
		f(i, t)
		i++
	}
	for n := range min(w.cfg.PagesPerHost, maxSitemapPages) {
		emit(target{host: host, kind: resPage, n: n})
	}
	for n := range w.cfg.orphans() {
		emit(target{host: host, kind: resOrphan, n: n})
	}
	kind := w.kind(host)
	if kind.hasPrivate() {
		emit(target{host: host, kind: resPrivate})
	}
	if kind == RobotsWildcard {
		for n := range wildPaths {
			emit(target{host: host, kind: resWild, n: n})
		}
	}
	if w.cfg.Changing {
		for n := range w.cfg.ChangingConfig.pages() {
			emit(target{host: host, kind: resChange, n: n})
		}
	}
}

var changefreqs = [...]string{"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}

// sitemap answers sitemap resource n of host.
func (w *Web) sitemap(host, n int) response {
	if !w.hasSitemaps(host) || n == sitemapProbe {
		return plain(http.StatusNotFound)
	}
	src := &rand.PCG{}
	w.reseed(src, streamSitemap, host, n)
	r := rand.New(src)
	base := w.scheme() + w.hostName(host)
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	if n == sitemapIndex {
		b.WriteString("<sitemapindex xmlns=\"" + sitemapNS + "\">\n")
		for _, child := range []int{sitemapPlain, sitemapGzip} {
			b.WriteString("  <sitemap>\n    <loc>" + base + sitemapPaths[child] + "</loc>\n")
			b.WriteString("    <lastmod>" + lastmod(r) + "</lastmod>\n  </sitemap>\n")
		}
		b.WriteString("</sitemapindex>\n")
		return response{status: http.StatusOK, contentType: xmlType, body: b.Bytes()}
	}
	b.WriteString("<urlset xmlns=\"" + sitemapNS + "\">\n")
	w.eachSitemapEntry(host, func(i int, t target) {
		if i%2 != n-sitemapPlain {
			return
		}
		b.WriteString("  <url>\n    <loc>" + base + pathOf(t) + "</loc>\n")
		if t.kind == resChange {
			// True hints, drawing nothing: the entries before are as
			// they were without Config.Changing.
			b.WriteString(w.sitemapChangeHints(host, t.n, w.now()) + "  </url>\n")
			return
		}
		// The hints are optional: some entries go without some.
		if r.IntN(5) != 0 {
			b.WriteString("    <lastmod>" + lastmod(r) + "</lastmod>\n")
		}
		if r.IntN(5) != 0 {
			b.WriteString("    <changefreq>" + changefreqs[r.IntN(len(changefreqs))] + "</changefreq>\n")
		}
		if r.IntN(5) != 0 {
			b.WriteString("    <priority>0." + strconv.Itoa(r.IntN(10)) + "</priority>\n")
		}
		b.WriteString("  </url>\n")
	})
	b.WriteString("</urlset>\n")
	if n == sitemapPlain {
		return response{status: http.StatusOK, contentType: xmlType, body: b.Bytes()}
	}
	// Served as a file, not with Content-Encoding: the client must
	// decompress it itself. Both media types occur in the wild.
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	// Writing to a bytes.Buffer cannot fail.
	_, _ = zw.Write(b.Bytes())
	_ = zw.Close()
	ct := "application/gzip"
	if host%2 == 1 {
		ct = "application/x-gzip"
	}
	return response{status: http.StatusOK, contentType: ct, body: z.Bytes()}
}

// lastmod draws a W3C datetime in 2024 or 2025, as a date or with a time.
func lastmod(r *rand.Rand) string {
	y, m, d := 2024+r.IntN(2), 1+r.IntN(12), 1+r.IntN(28)
	s := strconv.Itoa(y) + "-" + twoDigits(m) + "-" + twoDigits(d)
	if r.IntN(2) == 0 {
		s += "T" + twoDigits(r.IntN(24)) + ":" + twoDigits(r.IntN(60)) + ":00+00:00"
	}
	return s
}

// orphanPage renders /orphan/N, which only the sitemaps list.
func (w *Web) orphanPage(host, n int) response {
	return leafPage(w.hostName(host), "Orphan page "+strconv.Itoa(n),
		"<p>No page links here: only the sitemap lists this page.</p>\n")
}
