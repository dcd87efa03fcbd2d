package warc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/godwit-crawler/godwit/internal/warc"
)

// A response whose WARC-Payload-Digest does not match its entity: Verify
// reports a fault, and the CDXJ index still lists the capture.
func ExampleVerify() {
	dir, err := os.MkdirTemp("", "warc-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	w, err := warc.NewWriter(warc.WriterConfig{Dir: dir, Node: "example"})
	if err != nil {
		panic(err)
	}
	resp := &warc.Record{Type: warc.TypeResponse,
		Block: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hello</p>")}
	resp.Header.Set(warc.FieldTargetURI, "https://www.example.com/Hello?b=2&a=1")
	resp.Header.Set(warc.FieldDate, "2025-06-01T12:00:00Z")
	resp.Header.Set(warc.FieldContentType, warc.ContentTypeHTTPResponse)
	resp.Header.Set(warc.FieldPayloadDigest, warc.Digest("sha1", []byte("<p>bye</p>")))
	if _, err := w.Write(resp); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	path := filepath.Join(dir, w.Files()[0])

	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	problems, sum, err := warc.Verify(f, "example.warc.gz", warc.VerifyOptions{})
	if err != nil {
		panic(err)
	}
	for _, p := range problems {
		fmt.Printf("record %d: %s: %s\n", p.Record, p.Severity, p.Message)
	}
	fmt.Printf("%d records, %d faults\n", sum.Records, sum.Faults)

	var index strings.Builder
	if err := warc.WriteCDXJ(&index, path); err != nil {
		panic(err)
	}
	key, rest, _ := strings.Cut(index.String(), " {")
	fmt.Println(key)
	fmt.Println(strings.Split(rest, `, "length"`)[0])
	// Output:
	// record 2: fault: payload digest mismatch: header sha1:OCLNI4ZOMK46WZA6LFPGJ6R2W3LAEN6M, computed sha1:EH2SPSI2J7IA53E7X7MLVOIBNGZPXYIP
	// 2 records, 1 faults
	// com,example)/hello?a=1&b=2 20250601120000
	// "url": "https://www.example.com/Hello?b=2&a=1", "mime": "text/html", "status": "200", "digest": "OCLNI4ZOMK46WZA6LFPGJ6R2W3LAEN6M"
}
