package warc

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkWrite writes request + response groups with a 20 KiB body.
func BenchmarkWrite(b *testing.B) {
	cfg := testConfig(b)
	cfg.Now = nil
	w, err := NewWriter(cfg)
	if err != nil {
		b.Fatal(err)
	}
	req, resp := exchange("http://example.com/", 20<<10)
	b.SetBytes(int64(len(req.Block) + len(resp.Block)))
	b.ReportAllocs()
	for b.Loop() {
		// Fresh IDs each time, as the crawler's records have.
		req.Header.Del(FieldRecordID)
		resp.Header.Del(FieldRecordID)
		if _, err := w.Write(req, resp); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWriteParallel measures workers sharing one Writer.
func BenchmarkWriteParallel(b *testing.B) {
	cfg := testConfig(b)
	cfg.Now = nil
	w, err := NewWriter(cfg)
	if err != nil {
		b.Fatal(err)
	}
	req, resp := exchange("http://example.com/", 20<<10)
	b.SetBytes(int64(len(req.Block) + len(resp.Block)))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			q := &Record{Type: req.Type, Header: req.Header.Clone(), Block: req.Block}
			p := &Record{Type: resp.Type, Header: resp.Header.Clone(), Block: resp.Block}
			q.Header.Del(FieldRecordID)
			if _, err := w.Write(q, p); err != nil {
				b.Error(err)
				return
			}
		}
	})
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRead reads a file of 100 request + response groups.
func BenchmarkRead(b *testing.B) {
	cfg := testConfig(b)
	w, err := NewWriter(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for range 100 {
		req, resp := exchange("http://example.com/", 20<<10)
		if _, err := w.Write(req, resp); err != nil {
			b.Fatal(err)
		}
		size += int64(len(req.Block) + len(resp.Block))
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	data := readFile(b, filepath.Join(cfg.Dir, w.Files()[0]))
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// pageGroup returns the records the crawler writes for one HTML page of
// the throughput web's shape (docs/benchmarks.md): a request, a response
// of a ~15 KB page of words carrying links, with the fields the archive
// sets, and a metadata record with its outlinks. The words are drawn
// from a small vocabulary by a fixed PRNG, so the page compresses about
// as the benchmark web's pages do (~3:1), not as a repeated string.
func pageGroup(links int) []*Record {
	const url = "http://h7.fake.test/p/42"
	words := strings.Fields("heron mudflat tide reed season sky godwit estuary wader flock " +
		"shore curlew dune marsh channel bar spit lagoon migration feather " +
		"beak probe worm shell ebb flow current wind distance plover")
	rng := rand.New(rand.NewPCG(1, 2))
	var body strings.Builder
	body.WriteString("<!doctype html><html><head><title>Page 42 of h7.fake.test</title></head><body>\n")
	var outlinks []Field
	for body.Len() < 15_000 {
		body.WriteString("<p>")
		for range 12 + rng.IntN(20) {
			body.WriteString(words[rng.IntN(len(words))])
			body.WriteByte(' ')
		}
		if len(outlinks) < links {
			l := fmt.Sprintf("http://h%d.fake.test/p/%d", rng.IntN(200), rng.IntN(50))
			fmt.Fprintf(&body, `<a href="%s">%s</a>`, l, words[rng.IntN(len(words))])
			outlinks = append(outlinks, Field{"outlink", l})
		}
		body.WriteString("</p>\n")
	}
	body.WriteString("</body></html>\n")

	req := &Record{Type: TypeRequest, Block: []byte("GET " + url + " HTTP/1.1\r\nHost: h7.fake.test\r\n" +
		"User-Agent: godwit/dev (+https://github.com/godwit-crawler/godwit)\r\n" +
		"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n" +
		"Accept-Encoding: gzip, deflate, br, zstd\r\n\r\n")}
	respID := NewRecordID()
	req.Header.Set(FieldDate, "2026-11-27T07:37:15Z")
	req.Header.Set(FieldTargetURI, url)
	req.Header.Set(FieldConcurrentTo, respID)
	req.Header.Set(FieldContentType, "application/http;msgtype=request")
	req.Header.Add(FieldProtocol, "http/1.1")

	payload := []byte(body.String())
	resp := &Record{Type: TypeResponse, Block: fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"+
		"Content-Type: text/html; charset=utf-8\r\nDate: Fri, 27 Nov 2026 07:37:15 GMT\r\n\r\n", len(payload)), More: payload}
	resp.Header.Set(FieldRecordID, respID)
	resp.Header.Set(FieldTargetURI, url)
	resp.Header.Set(FieldIPAddress, "127.0.0.1")
	resp.Header.Set(FieldContentType, "application/http;msgtype=response")
	resp.Header.Set(FieldPayloadDigest, Digest("sha1", payload))
	resp.Header.Set(FieldDate, "2026-11-27T07:37:15Z")
	resp.Header.Add(FieldProtocol, "http/1.1")

	fields := append([]Field{{"fetch-time-ms", "1"}, {"ttfb-ms", "0"}, {"title", "Page 42 of h7.fake.test"},
		{"simhash", "09f47f6d1b8848d4"}}, outlinks...)
	meta := &Record{Type: TypeMetadata, Block: FieldsBlock(fields)}
	meta.Header.Set(FieldTargetURI, url)
	meta.Header.Set(FieldRefersTo, respID)
	meta.Header.Set(FieldContentType, ContentTypeWarcFields)
	return []*Record{req, resp, meta}
}

// BenchmarkWritePage writes the request, response and metadata records
// of one page of the throughput web at 30 links (pageGroup), with the
// CDXJ index kept as the archive keeps it, into a file not fsynced: the
// WARC path's CPU per page without the disk. Each group gets new record
// IDs, as the crawler's do.
//
//	go test -run '^$' -bench WritePage -benchmem ./internal/warc/
func BenchmarkWritePage(b *testing.B) {
	cfg := testConfig(b)
	cfg.Now = nil
	cfg.Index = true
	w, err := NewWriter(cfg)
	if err != nil {
		b.Fatal(err)
	}
	recs := pageGroup(30)
	n := 0
	for _, r := range recs {
		n += len(r.Block) + len(r.More)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	var written int64
	for b.Loop() {
		respID := NewRecordID()
		recs[0].Header.Del(FieldRecordID)
		recs[0].Header.Set(FieldConcurrentTo, respID)
		recs[1].Header.Set(FieldRecordID, respID)
		recs[2].Header.Del(FieldRecordID)
		recs[2].Header.Set(FieldRefersTo, respID)
		locs, err := w.Write(recs...)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range locs {
			written += l.Length
		}
	}
	b.ReportMetric(float64(written)/float64(b.N), "gz-B/page")
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}
