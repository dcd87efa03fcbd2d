package warc

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"testing"

	"github.com/andybalholm/brotli"
)

func TestParseHTTP(t *testing.T) {
	tests := []struct {
		block  string
		start  string
		status int
		entity string
		err    error
	}{
		{"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\ngone", "HTTP/1.1 404 Not Found", 404, "gone", nil},
		{"HTTP/1.0 200 OK\nX: y\n\nlf only", "HTTP/1.0 200 OK", 200, "lf only", nil},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nTrailer: x\r\n\r\n", "HTTP/1.1 200 OK", 200, "abcde", nil},
		{"GET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET / HTTP/1.1", 0, "", nil},
		{"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n", "HTTP/1.1 200 OK", 200, "", ErrNoHTTPHeader},
	}
	for _, tt := range tests {
		m, err := ParseHTTP([]byte(tt.block))
		if !errors.Is(err, tt.err) {
			t.Errorf("ParseHTTP(%q) error = %v, want %v", tt.block, err, tt.err)
			continue
		}
		if m.StartLine != tt.start || m.Status != tt.status {
			t.Errorf("ParseHTTP(%q) = %q %d, want %q %d", tt.block, m.StartLine, m.Status, tt.start, tt.status)
		}
		if e, _ := m.Entity(); string(e) != tt.entity {
			t.Errorf("ParseHTTP(%q).Entity() = %q, want %q", tt.block, e, tt.entity)
		}
	}
}

func TestEntityBadChunks(t *testing.T) {
	m, err := ParseHTTP([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\nzz\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.Entity()
	if err == nil || string(e) != "abcde" {
		t.Errorf("Entity() = %q, %v; want the first chunk and an error", e, err)
	}
}

func TestDecode(t *testing.T) {
	want := []byte("the quick brown fox jumps over the lazy dog")
	var gz, zl, br bytes.Buffer
	g := gzip.NewWriter(&gz)
	g.Write(want)
	g.Close()
	z := zlib.NewWriter(&zl)
	z.Write(want)
	z.Close()
	b := brotli.NewWriter(&br)
	b.Write(want)
	b.Close()
	tests := []struct {
		enc  string
		body []byte
	}{
		{"", want},
		{"identity", want},
		{"gzip", gz.Bytes()},
		{"x-gzip", gz.Bytes()},
		{"deflate", zl.Bytes()},
		{"br", br.Bytes()},
	}
	for _, tt := range tests {
		got, err := Decode(tt.body, tt.enc)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Decode(%s) = %q, %v; want %q", tt.enc, got, err, want)
		}
	}
	if _, err := Decode(want, "compress"); err == nil {
		t.Errorf("Decode(compress) succeeded, want an unsupported coding error")
	}
}

func FuzzVerify(f *testing.F) {
	req, resp := exchange("http://example.com/", 100)
	var buf bytes.Buffer
	for _, r := range []*Record{req, resp} {
		dg, _ := NewDigester("sha1")
		prepare(r, "2025-01-01T00:00:00Z", "", dg)
		buf.Write(appendHeader(nil, r))
		buf.Write(r.Block)
		buf.WriteString(trailer)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, sum, err := Verify(bytes.NewReader(data), "fuzz", VerifyOptions{})
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		if sum.Faults+sum.Warnings != len(ps) {
			t.Errorf("summary %+v does not count %d problems", sum, len(ps))
		}
		_, _ = IndexCDXJ(bytes.NewReader(data), "fuzz")
	})
}
