package warc

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the Reader: it must never panic,
// never return a record whose block disagrees with its Content-Length, and
// end every stream with io.EOF or a *ReadError.
func FuzzReader(f *testing.F) {
	path, _ := writeSample(f)
	gz := readFile(f, path)
	f.Add(gz)
	f.Add(gunzip(f, gz))
	f.Add(gz[:len(gz)/2])
	f.Add([]byte(plainRecord("WARC/1.0", "WARC-Type: resource\r\nX: a\r\n b\r\n", "abc")))
	f.Add(gzipMembers("WARC/1.1\r\nContent-Length: 0\r\n\r\n\r\n", ""))
	f.Add([]byte("WARC/1.1\r\nContent-Length: 99999999999\r\n\r\nabc"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("NewReader over bytes: %v", err)
		}
		var prevEnd int64
		for {
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var re *ReadError
				if !errors.As(err, &re) || !(errors.Is(err, ErrTornTail) || errors.Is(err, ErrMalformed)) {
					t.Fatalf("Next = %v, want io.EOF or a *ReadError", err)
				}
				// Empty gzip members after the last record are good bytes too.
				if re.Offset < prevEnd || re.Offset > int64(len(data)) {
					t.Fatalf("ReadError.Offset = %d, want in [%d, %d]", re.Offset, prevEnd, len(data))
				}
				if _, err2 := r.Next(); err2 != err {
					t.Fatalf("error not sticky: %v then %v", err, err2)
				}
				return
			}
			n, _ := strconv.ParseInt(rec.Header.Get(FieldContentLength), 10, 64)
			if int64(len(rec.Block)) != n {
				t.Fatalf("block of %d bytes, Content-Length %d", len(rec.Block), n)
			}
			if r.Offset() < prevEnd || r.Length() <= 0 || r.Offset()+r.Length() > int64(len(data)) {
				t.Fatalf("record at [%d, +%d) after end %d of %d bytes", r.Offset(), r.Length(), prevEnd, len(data))
			}
			prevEnd = r.Offset() + r.Length()
		}
	})
}

// FuzzStatusAndType: the CDXJ line's status and media type read without
// ParseHTTP are the ones ParseHTTP gives, for any block.
func FuzzStatusAndType(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/html; charset=utf-8\r\n\r\nabc"))
	f.Add([]byte("HTTP/1.0 404 Not Found\ncontent-type :  text/plain \nContent-Type: x/y\n\nbody"))
	f.Add([]byte("HTTP/1.1 +20 OK\r\nCONTENT-TYPE: a/b\r\n"))
	f.Add([]byte("GET / HTTP/1.1\r\nHost: a\r\n\r\n"))
	f.Add([]byte("HTTP/2 301\r\nContent Type: no\r\n: empty\r\nContent-Type\r\n\r\n\n\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nX: a\r\r\nContent-Type: \u212a/b\r\n\r\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, block []byte) {
		m, _ := ParseHTTP(block)
		status, ct := statusAndType(block)
		if status != m.Status || ct != m.Header.Get("Content-Type") {
			t.Errorf("statusAndType(%q) = %d, %q; ParseHTTP: %d, %q", block, status, ct, m.Status, m.Header.Get("Content-Type"))
		}
	})
}
