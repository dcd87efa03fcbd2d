package warc_test

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/godwit-crawler/godwit/internal/warc"
)

// Write one fetch as a request + response group, then read the response
// back from its location alone, as a replay index would.
func Example() {
	dir, err := os.MkdirTemp("", "warc-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	w, err := warc.NewWriter(warc.WriterConfig{
		Dir:  dir,
		Node: "crawl1",
		Now:  func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) },
		Info: []warc.Field{{Name: "operator", Value: "archive@example.org"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	req := &warc.Record{Type: warc.TypeRequest, Block: []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")}
	req.Header.Set(warc.FieldRecordID, warc.NewRecordID())
	req.Header.Set(warc.FieldTargetURI, "http://example.com/")
	req.Header.Set(warc.FieldContentType, warc.ContentTypeHTTPRequest)
	body := []byte("<html>hello</html>")
	resp := &warc.Record{Type: warc.TypeResponse, Block: append([]byte("HTTP/1.1 200 OK\r\nContent-Length: 18\r\n\r\n"), body...)}
	resp.Header.Set(warc.FieldTargetURI, "http://example.com/")
	resp.Header.Set(warc.FieldConcurrentTo, req.Header.Get(warc.FieldRecordID))
	resp.Header.Set(warc.FieldContentType, warc.ContentTypeHTTPResponse)
	resp.Header.Set(warc.FieldPayloadDigest, warc.Digest("sha1", body))
	locs, err := w.Write(req, resp)
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	loc := locs[1]
	f, err := os.Open(filepath.Join(dir, loc.File))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r, err := warc.NewReader(io.NewSectionReader(f, loc.Offset, loc.Length))
	if err != nil {
		log.Fatal(err)
	}
	rec, err := r.Next()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(loc.File)
	fmt.Println(rec.Type, rec.Header.Get(warc.FieldTargetURI), rec.Header.Get(warc.FieldDate))
	fmt.Println(rec.Header.Get(warc.FieldPayloadDigest), warc.VerifyBlockDigest(rec))
	// Output:
	// godwit-20250601120000000-00000-crawl1.warc.gz
	// response http://example.com/ 2025-06-01T12:00:00Z
	// sha1:O57NSEYVH37NN5YSIJIQGZF2VAMOK4GK <nil>
}
