package wacz

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// record is an uncompressed WARC record (the reader takes plain files).
func record(typ, uri, id, refersTo, block string, extra ...string) string {
	h := "WARC/1.1\r\nWARC-Type: " + typ + "\r\nWARC-Record-ID: " + id + "\r\nWARC-Date: 2026-11-27T01:00:00Z\r\n"
	if uri != "" {
		h += "WARC-Target-URI: " + uri + "\r\n"
	}
	if refersTo != "" {
		h += "WARC-Refers-To: " + refersTo + "\r\n"
	}
	for _, e := range extra {
		h += e + "\r\n"
	}
	return h + fmt.Sprintf("Content-Length: %d\r\n\r\n%s\r\n\r\n", len(block), block)
}

func response(status int, ctype, body string) string {
	return fmt.Sprintf("HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s", status, ctype, len(body), body)
}

// testWARC writes a WARC file of an HTML page with its metadata, an
// image, a 404 page, a revisit of the page and a second HTML page.
func testWARC(t *testing.T) string {
	t.Helper()
	const resp = "Content-Type: application/http; msgtype=response"
	warcFile := record("response", "https://a.test/", "<urn:uuid:1>", "", response(200, "text/html; charset=utf-8", "<title>A & B</title>"), resp) +
		record("metadata", "https://a.test/", "<urn:uuid:2>", "<urn:uuid:1>", "title: A & B\r\noutlink: https://a.test/x\r\noutlink: https://a.test/y\r\n",
			"Content-Type: application/warc-fields") +
		record("response", "https://a.test/i.png", "<urn:uuid:3>", "", response(200, "image/png", "PNG"), resp) +
		record("response", "https://a.test/gone", "<urn:uuid:4>", "", response(404, "text/html", "no"), resp) +
		record("revisit", "https://a.test/", "<urn:uuid:5>", "", response(200, "text/html", ""), resp,
			"WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest") +
		record("response", "https://a.test/b", "<urn:uuid:6>", "", response(200, "application/xhtml+xml", "<b/>"), resp)
	path := filepath.Join(t.TempDir(), "a.warc")
	if err := os.WriteFile(path, []byte(warcFile), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPages(t *testing.T) {
	path := testWARC(t)
	var got []PageLine
	if err := Pages(path, func(p PageLine) error { got = append(got, p); return nil }); err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, p := range got {
		summary = append(summary, fmt.Sprintf("%s %d %s %q %d %v", p.URL, p.Status, p.MIME, p.Title, p.Outlinks, p.Revisit != ""))
	}
	want := []string{
		`https://a.test/ 200 text/html "A & B" 2 false`,
		`https://a.test/i.png 200 image/png "" 0 false`,
		`https://a.test/gone 404 text/html "" 0 false`,
		`https://a.test/ 200 text/html "" 0 true`,
		`https://a.test/b 200 application/xhtml+xml "" 0 false`,
	}
	if strings.Join(summary, "\n") != strings.Join(want, "\n") {
		t.Errorf("pages:\n%s\nwant:\n%s", strings.Join(summary, "\n"), strings.Join(want, "\n"))
	}
	if got[0].WARC.File != "a.warc" || got[0].WARC.Offset != 0 || got[1].WARC.Offset <= got[0].WARC.Offset {
		t.Errorf("WARC locations: %+v, %+v", got[0].WARC, got[1].WARC)
	}

	// An error of f stops the reading and is returned.
	boom, n := errors.New("boom"), 0
	if err := Pages(path, func(PageLine) error { n++; return boom }); !errors.Is(err, boom) || n != 1 {
		t.Errorf("Pages with f failing = %v after %d pages, want boom after 1", err, n)
	}

	var b bytes.Buffer
	if err := WritePages(&b, path); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); len(lines) != 5 ||
		!strings.HasPrefix(lines[0], `{"url":"https://a.test/","status":200,"fetch_time":"2026-11-27T01:00:00Z","title":"A & B",`) {
		t.Errorf("WritePages:\n%s", b.String())
	}
}

// The package's page list holds the HTML pages answered 200, not
// revisits, with the JSON of the WACZ spec; the first is the main page.
func TestWritePagesList(t *testing.T) {
	path := testWARC(t)
	out := filepath.Join(t.TempDir(), "a.wacz")
	if err := WriteFile(out, []string{path}, Options{Title: "t", Created: time.Now(), Software: "test"}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	read := func(name string) string {
		f, err := zr.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := `{"format":"json-pages-1.0","id":"pages","title":"All Pages"}
{"url":"https://a.test/","ts":"2026-11-27T01:00:00Z","title":"A \u0026 B"}
{"url":"https://a.test/b","ts":"2026-11-27T01:00:00Z"}
`
	if got := read("pages/pages.jsonl"); got != want {
		t.Errorf("pages.jsonl:\n%s\nwant:\n%s", got, want)
	}
	if dp := read("datapackage.json"); !strings.Contains(dp, `"mainPageURL": "https://a.test/"`) {
		t.Errorf("datapackage.json has no main page:\n%s", dp)
	}
}
