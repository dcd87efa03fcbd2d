package warc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fixedClock returns a clock that starts at a fixed instant and advances
// one millisecond per call, so file names differ but tests are repeatable.
func fixedClock() func() time.Time {
	t := time.Date(2025, 3, 4, 5, 6, 7, 8e6, time.UTC)
	return func() time.Time {
		t = t.Add(time.Millisecond)
		return t
	}
}

func testConfig(t testing.TB) WriterConfig {
	return WriterConfig{
		Dir:  t.TempDir(),
		Node: "node1",
		Now:  fixedClock(),
		Info: []Field{{"software", "godwit/test"}, {"operator", "tests"}},
	}
}

// exchange returns a request/response group for url with a body of n bytes,
// shaped as the crawler writes them.
func exchange(url string, n int) (req, resp *Record) {
	body := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
	req = &Record{Type: TypeRequest, Block: []byte("GET / HTTP/1.1\r\nHost: example.com\r\nUser-Agent: godwit\r\n\r\n")}
	id := NewRecordID()
	req.Header.Set(FieldRecordID, id)
	req.Header.Set(FieldTargetURI, url)
	req.Header.Set(FieldContentType, ContentTypeHTTPRequest)
	head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", n)
	resp = &Record{Type: TypeResponse, Block: append([]byte(head), body...)}
	resp.Header.Set(FieldTargetURI, url)
	resp.Header.Set(FieldConcurrentTo, id)
	resp.Header.Set(FieldIPAddress, "192.0.2.7")
	resp.Header.Set(FieldContentType, ContentTypeHTTPResponse)
	resp.Header.Set(FieldPayloadDigest, Digest("sha1", body))
	return req, resp
}

// otherRecords returns one record of each remaining type godwit writes.
func otherRecords(ref *Record) []*Record {
	meta := &Record{Type: TypeMetadata, Block: FieldsBlock([]Field{
		{"outlink", "http://example.com/a L a/@href"},
		{"simhash", "0123456789abcdef"},
	})}
	meta.Header.Set(FieldTargetURI, ref.Header.Get(FieldTargetURI))
	meta.Header.Set(FieldRefersTo, ref.Header.Get(FieldRecordID))
	meta.Header.Set(FieldContentType, ContentTypeWarcFields)

	rev := &Record{Type: TypeRevisit, Block: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")}
	rev.Header.Set(FieldTargetURI, ref.Header.Get(FieldTargetURI))
	rev.Header.Set(FieldProfile, ProfileIdenticalPayloadDigest)
	rev.Header.Set(FieldRefersTo, ref.Header.Get(FieldRecordID))
	rev.Header.Set(FieldRefersToTargetURI, ref.Header.Get(FieldTargetURI))
	rev.Header.Set(FieldRefersToDate, ref.Header.Get(FieldDate))
	rev.Header.Set(FieldPayloadDigest, ref.Header.Get(FieldPayloadDigest))
	rev.Header.Set(FieldTruncated, "length")
	rev.Header.Set(FieldContentType, ContentTypeHTTPResponse)

	// A 304 answer: no block, pointing at the original capture.
	nm := &Record{Type: TypeRevisit}
	nm.Header.Set(FieldTargetURI, ref.Header.Get(FieldTargetURI))
	nm.Header.Set(FieldProfile, ProfileServerNotModified)
	nm.Header.Set(FieldRefersTo, ref.Header.Get(FieldRecordID))
	nm.Header.Set(FieldRefersToDate, ref.Header.Get(FieldDate))

	res := &Record{Type: TypeResource, Block: []byte("dns answer\n")}
	res.Header.Set(FieldTargetURI, "dns:example.com")
	res.Header.Set(FieldContentType, "text/dns")
	return []*Record{meta, rev, nm, res}
}

// readAll reads every record of data, returning the records, their offsets
// and lengths, and the error that ended the stream (nil for a clean end).
func readAll(t testing.TB, data []byte) (recs []*Record, locs []Location, err error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, locs, nil
		}
		if err != nil {
			return recs, locs, err
		}
		recs = append(recs, rec)
		locs = append(locs, Location{Offset: r.Offset(), Length: r.Length()})
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gunzip decompresses all members of data, giving the uncompressed WARC.
func gunzip(t testing.TB, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeOne writes one request and response, the response's body n
// bytes, with a Writer of cfg, and closes it.
func writeOne(t testing.TB, cfg WriterConfig, n int) (req, resp *Record, locs []Location) {
	t.Helper()
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, resp = exchange("http://example.com/", n)
	if locs, err = w.Write(req, resp); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return req, resp, locs
}

// writeSample writes a warcinfo-headed file with several groups and returns
// its path and the records written after the warcinfo.
func writeSample(t testing.TB) (string, []*Record) {
	t.Helper()
	cfg := testConfig(t)
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*Record
	for i, n := range []int{0, 10, 3000} {
		req, resp := exchange(fmt.Sprintf("http://example.com/%d", i), n)
		if _, err := w.Write(req, resp); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, req, resp)
	}
	others := otherRecords(recs[1])
	if _, err := w.Write(others...); err != nil {
		t.Fatal(err)
	}
	recs = append(recs, others...)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	if len(files) != 1 {
		t.Fatalf("Files() = %v, want one file", files)
	}
	return filepath.Join(cfg.Dir, files[0]), recs
}

func wantReadError(t testing.TB, err, kind error) *ReadError {
	t.Helper()
	var re *ReadError
	if !errors.As(err, &re) || !errors.Is(err, kind) {
		t.Fatalf("error = %v, want a *ReadError wrapping %v", err, kind)
	}
	return re
}
