package fetch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const testAgent = "godwit-test/1.0 (+https://example.org/bot)"

// newTestClient returns a Client for cfg (UserAgent filled in) that is
// closed when the test ends.
func newTestClient(t testing.TB, cfg Config) *Client {
	t.Helper()
	if cfg.UserAgent == "" {
		cfg.UserAgent = testAgent
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// serve starts a loopback server closed when the test ends. Register it
// before the client so the client's Cleanup (LIFO) runs first.
func serve(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// encode compresses p with coding, the way a server would.
func encode(t testing.TB, coding string, p []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip", "x-gzip":
		w = gzip.NewWriter(&buf)
	case "deflate": // RFC 9110: zlib-wrapped
		w = zlib.NewWriter(&buf)
	case "deflate-raw":
		w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
	case "br":
		w = brotli.NewWriter(&buf)
	case "zstd":
		zw, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		w = zw
	default:
		t.Fatalf("encode: unknown coding %q", coding)
	}
	if _, err := w.Write(p); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bitWriter writes a DEFLATE bit stream: fields LSB first.
type bitWriter struct {
	w   *bufio.Writer
	acc uint64
	n   uint
}

func (b *bitWriter) bits(v uint64, n uint) {
	b.acc |= v << b.n
	b.n += n
	for b.n >= 8 {
		b.w.WriteByte(byte(b.acc))
		b.acc >>= 8
		b.n -= 8
	}
}

func (b *bitWriter) flush() {
	if b.n > 0 {
		b.w.WriteByte(byte(b.acc))
	}
	b.acc, b.n = 0, 0
}

// reverse returns the low n bits of v in reverse order: Huffman codes go
// into the stream most significant bit first.
func reverse(v uint64, n uint) uint64 {
	var r uint64
	for range n {
		r = r<<1 | v&1
		v >>= 1
	}
	return r
}

// writeDeflateZeros writes a raw DEFLATE stream that inflates to n zero
// bytes (n ≥ 1) without compressing anything: one fixed-Huffman block of a
// literal 0 followed by (length 258, distance 1) matches, 13 bits per 258
// bytes. Compressing a real gigabyte takes seconds; writing this takes
// milliseconds, so a test can stream a 1 GiB bomb from a handler.
func writeDeflateZeros(w io.Writer, n int64) error {
	bw := &bitWriter{w: bufio.NewWriterSize(w, 64<<10)}
	lit0 := reverse(0x30, 8)         // literal 0: fixed code 00110000
	match := reverse(0xc5, 8) | 0<<8 // length 258 (symbol 285, 11000101), then distance 1 (code 00000)
	eob := reverse(0, 7)             // end of block (symbol 256, 0000000)

	bw.bits(1, 1) // BFINAL
	bw.bits(1, 2) // BTYPE = 01, fixed Huffman
	bw.bits(lit0, 8)
	n--
	for i := int64(0); n >= 258; i++ {
		bw.bits(match, 13)
		n -= 258
		if i%(1<<16) == 0 {
			// bufio keeps the first write error and returns it from
			// any later Write: stop once the client has gone away.
			if _, err := bw.w.Write(nil); err != nil {
				return err
			}
		}
	}
	for ; n > 0; n-- {
		bw.bits(lit0, 8)
	}
	bw.bits(eob, 7)
	bw.flush()
	return bw.w.Flush()
}

// writeGzipZeros wraps writeDeflateZeros in a gzip member.
func writeGzipZeros(w io.Writer, n int64) error {
	header := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	if _, err := w.Write(header); err != nil {
		return err
	}
	if err := writeDeflateZeros(w, n); err != nil {
		return err
	}
	zeros := make([]byte, 1<<20)
	var crc uint32
	for left := n; left > 0; left -= int64(len(zeros)) {
		crc = crc32.Update(crc, crc32.IEEETable, zeros[:min(left, int64(len(zeros)))])
	}
	trailer := binary.LittleEndian.AppendUint32(nil, crc)
	trailer = binary.LittleEndian.AppendUint32(trailer, uint32(n))
	_, err := w.Write(trailer)
	return err
}
