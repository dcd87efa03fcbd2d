package warc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// interrupted writes a few groups with a Writer and returns the bytes of
// its still-open file, as a process killed at that moment leaves it, the
// file's final name, and where each whole record ends in it.
func interrupted(t testing.TB) (data []byte, name string, ends []int64) {
	t.Helper()
	cfg := testConfig(t)
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var (
		locs []Location
		resp *Record
	)
	for i, n := range []int{0, 10, 3000} {
		var req *Record
		req, resp = exchange(fmt.Sprintf("http://example.com/%d", i), n)
		l, err := w.Write(req, resp)
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, l...)
	}
	l, err := w.Write(otherRecords(resp)...)
	if err != nil {
		t.Fatal(err)
	}
	locs = append(locs, l...)
	name = w.Files()[0]
	data = readFile(t, filepath.Join(cfg.Dir, name+OpenSuffix))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ends = []int64{locs[0].Offset} // the warcinfo
	for _, l := range locs {
		ends = append(ends, l.Offset+l.Length)
	}
	if ends[len(ends)-1] != int64(len(data)) {
		t.Fatalf("records end at %d, file has %d bytes", ends[len(ends)-1], len(data))
	}
	return data, name, ends
}

// listDir returns the names in dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A kill -9 can stop the Writer at any byte: Recover keeps exactly the
// whole records before it. Cuts are tried at every byte near the end of a
// record and at every 13th byte elsewhere.
func TestRecoverTornAtEveryOffset(t *testing.T) {
	data, name, ends := interrupted(t)
	base := t.TempDir()
	near := func(cut int) bool {
		for _, e := range ends {
			if d := int64(cut) - e; -8 <= d && d <= 8 {
				return true
			}
		}
		return false
	}
	for cut := range len(data) + 1 {
		if cut%13 != 0 && !near(cut) && cut != len(data) {
			continue
		}
		dir := filepath.Join(base, fmt.Sprint(cut))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+OpenSuffix), data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		// Without fsync: it can take tens of milliseconds, hundreds of times.
		got, err := recoverDir(dir, func(*os.File) error { return nil })
		if err != nil {
			t.Fatalf("cut at %d: Recover: %v", cut, err)
		}
		whole := 0
		for whole < len(ends) && ends[whole] <= int64(cut) {
			whole++
		}
		if whole == 0 {
			want := []Recovered{{File: name, Truncated: int64(cut), Removed: true}}
			if !slices.Equal(got, want) {
				t.Fatalf("cut at %d: Recover = %+v, want %+v", cut, got, want)
			}
			if names := listDir(t, dir); len(names) != 0 {
				t.Fatalf("cut at %d: left %v, want nothing", cut, names)
			}
			continue
		}
		keep := ends[whole-1]
		want := []Recovered{{File: name, Records: whole, Truncated: int64(cut) - keep}}
		if !slices.Equal(got, want) {
			t.Fatalf("cut at %d: Recover = %+v, want %+v", cut, got, want)
		}
		if names := listDir(t, dir); !slices.Equal(names, []string{name}) {
			t.Fatalf("cut at %d: directory holds %v, want [%s]", cut, names, name)
		}
		b := readFile(t, filepath.Join(dir, name))
		if !bytes.Equal(b, data[:keep]) {
			t.Fatalf("cut at %d: recovered file is %d bytes, want the first %d", cut, len(b), keep)
		}
		recs, _, err := readAll(t, b)
		if err != nil || len(recs) != whole {
			t.Fatalf("cut at %d: reading the recovered file: %d records, %v; want %d, clean end", cut, len(recs), err, whole)
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
}

// After Recover, a new Writer with the same clock (so the same first
// name) picks the next serial instead of reusing the recovered name.
func TestRecoverThenWrite(t *testing.T) {
	data, name, ends := interrupted(t)
	cfg := testConfig(t)
	torn := append(bytes.Clone(data[:ends[3]]), data[ends[3]:ends[4]-5]...)
	if err := os.WriteFile(filepath.Join(cfg.Dir, name+OpenSuffix), torn, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Recover(cfg.Dir); err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(exchange("http://example.com/next", 10)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	next := w.Files()[0]
	if want := strings.Replace(name, "-00000-", "-00001-", 1); next != want {
		t.Errorf("new Writer wrote %s, want %s", next, want)
	}
	if b := readFile(t, filepath.Join(cfg.Dir, name)); !bytes.Equal(b, data[:ends[3]]) {
		t.Errorf("the recovered file changed after the new Writer ran")
	}
}

// A process that died after its last write but before the rename, or one
// whose file system zero-filled the tail, loses nothing.
func TestRecoverWholeAndZeroTail(t *testing.T) {
	data, name, ends := interrupted(t)
	for _, tc := range []struct {
		name    string
		content []byte
		cut     int64
	}{
		{"whole", data, 0},
		{"zero tail", append(bytes.Clone(data), make([]byte, 4096)...), 4096},
		{"zero tail after a torn member", append(bytes.Clone(data[:ends[2]+7]), make([]byte, 100)...), 107},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, name+OpenSuffix), tc.content, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Recover(dir)
			if err != nil {
				t.Fatal(err)
			}
			keep := int64(len(tc.content)) - tc.cut
			whole := slices.Index(ends, keep) + 1
			if want := []Recovered{{File: name, Records: whole, Truncated: tc.cut}}; !slices.Equal(got, want) {
				t.Errorf("Recover = %+v, want %+v", got, want)
			}
			if b := readFile(t, filepath.Join(dir, name)); !bytes.Equal(b, data[:keep]) {
				t.Errorf("recovered file is %d bytes, want the first %d of the original", len(b), keep)
			}
		})
	}
}

// Without interrupted files Recover changes nothing; files that are not
// WARC files being written are not its business.
func TestRecoverNothingToDo(t *testing.T) {
	if got, err := Recover(filepath.Join(t.TempDir(), "missing")); err != nil || got != nil {
		t.Errorf("Recover(missing dir) = %v, %v; want nil, nil", got, err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"godwit-20250304050607010-00000-node1.warc.gz":   "complete",
		"godwit-20250304050607010-00000-node1.cdxj.open": "an index being written",
		"notes.open": "",
		"godwit-20250304050607010-00001-node1.warc.open":    "not ours",
		"godwit-20250304050607010-00002-node1.warc.gz.part": "",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.warc.gz.open"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Recover(dir)
	if err != nil || got != nil {
		t.Errorf("Recover = %v, %v; want nil, nil", got, err)
	}
	for name, content := range files {
		if b := readFile(t, filepath.Join(dir, name)); string(b) != content {
			t.Errorf("%s changed to %q", name, b)
		}
	}
	if len(listDir(t, dir)) != len(files)+1 {
		t.Errorf("directory holds %v", listDir(t, dir))
	}
}

// A file damaged before its tail is left alone and reported, while the
// other files of the directory are still recovered.
func TestRecoverDamagedInTheMiddle(t *testing.T) {
	data, name, ends := interrupted(t)
	mid := ends[2] // start of the fourth record's member
	var cases []struct {
		name string
		data []byte
	}
	// Any byte of the member's compressed data changed.
	for i := mid + 10; i < ends[3]-8; i += 3 {
		bad := bytes.Clone(data)
		bad[i] ^= 0x55
		cases = append(cases, struct {
			name string
			data []byte
		}{fmt.Sprintf("byte %d", i), bad})
	}
	// The member's deflate data turned into a stored block 65535 bytes
	// long: the decoder runs to the end of the file, as for a torn tail,
	// and only the whole records after it tell the two apart.
	swallow := bytes.Clone(data)
	copy(swallow[mid+10:], []byte{0x00, 0xff, 0xff, 0x00, 0x00})
	cases = append(cases, struct {
		name string
		data []byte
	}{"stored block over the rest", swallow})
	// The gzip CRC of the member changed.
	crc := bytes.Clone(data)
	crc[ends[3]-8] ^= 1
	cases = append(cases, struct {
		name string
		data []byte
	}{"gzip CRC", crc})

	other := strings.Replace(name, "-00000-", "-00001-", 1)
	for _, tc := range cases {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, name+OpenSuffix), tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, other+OpenSuffix), data[:ends[1]+20], 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Recover(dir)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), name+OpenSuffix) {
			t.Fatalf("%s: Recover error = %v, want one naming %s and wrapping ErrMalformed", tc.name, err, name+OpenSuffix)
		}
		if want := []Recovered{{File: other, Records: 2, Truncated: 20}}; !slices.Equal(got, want) {
			t.Errorf("%s: Recover = %+v, want %+v", tc.name, got, want)
		}
		if b := readFile(t, filepath.Join(dir, name+OpenSuffix)); !bytes.Equal(b, tc.data) {
			t.Errorf("%s: the damaged file was changed", tc.name)
		}
	}
}

// A final name already taken (by a copy, say) is never overwritten.
func TestRecoverNameTaken(t *testing.T) {
	data, name, _ := interrupted(t)
	dir := t.TempDir()
	for _, n := range []string{name, name + OpenSuffix} {
		if err := os.WriteFile(filepath.Join(dir, n), data[:len(data)-3], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Recover(dir)
	if err == nil || len(got) != 0 {
		t.Fatalf("Recover = %v, %v; want an error", got, err)
	}
	for _, n := range []string{name, name + OpenSuffix} {
		if b := readFile(t, filepath.Join(dir, n)); len(b) != len(data)-3 {
			t.Errorf("%s changed", n)
		}
	}
}

// FuzzRecover: whatever an interrupted file holds, Recover either leaves
// it exactly as it was and says why, or turns it into a prefix of itself
// that reads cleanly, or removes it for holding no whole record.
func FuzzRecover(f *testing.F) {
	data, _, ends := interrupted(f)
	f.Add(data)
	f.Add(data[:ends[3]+17])
	f.Add(append(bytes.Clone(data[:ends[2]+7]), make([]byte, 100)...))
	f.Add([]byte{})
	f.Add(gunzip(f, data))
	const name = "godwit-20250304050607010-00000-node1.warc.gz"
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		open := filepath.Join(dir, name+OpenSuffix)
		if err := os.WriteFile(open, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := recoverDir(dir, func(*os.File) error { return nil })
		if err != nil {
			if len(got) != 0 {
				t.Fatalf("Recover = %+v and error %v", got, err)
			}
			if b := readFile(t, open); !bytes.Equal(b, data) {
				t.Fatalf("Recover failed (%v) but changed the file", err)
			}
			return
		}
		if len(got) != 1 || got[0].File != name {
			t.Fatalf("Recover = %+v, want one result for %s", got, name)
		}
		res := got[0]
		if res.Removed {
			if names := listDir(t, dir); len(names) != 0 || res.Records != 0 || res.Truncated != int64(len(data)) {
				t.Fatalf("Recover = %+v, directory %v", res, names)
			}
			return
		}
		b := readFile(t, filepath.Join(dir, name))
		if int64(len(b)) != int64(len(data))-res.Truncated || !bytes.Equal(b, data[:len(b)]) {
			t.Fatalf("Recover = %+v: file of %d bytes is not the prefix it says", res, len(b))
		}
		recs, _, err := readAll(t, b)
		if err != nil || len(recs) != res.Records || res.Records == 0 {
			t.Fatalf("Recover = %+v: recovered file reads %d records, %v", res, len(recs), err)
		}
	})
}
