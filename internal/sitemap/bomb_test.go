package sitemap

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

// bomb returns a gzip file of about GiB uncompressed, made of gzip members
// (a multi-member file is one stream): the prefix, then 1024 times one
// MiB of chunk repeated. It is about 1 MB compressed and takes a moment
// to build.
func bomb(t *testing.T, prefix, chunk string) []byte {
	t.Helper()
	mib := strings.Repeat(chunk, (1<<20)/len(chunk))
	member := gz(t, mib)
	var b bytes.Buffer
	if prefix != "" {
		b.Write(gz(t, prefix))
	}
	b.Write(bytes.Repeat(member, 1024))
	return b.Bytes()
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestBombs feeds gzip bombs of a GiB uncompressed and checks that Parse
// stops at a cap or at the token guard, having read a small part of the
// compressed input, with bounded memory: the bytes allocated in all
// (TotalAlloc), or the live heap seen from fn when entries keep coming.
// Not parallel: the memory statistics are the whole process's.
func TestBombs(t *testing.T) {
	tests := []struct {
		name, prefix, chunk string
		o                   Options
		kind                Kind
		err                 string
		trunc               bool
		maxAlloc            uint64 // 0: entries allocate; watch the live heap instead
	}{
		{"white space inside the root", "<urlset>", " ", Options{}, URLSet, "ErrMalformed", false, 16 << 20},
		{"white space before the root", "", "\n", Options{MaxBytes: 8 << 20}, Unknown, "nil", true, 16 << 20},
		{"an endless URL", "<urlset><url><loc>http://a.example/", "a", Options{}, URLSet, "ErrMalformed", false, 16 << 20},
		{"an endless comment full of markup", "<urlset><!--", "<url>", Options{}, URLSet, "ErrMalformed", false, 16 << 20},
		{"an endless attribute", "<urlset a='", "x", Options{}, Unknown, "ErrMalformed", false, 16 << 20},
		{"endless nesting", "<urlset>", "<a>", Options{}, URLSet, "ErrMalformed", false, 16 << 20},
		{"an endless text line", "http://a.example/", "a", Options{MaxBytes: 8 << 20}, Text, "nil", true, 16 << 20},
		{"endless entries", "<urlset>", "<url><loc>http://a.example/</loc></url>", Options{}, URLSet, "nil", true, 0},
		{"endless entries, no entry cap", "<urlset>", "<url><loc>http://a.example/</loc></url>", Options{MaxEntries: 1 << 30, MaxBytes: 4 << 20}, URLSet, "nil", true, 0},
		{"endless text entries, no entry cap", "", "http://a.example/\n", Options{MaxEntries: 1 << 30, MaxBytes: 4 << 20}, Text, "nil", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := bomb(t, tt.prefix, tt.chunk)
			src := &countingReader{r: bytes.NewReader(in)}
			var before, now runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var maxHeap uint64
			n := 0
			res, err := Parse(src, tt.o, func(Entry) error {
				if n++; tt.maxAlloc == 0 && n%1024 == 0 {
					runtime.ReadMemStats(&now)
					maxHeap = max(maxHeap, now.HeapAlloc)
				}
				return nil
			})
			runtime.ReadMemStats(&now)
			if errClass(err) != tt.err || res.Kind != tt.kind || res.Truncated != tt.trunc {
				t.Errorf("Parse = %+v, %v; want kind %v, %s, truncated %v", res, err, tt.kind, tt.err, tt.trunc)
			}
			if limit := tt.o.MaxEntries; limit > 0 && res.Entries > limit || limit == 0 && res.Entries > DefaultMaxEntries {
				t.Errorf("Parse passed %d entries, over the cap", res.Entries)
			}
			if src.n > int64(len(in))/10 {
				t.Errorf("Parse read %d of %d compressed bytes, want at most a tenth", src.n, len(in))
			}
			t.Logf("%+v, %v; read %d of %d bytes; allocated %d KiB; live heap %d KiB at most",
				res, err, src.n, len(in), (now.TotalAlloc-before.TotalAlloc)>>10, maxHeap>>10)
			if tt.maxAlloc > 0 {
				if alloc := now.TotalAlloc - before.TotalAlloc; alloc > tt.maxAlloc {
					t.Errorf("Parse allocated %d MiB, want at most %d MiB", alloc>>20, tt.maxAlloc>>20)
				}
			} else if growth := int64(maxHeap) - int64(before.HeapAlloc); growth > 32<<20 {
				t.Errorf("live heap grew by %d MiB while parsing, want at most 32 MiB", growth>>20)
			}
		})
	}
}

// repeatReader repeats b forever.
type repeatReader struct {
	b   []byte
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.b[r.off:])
		n += c
		r.off = (r.off + c) % len(r.b)
	}
	return n, nil
}

// TestEndlessCompressedInput checks the cap on compressed input: a stream
// of empty gzip members never produces a byte, yet must not be read
// forever.
func TestEndlessCompressedInput(t *testing.T) {
	for _, tt := range []struct {
		name   string
		prefix string
	}{
		{"before the root", ""},
		{"inside the root", "<urlset><url><loc>http://a.example/</loc></url>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &countingReader{r: io.MultiReader(bytes.NewReader(gz(t, tt.prefix)), &repeatReader{b: gz(t, "")})}
			o := Options{MaxBytes: 1 << 20}
			res, err := Parse(src, o, nil)
			if err != nil || !res.Truncated {
				t.Errorf("Parse = %+v, %v; want truncated, no error", res, err)
			}
			if src.n > o.MaxBytes+256<<10 {
				t.Errorf("Parse read %d compressed bytes, want about MaxBytes (%d)", src.n, o.MaxBytes)
			}
		})
	}
}
