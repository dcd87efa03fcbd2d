package warc

import (
	"bytes"
	"io"
	"path/filepath"
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
