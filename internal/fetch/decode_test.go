package fetch

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

func TestWriteDeflateZeros(t *testing.T) {
	for _, n := range []int64{1, 2, 258, 259, 260, 1000, 100_000} {
		var buf bytes.Buffer
		if err := writeDeflateZeros(&buf, n); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(flate.NewReader(&buf))
		if err != nil {
			t.Fatalf("inflate(%d zeros): %v", n, err)
		}
		if int64(len(got)) != n || bytes.Count(got, []byte{0}) != len(got) {
			t.Errorf("inflate(%d zeros) = %d bytes, want %d zeros", n, len(got), n)
		}
	}
}

func TestDecode(t *testing.T) {
	page := []byte(strings.Repeat("<p>godwit flies 11,000 km without stopping.</p>\n", 200))
	tests := []struct {
		name     string
		encoding string // Content-Encoding header
		body     []byte
	}{
		{"none", "", page},
		{"identity", "identity", page},
		{"gzip", "gzip", encode(t, "gzip", page)},
		{"x-gzip", "x-gzip", encode(t, "gzip", page)},
		{"gzip upper case", "GZIP", encode(t, "gzip", page)},
		{"gzip multi-member", "gzip", append(encode(t, "gzip", page[:100]), encode(t, "gzip", page[100:])...)},
		{"deflate zlib", "deflate", encode(t, "deflate", page)},
		{"deflate raw", "deflate", encode(t, "deflate-raw", page)},
		{"br", "br", encode(t, "br", page)},
		{"zstd", "zstd", encode(t, "zstd", page)},
		{"stacked gzip then br", "gzip, br", encode(t, "br", encode(t, "gzip", page))},
		{"stacked with identity", "identity, zstd", encode(t, "zstd", page)},
	}
	c := newTestClient(t, Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Response{Header: http.Header{}, Body: tt.body}
			if tt.encoding != "" {
				r.Header.Set("Content-Encoding", tt.encoding)
			}
			got, err := c.Decode(r)
			if err != nil {
				t.Fatalf("Decode(%s) error: %v", tt.encoding, err)
			}
			if !bytes.Equal(got, page) {
				t.Errorf("Decode(%s) = %d bytes, want the %d-byte page", tt.encoding, len(got), len(page))
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	page := []byte(strings.Repeat("abcdefghij", 1000))
	gz := encode(t, "gzip", page)
	tests := []struct {
		name      string
		encoding  string
		body      []byte
		truncated string
		wantErr   error // nil: no error
		wantClass Class
		wantBody  func([]byte) bool
	}{
		{
			name: "unsupported", encoding: "compress", body: []byte("x"),
			wantErr: ErrUnsupportedEncoding, wantClass: Permanent,
		},
		{
			name: "too many layers", encoding: "gzip, gzip, gzip, gzip, gzip", body: gz,
			wantErr: ErrUnsupportedEncoding, wantClass: Permanent,
		},
		{
			name: "corrupt gzip", encoding: "gzip", body: []byte("definitely not gzip"),
			wantErr: errAny, wantClass: Transient,
		},
		{
			name: "cut gzip, body not marked truncated", encoding: "gzip", body: gz[:len(gz)/2],
			wantErr: io.ErrUnexpectedEOF, wantClass: Transient,
			wantBody: func(b []byte) bool { return len(b) > 0 && bytes.HasPrefix(page, b) },
		},
		{
			name: "cut gzip, body marked truncated", encoding: "gzip", body: gz[:len(gz)/2], truncated: TruncatedLength,
			wantBody: func(b []byte) bool { return len(b) > 0 && bytes.HasPrefix(page, b) },
		},
		{
			name: "empty body with coding", encoding: "gzip", body: nil,
			wantBody: func(b []byte) bool { return len(b) == 0 },
		},
	}
	c := newTestClient(t, Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Response{Header: http.Header{"Content-Encoding": {tt.encoding}}, Body: tt.body, Truncated: tt.truncated}
			got, err := c.Decode(r)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("Decode() error = %v, want nil", err)
			case tt.wantErr == errAny && err == nil:
				t.Fatalf("Decode() error = nil, want an error")
			case tt.wantErr != nil && tt.wantErr != errAny && !errors.Is(err, tt.wantErr):
				t.Fatalf("Decode() error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "fetch: ") {
					t.Errorf("Decode() error %q lacks the fetch: prefix", err)
				}
				if got := Classify(err); got != tt.wantClass {
					t.Errorf("Classify(%v) = %v, want %v", err, got, tt.wantClass)
				}
			}
			if tt.wantBody != nil && !tt.wantBody(got) {
				t.Errorf("Decode() = %d bytes, not what was wanted", len(got))
			}
		})
	}
}

// errAny in a test table means "some error".
var errAny = errors.New("any error")

func TestDecodeBombs(t *testing.T) {
	const limit = 1 << 20
	zeros := make([]byte, 1<<20)
	bomb := func(coding string, n int) []byte {
		var buf bytes.Buffer
		var w io.WriteCloser
		switch coding {
		case "br":
			w = brotli.NewWriterLevel(&buf, 0)
		case "zstd":
			w, _ = zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		}
		for range n >> 20 {
			w.Write(zeros)
		}
		w.Close()
		return buf.Bytes()
	}
	var gz, raw bytes.Buffer
	if err := writeGzipZeros(&gz, 64<<20); err != nil {
		t.Fatal(err)
	}
	if err := writeDeflateZeros(&raw, 64<<20); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		encoding string
		body     []byte
	}{
		{"gzip", gz.Bytes()},
		{"deflate", raw.Bytes()},
		{"br", bomb("br", 8<<20)},
		{"zstd", bomb("zstd", 64<<20)},
		{"gzip, gzip", encode(t, "gzip", gz.Bytes())},
	}
	c := newTestClient(t, Config{MaxDecodedBytes: limit})
	for _, tt := range tests {
		t.Run(tt.encoding, func(t *testing.T) {
			r := &Response{Header: http.Header{"Content-Encoding": {tt.encoding}}, Body: tt.body}
			alloc := allocated(func() {
				got, err := c.Decode(r)
				if !errors.Is(err, ErrTooLarge) {
					t.Errorf("Decode(%s bomb) error = %v, want ErrTooLarge", tt.encoding, err)
				}
				if len(got) != limit {
					t.Errorf("Decode(%s bomb) = %d bytes, want the first %d", tt.encoding, len(got), limit)
				}
				if Classify(err) != Policy {
					t.Errorf("Classify(%v) = %v, want policy", err, Classify(err))
				}
			})
			// The cap plus decoder state (zstd's 8 MiB window at most),
			// nowhere near the 64 MiB the bomb expands to.
			if alloc > 32<<20 {
				t.Errorf("Decode(%s bomb) allocated %d MiB, want bounded by the cap", tt.encoding, alloc>>20)
			}
		})
	}
}

// allocated returns the bytes allocated on the heap while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestContentType(t *testing.T) {
	html := []byte("<!DOCTYPE html><html><head><title>t</title></head><body>hi</body></html>")
	tests := []struct {
		name     string
		header   http.Header
		body     []byte
		want     string
		wantHTML bool
	}{
		{"plain", http.Header{"Content-Type": {"text/html"}}, nil, "text/html", true},
		{"params dropped", http.Header{"Content-Type": {"text/html; charset=UTF-8"}}, nil, "text/html", true},
		{"case folded", http.Header{"Content-Type": {"Text/HTML; Charset=utf-8"}}, nil, "text/html", true},
		{"bad params", http.Header{"Content-Type": {"text/html; charset"}}, nil, "text/html", true},
		{"xhtml", http.Header{"Content-Type": {"application/xhtml+xml"}}, nil, "application/xhtml+xml", true},
		{"json", http.Header{"Content-Type": {"application/json"}}, html, "application/json", false},
		{"missing, sniffed", http.Header{}, html, "text/html", true},
		{"garbage, sniffed", http.Header{"Content-Type": {"html"}}, html, "text/html", true},
		{"placeholder, sniffed", http.Header{"Content-Type": {"application/unknown"}}, html, "text/html", true},
		{"missing, gzip, sniffed after decoding", http.Header{"Content-Encoding": {"gzip"}}, encode(t, "gzip", html), "text/html", true},
		{"missing, br, png", http.Header{"Content-Encoding": {"br"}}, encode(t, "br", []byte("\x89PNG\r\n\x1a\n0000")), "image/png", false},
		{"missing, undecodable", http.Header{"Content-Encoding": {"gzip"}}, []byte("not gzip at all"), "application/octet-stream", false},
		{"missing, empty", http.Header{}, nil, "text/plain", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Response{Header: tt.header, Body: tt.body}
			if got := r.ContentType(); got != tt.want {
				t.Errorf("ContentType() with %v = %q, want %q", tt.header, got, tt.want)
			}
			if got := r.IsHTML(); got != tt.wantHTML {
				t.Errorf("IsHTML() with %v = %v, want %v", tt.header, got, tt.wantHTML)
			}
		})
	}
}

func TestLocation(t *testing.T) {
	tests := []struct {
		status   int
		location string
		want     string
		ok       bool
	}{
		{301, "/new?x=1", "https://example.com/new?x=1", true},
		{302, "other", "https://example.com/dir/other", true},
		{303, "//cdn.example.net/a", "https://cdn.example.net/a", true},
		{307, "http://elsewhere.example/b#frag", "http://elsewhere.example/b#frag", true},
		{308, "  /trimmed  ", "https://example.com/trimmed", true},
		{301, "", "", false},
		{304, "/x", "", false},
		{200, "/x", "", false},
		{301, "http://[bad", "", false},
	}
	for _, tt := range tests {
		r := &Response{URL: "https://example.com/dir/page", Status: tt.status, Header: http.Header{}}
		if tt.location != "" {
			r.Header.Set("Location", tt.location)
		}
		got, ok := r.Location()
		if got != tt.want || ok != tt.ok {
			t.Errorf("Location() for %d %q = %q, %v; want %q, %v", tt.status, tt.location, got, ok, tt.want, tt.ok)
		}
	}
}

// TestDecodeLargeAllocatesOnce: a large compressed body is decoded into
// one allocation of its final size, not a doubling series (a bomb's output
// is the cap, and the garbage of growing to it would be 1.75× more).
func TestDecodeLargeAllocatesOnce(t *testing.T) {
	const size = 8 << 20
	page := make([]byte, 0, size)
	for i := 0; len(page) < size-32; i++ {
		page = fmt.Appendf(page, "<p>%d</p>\n", uint32(i)*2654435761)
	}
	r := &Response{Header: http.Header{"Content-Encoding": {"gzip"}}, Body: encode(t, "gzip", page)}
	if len(r.Body) < exactDecodeFrom {
		t.Fatalf("compressed body %d bytes, want at least %d for the test", len(r.Body), exactDecodeFrom)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := decode(r, 16<<20)
	runtime.ReadMemStats(&after)
	if err != nil || len(out) != len(page) {
		t.Fatalf("decode = %d bytes, %v", len(out), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(out))+uint64(len(out))/4 {
		t.Errorf("allocated %d MiB to decode %d MiB", alloc>>20, len(out)>>20)
	}
}
