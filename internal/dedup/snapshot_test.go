package dedup

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// grown returns a filter that has grown to several sub-filters.
func grown(t testing.TB) *Bloom {
	t.Helper()
	b := NewBloom(100, 10)
	for i := range uint64(1000) {
		b.Add(key(i))
	}
	if len(b.subs) < 3 {
		t.Fatalf("test filter has %d sub-filters, want several", len(b.subs))
	}
	return b
}

func snapshot(t testing.TB, b *Bloom) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := b.WriteTo(&buf)
	if err != nil {
		t.Fatalf("WriteTo: %v", err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("WriteTo = %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

func TestSnapshotRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *Bloom
	}{
		{"empty", NewBloom(0, 0)},
		{"one block", NewBloom(1, 10)},
		{"grown", grown(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := snapshot(t, tc.b)
			r := bytes.NewReader(append(data, "trailing bytes"...))
			got, err := ReadBloom(r)
			if err != nil {
				t.Fatalf("ReadBloom: %v", err)
			}
			if r.Len() != len("trailing bytes") {
				t.Errorf("ReadBloom left %d bytes unread, want exactly the snapshot's read", r.Len())
			}
			if got.Len() != tc.b.Len() || got.EstimatedFPRate() != tc.b.EstimatedFPRate() || got.SizeBytes() != tc.b.SizeBytes() {
				t.Errorf("read back Len %d, FP %v, %d bytes; want %d, %v, %d",
					got.Len(), got.EstimatedFPRate(), got.SizeBytes(), tc.b.Len(), tc.b.EstimatedFPRate(), tc.b.SizeBytes())
			}
			for i := range uint64(20000) {
				if g, w := got.MayContain(key(i)), tc.b.MayContain(key(i)); g != w {
					t.Fatalf("MayContain(key %d) = %v after reading, %v before", i, g, w)
				}
			}
			// The loaded filter goes on growing exactly as the original.
			for i := range uint64(5000) {
				got.Add(key(1e6 + i))
				tc.b.Add(key(1e6 + i))
			}
			if !bytes.Equal(snapshot(t, got), snapshot(t, tc.b)) {
				t.Errorf("after the same adds, the loaded filter's snapshot differs from the original's")
			}
		})
	}
}

// Every prefix of a snapshot, as a crash while writing it leaves, and
// every single-byte change are rejected.
func TestSnapshotDamageRejected(t *testing.T) {
	data := snapshot(t, grown(t))
	for n := range len(data) {
		_, err := ReadBloom(bytes.NewReader(data[:n]))
		if !errors.Is(err, ErrCorruptSnapshot) {
			t.Fatalf("ReadBloom(first %d of %d bytes) = %v, want an error wrapping ErrCorruptSnapshot", n, len(data), err)
		}
	}
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x10
		_, err := ReadBloom(bytes.NewReader(bad))
		if !errors.Is(err, ErrCorruptSnapshot) && !errors.Is(err, ErrNotSnapshot) {
			t.Fatalf("ReadBloom(snapshot with byte %d changed) = %v, want an error", i, err)
		}
	}
}

func TestSnapshotForeignRejected(t *testing.T) {
	valid := snapshot(t, NewBloom(10, 10))
	future := bytes.Clone(valid)
	future[8] = 2
	for _, tc := range []struct {
		name string
		data string
	}{
		{"WARC", "WARC/1.1\r\nWARC-Type: warcinfo\r\n"},
		{"gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00"},
		{"short", "GX"},
		{"future version", string(future)},
	} {
		_, err := ReadBloom(bytes.NewReader([]byte(tc.data)))
		if !errors.Is(err, ErrNotSnapshot) {
			t.Errorf("ReadBloom(%s) = %v, want an error wrapping ErrNotSnapshot", tc.name, err)
		}
	}
}

type failWriter struct{ left int }

var errWrite = errors.New("disk full (test)")

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, errWrite
	}
	w.left -= len(p)
	return len(p), nil
}

func TestSnapshotWriteError(t *testing.T) {
	b := grown(t)
	size := int64(len(snapshot(t, b)))
	for _, left := range []int{0, 10, 200, int(size) - 2} {
		n, err := b.WriteTo(&failWriter{left: left})
		if !errors.Is(err, errWrite) || n != int64(left) {
			t.Errorf("WriteTo(writer failing after %d bytes) = %d, %v; want %d, the write error", left, n, err, left)
		}
	}
}

// ReadBloom allocates a filter whole when the stream tells how much it
// holds (a file) and grows it as data arrives otherwise; both read the
// same filter.
func TestSnapshotFileAndStream(t *testing.T) {
	b := NewBloom(40000, 10) // several reads of the 64 KiB buffer
	for i := range uint64(40000) {
		b.Add(key(i))
	}
	data := snapshot(t, b)
	path := filepath.Join(t.TempDir(), "seen.bloom")
	if err := os.WriteFile(path, append([]byte("xx"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(2, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		r    io.Reader
	}{
		{"file", f},
		{"stream", struct{ io.Reader }{bytes.NewReader(data)}},
	} {
		got, err := ReadBloom(tc.r)
		if err != nil {
			t.Fatalf("%s: ReadBloom: %v", tc.name, err)
		}
		if !bytes.Equal(snapshot(t, got), data) {
			t.Errorf("%s: the filter read back differs", tc.name)
		}
	}
}
