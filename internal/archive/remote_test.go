package archive

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// movedRemote serves byte ranges of files moved to its directory, as an
// object store serves uploaded WARC files.
type movedRemote struct {
	dir   string
	reads int
}

func (m *movedRemote) ReadRange(_ context.Context, file string, offset, length int64) ([]byte, error) {
	m.reads++
	f, err := os.Open(filepath.Join(m.dir, file))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.NewSectionReader(f, offset, length))
}

// A capture whose file has left the WARC directory (uploaded and deleted)
// is read back from the Remote; without one, Load fails.
func TestLoadFromRemote(t *testing.T) {
	dir, away := t.TempDir(), t.TempDir()
	remote := &movedRemote{dir: away}
	a, err := New(warc.WriterConfig{Dir: dir}, Options{Remote: remote})
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.Record(t.Context(), crawl.Task{}, response("http://a.test/r", "remote body"), crawl.Decision{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, c.File), filepath.Join(away, c.File)); err != nil {
		t.Fatal(err)
	}
	got, err := a.Load(t.Context(), c)
	if err != nil {
		t.Fatalf("Load(%+v) of a moved file: %v", c, err)
	}
	if !bytes.Equal(got.Body, []byte("remote body")) || remote.reads != 1 {
		t.Errorf("Load of a moved file = %q after %d remote reads, want %q after 1", got.Body, remote.reads, "remote body")
	}

	b, err := New(warc.WriterConfig{Dir: dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Load(t.Context(), c); err == nil {
		t.Errorf("Load of a moved file without a Remote succeeded")
	}
}
