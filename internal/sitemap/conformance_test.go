package sitemap

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	conformanceDir = "../../../shared/conformance/sitemap"
	aafeherDir     = conformanceDir + "/aafeher-go-sitemap-parser"
	oxffaaDir      = conformanceDir + "/oxffaa-gopher-parse-sitemap"
	xsdDir         = conformanceDir + "/xsd"
)

// fixtureOutcome is what Parse must make of one fixture file.
type fixtureOutcome struct {
	kind    Kind
	urls    []string // every entry, in order
	skipped int
	err     string // errClass of the error
	why     string // for outcomes that need a word
}

func pages(nums ...int) []string {
	var urls []string
	for _, n := range nums {
		urls = append(urls, fmt.Sprintf("http://HOST/page-%02d", n))
	}
	return urls
}

func hostURLs(paths ...string) []string {
	var urls []string
	for _, p := range paths {
		urls = append(urls, "http://HOST/"+p)
	}
	return urls
}

// aafeherOutcomes covers every file of aafeher/go-sitemap-parser's test
// data. That library's tests serve these files from a test server and
// follow robots.txt → index → sitemaps; here each file is parsed on its
// own, which is the unit this package owns (following is the crawler's).
var aafeherOutcomes = map[string]fixtureOutcome{
	"corrupted.gz": {err: "ErrMalformed", why: "gzip magic, then a header with reserved flag bits set"},

	"sitemap-01.xml":    {kind: URLSet, urls: pages(1)},
	"sitemap-01.xml.gz": {kind: URLSet, urls: pages(1)},
	"sitemap-02.xml":    {kind: URLSet, urls: pages(2, 3)},
	"sitemap-02.xml.gz": {kind: URLSet, urls: pages(2, 3)},
	"sitemap-03.xml":    {kind: URLSet, urls: pages(4, 5, 6)},
	"sitemap-03.xml.gz": {kind: URLSet, urls: pages(4, 5, 6)},
	"sitemap-04.xml":    {kind: URLSet, urls: pages(7)},
	"sitemap-04.xml.gz": {kind: URLSet, urls: pages(7)},
	"sitemap-05.xml":    {kind: URLSet, urls: pages(8, 9)},
	"sitemap-05.xml.gz": {kind: URLSet, urls: pages(8, 9)},
	"sitemap-06.xml":    {kind: URLSet, urls: pages(10, 11, 12)},
	"sitemap-06.xml.gz": {kind: URLSet, urls: pages(10, 11, 12)},

	"sitemap-empty.xml":    {err: "ErrEmpty", why: "zero bytes"},
	"sitemap-empty.xml.gz": {err: "ErrEmpty", why: "a valid gzip file of zero bytes"},

	"sitemap-follow-alpha-01.xml": {kind: URLSet, urls: hostURLs("page-alpha-01")},
	"sitemap-follow-alpha-02.xml": {kind: URLSet, urls: hostURLs("page-alpha-02", "site-alpha-01")},
	"sitemap-follow-beta-01.xml":  {kind: URLSet, urls: hostURLs("page-beta-01")},

	// Extensions: <image:loc>, <video:content_loc> and the like are not
	// pages; only each <url>'s own <loc> is.
	"sitemap-image-01.xml": {kind: URLSet, urls: hostURLs("page-with-images", "page-without-images")},
	"sitemap-news-01.xml":  {kind: URLSet, urls: hostURLs("article-1", "page-without-news")},
	"sitemap-video-01.xml": {kind: URLSet, urls: hostURLs("video-page", "page-without-video")},

	"sitemapindex-1.xml":    {kind: Index, urls: hostURLs("sitemap-01.xml", "sitemap-02.xml", "sitemap-03.xml")},
	"sitemapindex-1.xml.gz": {kind: Index, urls: hostURLs("sitemap-01.xml.gz", "sitemap-02.xml.gz", "sitemap-03.xml.gz")},
	"sitemapindex-2.xml":    {kind: Index, urls: hostURLs("sitemap-04.xml", "sitemap-05.xml", "sitemap-06.xml")},
	"sitemapindex-2.xml.gz": {kind: Index, urls: hostURLs("sitemap-04.xml.gz", "sitemap-05.xml.gz", "sitemap-06.xml.gz")},

	"sitemapindex-empty.xml":    {err: "ErrEmpty", why: "zero bytes"},
	"sitemapindex-empty.xml.gz": {err: "ErrEmpty", why: "a valid gzip file of zero bytes"},
	"sitemapindex-empty-corrupted.xml.gz": {err: "ErrMalformed",
		why: "zero bytes of content but a CRC-32 of 1 in the trailer: corruption wins over emptiness"},

	"sitemapindex-follow-1.xml": {kind: Index,
		urls: hostURLs("sitemap-follow-alpha-01.xml", "sitemap-follow-alpha-02.xml", "sitemap-follow-beta-01.xml")},
	// The "invalid sitemap" is the child, invalid.xml, which is not among
	// the files (a 404 in the library's tests): the index itself is fine.
	"sitemapindex-with-invalid-sitemap.xml":    {kind: Index, urls: hostURLs("invalid.xml")},
	"sitemapindex-with-invalid-sitemap.xml.gz": {kind: Index, urls: hostURLs("invalid.xml")},

	// Neither a URL line nor XML: text that is not a sitemap.
	"test.txt": {kind: Text, skipped: 1, err: "ErrMalformed", why: `"Hello HOST"`},
	"test.gz":  {kind: Text, skipped: 1, err: "ErrMalformed", why: `gzip of "Gzipped HOST"`},

	// robots.txt files are not sitemaps: the crawler reads their Sitemap:
	// lines with internal/robots and fetches the files they name. Given to
	// Parse, a robots.txt is read as a text sitemap, and a "Sitemap: URL"
	// line does not start with a scheme, so no line is an entry and the
	// file is ErrMalformed (ErrEmpty when it is empty). That is the point
	// of the check: a robots.txt served where a sitemap was expected is
	// refused, not mined for URLs.
	"robots-empty/robots.txt":                {err: "ErrEmpty"},
	"robots-with-invalid-sitemap/robots.txt": {kind: Text, skipped: 3, err: "ErrMalformed"},
	"robots-with-sitemapindex/robots.txt":    {kind: Text, skipped: 3, err: "ErrMalformed"},
	"robots-with-sitemapindex-2/robots.txt":  {kind: Text, skipped: 4, err: "ErrMalformed"},
	"robots-with-sitemapindex-gz/robots.txt": {kind: Text, skipped: 3, err: "ErrMalformed"},
	"robots-without-sitemap/robots.txt":      {kind: Text, skipped: 2, err: "ErrMalformed"},
}

// notFixtures are files of the conformance folders that are not input.
var notFixtures = []string{"LICENSE", "README.md"}

func requireDir(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("conformance data not found at %s: %v", dir, err)
	}
}

// fixtureFiles lists the files below dir, as slash paths relative to it.
func fixtureFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err == nil && !slices.Contains(notFixtures, d.Name()) {
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestConformanceAafeher(t *testing.T) {
	requireDir(t, aafeherDir)
	files := fixtureFiles(t, aafeherDir)
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			want, ok := aafeherOutcomes[name]
			if !ok {
				t.Fatalf("%s: a new fixture; add its expected outcome to aafeherOutcomes", name)
			}
			data, err := os.ReadFile(filepath.Join(aafeherDir, name))
			if err != nil {
				t.Fatal(err)
			}
			got, res, err := collect(t, data, Options{})
			var urls []string
			for _, e := range got {
				urls = append(urls, e.URL)
			}
			if errClass(err) != classOrNil(want.err) || res.Kind != want.kind || res.Skipped != want.skipped ||
				res.Truncated || !slices.Equal(urls, want.urls) {
				t.Errorf("Parse(%s) = %+v, %v, %q; want kind %v, %s, skipped %d, %q (%s)",
					name, res, err, urls, want.kind, classOrNil(want.err), want.skipped, want.urls, want.why)
			}
		})
	}
	for name := range aafeherOutcomes {
		if !slices.Contains(files, name) {
			t.Errorf("%s: expected outcome for a file that is not in %s", name, aafeherDir)
		}
	}
}

// TestConformanceHints checks the fields of aafeher's sitemaps: every
// lastmod is 2024-02-12, at 12:34:56+01:00 unless date-only, every
// priority 0.5, and changefreq as written.
func TestConformanceHints(t *testing.T) {
	requireDir(t, aafeherDir)
	changeFreqs := map[string]string{
		"page-01": "always", "page-02": "hourly", "page-03": "daily", "page-04": "weekly", "page-05": "monthly",
		"page-06": "yearly", "page-07": "never", "page-08": "monthly", "page-09": "monthly", "page-10": "monthly",
		"page-11": "monthly", "page-12": "monthly",
	}
	full := time.Date(2024, 2, 12, 12, 34, 56, 0, time.FixedZone("", 3600))
	seen := 0
	for i := 1; i <= 6; i++ {
		for _, ext := range []string{".xml", ".xml.gz"} {
			name := fmt.Sprintf("sitemap-%02d%s", i, ext)
			data, err := os.ReadFile(filepath.Join(aafeherDir, name))
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := collect(t, data, Options{})
			if err != nil {
				t.Errorf("Parse(%s): %v", name, err)
			}
			for _, e := range got {
				seen++
				page := strings.TrimPrefix(e.URL, "http://HOST/")
				wantTime := full
				if page == "page-04" {
					wantTime = time.Date(2024, 2, 12, 0, 0, 0, 0, time.UTC)
				}
				want := Entry{URL: e.URL, LastMod: wantTime, ChangeFreq: changeFreqs[page], Priority: 0.5}
				if !equalEntries([]Entry{e}, []Entry{want}) {
					t.Errorf("Parse(%s) entry = %+v, want %+v", name, e, want)
				}
			}
		}
	}
	if seen != 24 {
		t.Errorf("saw %d entries in sitemap-0[1-6].xml[.gz], want 24", seen)
	}
}

// TestConformanceOxffaa compares with the golden files of
// oxffaa/gopher-parse-sitemap: per entry, the URL, then the lastmod in RFC
// 3339 if any, then for <url> entries the changefreq and priority. That
// library reports an absent changefreq as "always" and an absent priority
// as 0.5 (the protocol's default); we report "" and -1, so the rendering
// applies its defaults to compare the data, not the conventions.
func TestConformanceOxffaa(t *testing.T) {
	requireDir(t, oxffaaDir)
	for _, tt := range []struct {
		xml, golden string
		kind        Kind
	}{
		{"sitemap.xml", "sitemap.golden", URLSet},
		{"sitemap-index.xml", "sitemap-index.golden", Index},
	} {
		t.Run(tt.xml, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(oxffaaDir, tt.xml))
			if err != nil {
				t.Fatal(err)
			}
			golden, err := os.ReadFile(filepath.Join(oxffaaDir, tt.golden))
			if err != nil {
				t.Fatal(err)
			}
			got, res, err := collect(t, data, Options{})
			if err != nil || res.Kind != tt.kind {
				t.Fatalf("Parse(%s) = %+v, %v; want kind %v", tt.xml, res, err, tt.kind)
			}
			var b strings.Builder
			for _, e := range got {
				b.WriteString(e.URL + "\n")
				if !e.LastMod.IsZero() {
					b.WriteString(e.LastMod.Format(time.RFC3339) + "\n")
				}
				if res.Kind == URLSet {
					cf, p := e.ChangeFreq, e.Priority
					if cf == "" {
						cf = "always"
					}
					if p < 0 {
						p = 0.5
					}
					b.WriteString(cf + "\n" + strconv.FormatFloat(p, 'f', -1, 64) + "\n")
				}
			}
			if got, want := strings.TrimSpace(b.String()), strings.TrimSpace(string(golden)); got != want {
				t.Errorf("Parse(%s) renders as\n%s\nwant (%s)\n%s", tt.xml, got, tt.golden, want)
			}
		})
	}
}

// TestSchemaValid checks that every fixture xmllint validates against the
// sitemaps.org schemas parses without error, as the kind of its schema.
// It is not a TestConformance test because it also needs xmllint, and
// skips without it. (The fixtures with image, news or video extensions do
// not validate: the schemas process foreign elements strictly and xmllint
// has no schema for them.)
func TestSchemaValid(t *testing.T) {
	requireDir(t, xsdDir)
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skipf("xmllint not on PATH (apt-get install libxml2-utils); schema check of %s skipped", conformanceDir)
	}
	schemas := []struct {
		file string
		kind Kind
	}{{"sitemap.xsd", URLSet}, {"siteindex.xsd", Index}}
	var paths []string
	for _, dir := range []string{aafeherDir, oxffaaDir} {
		for _, name := range fixtureFiles(t, dir) {
			paths = append(paths, filepath.Join(dir, name))
		}
	}
	valid := 0
	for _, s := range schemas {
		// One run per schema; xmllint reads gzip itself and reports
		// "<path> validates" on stderr for each valid file.
		args := append([]string{"--noout", "--nonet", "--schema", filepath.Join(xsdDir, s.file)}, paths...)
		var stderr bytes.Buffer
		cmd := exec.Command(xmllint, args...)
		cmd.Stderr = &stderr
		_ = cmd.Run() // non-zero when any file fails, which most do against one of the schemas
		for _, path := range paths {
			if !strings.Contains(stderr.String(), path+" validates\n") {
				continue
			}
			valid++
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Parse(bytes.NewReader(data), Options{}, nil)
			if err != nil || res.Kind != s.kind || res.Entries == 0 || res.Skipped != 0 {
				t.Errorf("%s is valid against %s, but Parse = %+v, %v", path, s.file, res, err)
			}
		}
	}
	t.Logf("%d fixtures valid against the schemas", valid)
	if valid == 0 {
		t.Errorf("no fixture validates: is xmllint working?")
	}
}
