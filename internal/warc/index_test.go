package warc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriterIndex: the index a Writer keeps while writing (Index) is, byte
// for byte, what WriteCDXJ makes by reading each completed file back, over
// rotations, concurrent groups and URLs out of SURT order.
func TestWriterIndex(t *testing.T) {
	for _, run := range []int{0, 600} {
		t.Run(fmt.Sprintf("run=%d", run), func(t *testing.T) { testWriterIndex(t, run) })
	}
}

// testWriterIndex is TestWriterIndex with the index spilling runs of
// about run bytes of lines (0: the default, which this test never
// reaches; 600: a run every two or three lines, merged at completion).
func testWriterIndex(t *testing.T, run int) {
	cfg := testConfig(t)
	cfg.Index = true
	cfg.MaxSize = 20 << 10 // several files
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w.indexRun = run
	done := make(chan error, 4)
	for g := range 4 {
		go func() {
			for i := range 10 {
				req, resp := exchange(fmt.Sprintf("http://h%d.example.com/p/%d", 9-i, g), 3000+i)
				if _, err := w.Write(req, resp); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	if len(files) < 2 {
		t.Fatalf("Files() = %v, want a rotation", files)
	}
	lines := 0
	for _, name := range files {
		got, err := os.ReadFile(filepath.Join(cfg.Dir, strings.TrimSuffix(name, Ext)+".cdxj"))
		if err != nil {
			t.Fatalf("index of %s: %v", name, err)
		}
		var want bytes.Buffer
		if err := WriteCDXJ(&want, filepath.Join(cfg.Dir, name)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("index of %s kept while writing:\n%s\nwant (read back):\n%s", name, got, want.Bytes())
		}
		lines += bytes.Count(got, []byte("\n"))
	}
	if lines != 40 {
		t.Errorf("%d index lines in all, want 40 (one per response)", lines)
	}
	// Runs are unlinked as they are created, and the index files renamed
	// into place: no temporary file is left.
	if m, _ := filepath.Glob(filepath.Join(cfg.Dir, ".cdxj-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// BenchmarkIndexer is the index of a 1 GiB WARC file of small pages:
// 460,000 lines of ~265 bytes, spilled in runs of the default size and
// merged. Memory stays at the run size (B/op counts the allocations,
// not what is held at once).
func BenchmarkIndexer(b *testing.B) {
	lines := make([]string, 460_000)
	for i := range lines {
		lines[i] = fmt.Sprintf("com,fake,h%d)/p/%d 20261125071930 {\"url\":\"http://h%d.fake.com/p/%d\",\"mime\":\"text/html\",\"status\":\"200\",\"digest\":\"sha1:%032d\",\"length\":\"4012\",\"offset\":\"%d\",\"filename\":\"godwit-20261125071930590-00000-vm.warc.gz\"}\n", i*7919%5000, i, i*7919%5000, i, i, i*2331)
	}
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		x := newIndexer(dir, 0)
		for _, l := range lines {
			x.add(l)
		}
		if err := x.write(filepath.Join(dir, "x.cdxj")); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWriterNoIndex: without Index nothing but WARC files is written.
func TestWriterNoIndex(t *testing.T) {
	cfg := testConfig(t)
	writeOne(t, cfg, 100)
	if m, _ := filepath.Glob(filepath.Join(cfg.Dir, "*.cdxj")); len(m) != 0 {
		t.Errorf("index files %v written without Index", m)
	}
}

// TestMemberHeader: every gzip member starts with the fixed header
// docs/formats.md promises: no flags, MTIME 0, XFL 4 (fastest), OS 255.
func TestMemberHeader(t *testing.T) {
	cfg := testConfig(t)
	_, _, locs := writeOne(t, cfg, 1000)
	data, err := os.ReadFile(filepath.Join(cfg.Dir, locs[0].File))
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x04, 0xff}
	for _, off := range []int64{0, locs[0].Offset, locs[1].Offset} {
		if got := data[off : off+10]; !bytes.Equal(got, want) {
			t.Errorf("member header at %d = % x, want % x", off, got, want)
		}
	}
}
