package warc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// plainRecord builds an uncompressed record by hand, as other producers
// might write it.
func plainRecord(version, header, block string) string {
	return version + "\r\n" + header + "Content-Length: " + strconv.Itoa(len(block)) + "\r\n\r\n" + block + "\r\n\r\n"
}

func gzipMembers(parts ...string) []byte {
	var buf bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&buf)
		_, _ = io.WriteString(zw, p)
		_ = zw.Close()
	}
	return buf.Bytes()
}

func TestReaderTolerates(t *testing.T) {
	r1 := plainRecord("WARC/1.0", "WARC-Type: resource\r\nX-Long: first\r\n  second\r\n\tthird\r\n", "abc")
	r2 := "WARC/1.1\nWARC-Type: metadata\nContent-Length: 2\n\nxy\r\n\r\n" // LF-only header lines
	r3 := plainRecord("WARC/1.1", "warc-type: request\r\nContent-Length:   0  \r\n", "")
	tests := []struct {
		name string
		data []byte
	}{
		{"plain", []byte(r1 + r2 + r3)},
		{"plain with blank lines", []byte("\r\n" + r1 + "\r\n\r\n" + r2 + "\n" + r3 + "\r\n")},
		{"gzip per record", gzipMembers(r1, r2, r3)},
		{"gzip with empty member", gzipMembers(r1, "", r2, "\r\n", r3)},
		{"gzip member with short trailer", gzipMembers(strings.TrimSuffix(r1, "\r\n\r\n"), strings.TrimSuffix(r2, "\r\n"), r3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, _, err := readAll(t, tt.data)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			var types []string
			for _, r := range recs {
				types = append(types, r.Type)
			}
			if want := []string{"resource", "metadata", "request"}; !slices.Equal(types, want) {
				t.Fatalf("types = %q, want %q", types, want)
			}
			if recs[0].Version != "WARC/1.0" || recs[1].Version != "WARC/1.1" {
				t.Errorf("versions = %q, %q", recs[0].Version, recs[1].Version)
			}
			if got := recs[0].Header.Get("x-long"); got != "first second third" {
				t.Errorf("continuation = %q", got)
			}
			if string(recs[0].Block) != "abc" || string(recs[1].Block) != "xy" || len(recs[2].Block) != 0 {
				t.Errorf("blocks = %q, %q, %q", recs[0].Block, recs[1].Block, recs[2].Block)
			}
			if got := recs[2].Header.Fields()[0].Name; got != "warc-type" {
				t.Errorf("field name case not preserved: %q", got)
			}
		})
	}
}

func TestReaderEmpty(t *testing.T) {
	for _, data := range []string{"", "\r\n\r\n"} {
		recs, _, err := readAll(t, []byte(data))
		if err != nil || len(recs) != 0 {
			t.Errorf("read(%q) = %d records, %v; want a clean end", data, len(recs), err)
		}
	}
}

func TestReaderRejects(t *testing.T) {
	good := plainRecord("WARC/1.1", "WARC-Type: resource\r\n", "abc")
	tests := []struct {
		name string
		data []byte
		good int   // records before the error
		kind error // ErrMalformed or ErrTornTail
	}{
		{"ARC file", []byte("filedesc://x.arc 0.0.0.0 20000101000000 text/plain 76\n1 0 x\n"), 0, ErrMalformed},
		{"wrong version", []byte("WARC/one\r\n\r\n"), 0, ErrMalformed},
		{"garbage after record", []byte(good + "hello\r\n"), 1, ErrMalformed},
		{"no colon", []byte("WARC/1.1\r\nnocolon\r\nContent-Length: 0\r\n\r\n\r\n\r\n"), 0, ErrMalformed},
		{"empty name", []byte("WARC/1.1\r\n: v\r\nContent-Length: 0\r\n\r\n\r\n\r\n"), 0, ErrMalformed},
		{"leading continuation", []byte("WARC/1.1\r\n  v\r\nContent-Length: 0\r\n\r\n\r\n\r\n"), 0, ErrMalformed},
		{"no length", []byte("WARC/1.1\r\nWARC-Type: resource\r\n\r\n\r\n\r\n"), 0, ErrMalformed},
		{"negative length", []byte("WARC/1.1\r\nContent-Length: -1\r\n\r\n\r\n\r\n"), 0, ErrMalformed},
		{"conflicting lengths", []byte("WARC/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab\r\n\r\n"), 0, ErrMalformed},
		{"length too short", []byte("WARC/1.1\r\nContent-Length: 2\r\n\r\nabc\r\n\r\n"), 0, ErrMalformed},
		{"length too long", []byte(good + "WARC/1.1\r\nContent-Length: 4\r\n\r\nabc\r\n\r\n" + good), 1, ErrMalformed},
		{"huge header", []byte("WARC/1.1\r\nX: " + strings.Repeat("a", maxHeader+1) + "\r\n"), 0, ErrMalformed},
		{"zstd", []byte("\x28\xb5\x2f\xfd\x00\x00\r\n"), 0, ErrMalformed},
		{"whole-file gzip", gzipMembers(good + good), 0, ErrMalformed},
		{"record across members", gzipMembers(good[:20], good[20:]), 0, ErrMalformed},
		{"gzip then garbage", append(gzipMembers(good), "WARC/1.1\r\n"...), 1, ErrMalformed},
		{"gzip then non-zero junk", append(gzipMembers(good), 0, 0, 1), 1, ErrMalformed},
		{"corrupt gzip", corrupt(gzipMembers(good, good)), 1, ErrMalformed},
		{"short block", []byte(good + good[:len(good)-6]), 1, ErrTornTail},
		{"cut in header", []byte(good + good[:15]), 1, ErrTornTail},
		{"cut in version line", []byte(good + "WAR"), 1, ErrTornTail},
		{"zero-filled tail", append([]byte(good), make([]byte, 100)...), 1, ErrTornTail},
		{"gzip zero-filled tail", append(gzipMembers(good), make([]byte, 100)...), 1, ErrTornTail},
		{"gzip cut", gzipMembers(good, good)[:len(gzipMembers(good))+12], 1, ErrTornTail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, locs, err := readAll(t, tt.data)
			re := wantReadError(t, err, tt.kind)
			if len(recs) != tt.good {
				t.Errorf("read %d records before the error, want %d", len(recs), tt.good)
			}
			var end int64
			if n := len(locs); n > 0 {
				end = locs[n-1].Offset + locs[n-1].Length
			}
			if re.Offset != end {
				t.Errorf("ReadError.Offset = %d, want %d (end of the last good record)", re.Offset, end)
			}
			if !strings.HasPrefix(err.Error(), "warc: ") {
				t.Errorf("error %q lacks the warc: prefix", err)
			}
		})
	}
}

// corrupt flips a byte in the deflate data of the second member.
func corrupt(data []byte) []byte {
	data = slices.Clone(data)
	second := bytes.LastIndex(data, []byte{0x1f, 0x8b, 8})
	data[second+14] ^= 0xff
	return data
}

// TestTornTail cuts a written file at every offset: the reader must return
// exactly the records that are complete, then io.EOF at a record boundary or
// a torn-tail error whose offset is the end of the last complete record.
func TestTornTail(t *testing.T) {
	path, _ := writeSample(t)
	gz := readFile(t, path)
	for _, tc := range []struct {
		name string
		data []byte
	}{{"gzip", gz}, {"plain", gunzip(t, gz)}} {
		t.Run(tc.name, func(t *testing.T) {
			full, locs, err := readAll(t, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			ends := map[int64]int{0: 0} // record end offset -> records before it
			for i, l := range locs {
				ends[l.Offset+l.Length] = i + 1
			}
			complete := 0
			for cut := range len(tc.data) {
				if n, ok := ends[int64(cut)]; ok {
					complete = n
				}
				recs, _, err := readAll(t, tc.data[:cut])
				if len(recs) != complete {
					t.Fatalf("cut at %d: %d records, want %d", cut, len(recs), complete)
				}
				for i, r := range recs {
					if !bytes.Equal(r.Block, full[i].Block) {
						t.Fatalf("cut at %d: record %d has a short block", cut, i)
					}
				}
				if _, boundary := ends[int64(cut)]; boundary {
					if err != nil {
						t.Fatalf("cut at record boundary %d: %v, want a clean end", cut, err)
					}
					continue
				}
				re := wantReadError(t, err, ErrTornTail)
				var want int64
				if complete > 0 {
					want = locs[complete-1].Offset + locs[complete-1].Length
				}
				if re.Offset != want {
					t.Fatalf("cut at %d: ReadError.Offset = %d, want %d", cut, re.Offset, want)
				}
			}
		})
	}
}

func TestReaderSticky(t *testing.T) {
	r, err := NewReader(strings.NewReader("junk\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := r.Next()
	_, err2 := r.Next()
	if !errors.Is(err1, ErrMalformed) || err1 != err2 {
		t.Errorf("Next errors = %v, %v; want the same ErrMalformed twice", err1, err2)
	}
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestReaderIOError(t *testing.T) {
	boom := errors.New("disk on fire")
	if _, err := NewReader(failingReader{boom}); !errors.Is(err, boom) {
		t.Errorf("NewReader = %v, want the I/O error", err)
	}
	good := plainRecord("WARC/1.1", "", "abc")
	r, err := NewReader(io.MultiReader(strings.NewReader(good+"WARC/1.1\r\n"), failingReader{boom}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err = r.Next()
	if !errors.Is(err, boom) || errors.Is(err, ErrTornTail) || errors.Is(err, ErrMalformed) {
		t.Errorf("Next = %v, want the I/O error, unclassified", err)
	}
}
