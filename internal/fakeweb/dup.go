package fakeweb

import (
	"bytes"
	"compress/gzip"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Duplicate content (Config.Duplicates): every host has, linked from its
// home page, pages whose content repeats other pages exactly or almost,
// and pages of unrelated articles in the same template, each labelled
// (ContentLabels) so that a test can measure a crawler's deduplication.
// See the package documentation, "Duplicate content".

// The duplicate pages of a host, by resource n: dupExact exact copies,
// then dupNearClusters clusters of dupNearMembers near-duplicates, then
// dupDistinct distinct articles.
const (
	dupExact         = 3
	dupNearClusters  = 3
	dupNearMembers   = 4
	dupDistinct      = 6
	dupNearFirst     = dupExact
	dupDistinctFirst = dupNearFirst + dupNearClusters*dupNearMembers
	numDup           = dupDistinctFirst + dupDistinct

	dupPrefix = "/d/"
	// The exact copies served gzip-encoded and chunked.
	dupExactGzip    = 1
	dupExactChunked = 2
)

// Content kinds, the Kind of a ContentLabel and the keys of
// Report.ContentDuplicates.
const (
	ContentExact    = "exact"
	ContentNear     = "near"
	ContentDistinct = "distinct"
)

// dupPaths is indexed by resource n; read-only.
var dupPaths = func() [numDup]string {
	var p [numDup]string
	for n := range numDup {
		switch kind, c, m := dupKind(n); kind {
		case ContentExact:
			p[n] = dupPrefix + "exact/" + strconv.Itoa(m)
		case ContentNear:
			p[n] = dupPrefix + "near/" + strconv.Itoa(c) + "/" + strconv.Itoa(m)
		default:
			p[n] = dupPrefix + "distinct/" + strconv.Itoa(m)
		}
	}
	return p
}()

// dupKind splits resource n into its kind, its near cluster (0 unless
// near) and its index in the kind or cluster.
func dupKind(n int) (kind string, cluster, member int) {
	switch {
	case n < dupNearFirst:
		return ContentExact, 0, n
	case n < dupDistinctFirst:
		n -= dupNearFirst
		return ContentNear, n / dupNearMembers, n % dupNearMembers
	}
	return ContentDistinct, 0, n - dupDistinctFirst
}

// dupIndex returns the resource n of a cleaned path.
func dupIndex(clean string) (int, bool) {
	if !strings.HasPrefix(clean, dupPrefix) {
		return 0, false
	}
	for n, p := range dupPaths {
		if p == clean {
			return n, true
		}
	}
	return 0, false
}

// dupPages is the number of truth slots per host Duplicates adds.
func (c Config) dupPages() int {
	if !c.Duplicates {
		return 0
	}
	return numDup
}

// ContentLabel says what a page of Config.Duplicates is a copy of.
type ContentLabel struct {
	// URL is the page's canonical URL, "http://h3.fake.test/d/near/1/2".
	URL string `json:"url"`
	// Kind is ContentExact, ContentNear or ContentDistinct.
	Kind string `json:"kind"`
	// Cluster is shared by the pages of one exact or near cluster and is
	// unique to a distinct page: "exact" (one cluster across the whole
	// web), "near/h3.fake.test/1", "distinct/h3.fake.test/4".
	Cluster string `json:"cluster"`
	// Encoding is the Content-Encoding of the answer, "" for none: the
	// exact copy /d/exact/1 is served "gzip", so its HTTP body differs
	// from its cluster's though the content it decodes to does not.
	Encoding string `json:"encoding,omitempty"`
	// Chunked is set for the exact copy /d/exact/2, answered with
	// chunked transfer coding and no Content-Length.
	Chunked bool `json:"chunked,omitempty"`
}

// ContentLabels returns the label of every page of Config.Duplicates on
// every host whose robots.txt lets godwit fetch it (all of them are in
// the ground truth with the default seeds), in host order; nil without
// Duplicates. Pages of one Cluster have the same content: byte for byte
// once decoded for "exact", the same article with small edits for
// "near". Any two pages of different clusters have unrelated articles.
func (w *Web) ContentLabels() []ContentLabel {
	if !w.cfg.Duplicates {
		return nil
	}
	var out []ContentLabel
	var buf []byte
	for host := range w.cfg.Hosts {
		if !w.up(host) {
			continue
		}
		name := w.hostName(host)
		for n := range numDup {
			to := target{host: host, kind: resDup, n: n}
			if !w.allowedTarget(to, &buf) {
				continue
			}
			l := ContentLabel{URL: "http://" + name + dupPaths[n]}
			kind, c, m := dupKind(n)
			l.Kind = kind
			switch kind {
			case ContentExact:
				l.Cluster = ContentExact
				l.Chunked = m == dupExactChunked
				if m == dupExactGzip {
					l.Encoding = "gzip"
				}
			case ContentNear:
				l.Cluster = ContentNear + "/" + name + "/" + strconv.Itoa(c)
			default:
				l.Cluster = ContentDistinct + "/" + name + "/" + strconv.Itoa(m)
			}
			out = append(out, l)
		}
	}
	return out
}

// dupResponse answers duplicate page n of host.
func (w *Web) dupResponse(host, n int) response {
	resp := response{status: http.StatusOK, contentType: htmlType, body: w.dupBody(host, n)}
	if kind, _, m := dupKind(n); kind == ContentExact {
		switch m {
		case dupExactGzip:
			resp.body, resp.encoding = gzipFixed(resp.body), "gzip"
		case dupExactChunked:
			resp.chunked = true
		}
	}
	return resp
}

// gzipFixed compresses b with a header that names no file and no time,
// so that the same b always gives the same bytes.
func gzipFixed(b []byte) []byte {
	var buf bytes.Buffer
	// Compressing into a buffer at a valid level cannot fail.
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// dupLinks returns the links of duplicate page n of host, in the ground
// truth's terms: its home page and its related reading.
func (w *Web) dupLinks(host, n int) []target {
	out := []target{{host: host, kind: resPage}}
	for _, k := range dupRelated(n) {
		out = append(out, target{host: host, kind: resDup, n: dupDistinctFirst + k})
	}
	return out
}

// dupRelated returns the distinct articles duplicate page n links to as
// related reading: a different set for each member of a near cluster.
func dupRelated(n int) [3]int {
	kind, c, m := dupKind(n)
	start := 0
	switch kind {
	case ContentNear:
		start = c + m
	case ContentDistinct:
		start = m + 1
	}
	return [3]int{start % dupDistinct, (start + 1) % dupDistinct, (start + 2) % dupDistinct}
}

// writeDupLinks writes the links of a home page to the duplicate pages.
func writeDupLinks(p *pageWriter) {
	p.s("<ul class=\"duplicates\">\n")
	for _, path := range dupPaths {
		p.s(`<li><a href="`, path, `">`, path, "</a></li>\n")
	}
	p.s("</ul>\n")
}

// robotsValidators gives a robots.txt answered 200 an ETag and a
// Last-Modified (Config.ConditionalRobots); serveHTTP then answers 304
// as it does for the pages of a hostile host.
func robotsValidators(resp *response, host int) {
	h := fnv.New64a()
	h.Write(resp.body)
	resp.etag = `"r` + strconv.FormatUint(h.Sum64(), 16) + `"`
	resp.lastModified = time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(host) * time.Minute)
}
