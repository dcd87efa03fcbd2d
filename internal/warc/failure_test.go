package warc

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// flakyFile is an *os.File whose writes fail once armed: the first write
// after arming stores only half its bytes, like a disk filling up.
type flakyFile struct {
	*os.File
	armed        bool
	failTruncate bool
}

var errDiskFull = errors.New("no space left on device (test)")

func (f *flakyFile) Write(p []byte) (int, error) {
	if !f.armed {
		return f.File.Write(p)
	}
	f.armed = false
	n, _ := f.File.Write(p[:len(p)/2])
	return n, errDiskFull
}

func (f *flakyFile) Truncate(size int64) error {
	if f.failTruncate {
		return errors.New("truncate failed (test)")
	}
	return f.File.Truncate(size)
}

func newFlakyWriter(t *testing.T) (*Writer, *flakyFile, string) {
	t.Helper()
	cfg := testConfig(t)
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ff *flakyFile
	w.create = func(path string) (file, error) {
		f, err := createFile(path)
		if err != nil {
			return nil, err
		}
		ff = &flakyFile{File: f.(*os.File)}
		return ff, nil
	}
	if _, err := w.Write(exchange("http://example.com/1", 100)); err != nil {
		t.Fatal(err)
	}
	return w, ff, cfg.Dir
}

// A group that fails half-way is cut off again; the file stays valid and
// the Writer goes on.
func TestWriteFailureRollsBack(t *testing.T) {
	w, ff, dir := newFlakyWriter(t)
	ff.armed = true
	if _, err := w.Write(exchange("http://example.com/2", 5000)); !errors.Is(err, errDiskFull) {
		t.Fatalf("Write = %v, want the disk error", err)
	}
	req, resp := exchange("http://example.com/3", 100)
	if _, err := w.Write(req, resp); err != nil {
		t.Fatalf("Write after a rolled-back failure: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, _, err := readAll(t, readFile(t, filepath.Join(dir, w.Files()[0])))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 || recs[4].Header.Get(FieldRecordID) != resp.Header.Get(FieldRecordID) {
		t.Errorf("file holds %d records, want warcinfo + groups 1 and 3", len(recs))
	}
}

// If the cut fails too, the Writer refuses further writes and leaves the
// file marked incomplete, for recovery to truncate at the torn tail.
func TestWriteFailureSticky(t *testing.T) {
	w, ff, dir := newFlakyWriter(t)
	ff.armed, ff.failTruncate = true, true
	if _, err := w.Write(exchange("http://example.com/2", 5000)); !errors.Is(err, errDiskFull) {
		t.Fatalf("Write = %v, want the disk error", err)
	}
	if _, err := w.Write(exchange("http://example.com/3", 100)); err == nil {
		t.Fatalf("Write after an unrecoverable failure succeeded")
	}
	name := w.Files()[0]
	if err := w.Close(); err == nil {
		t.Errorf("Close = nil, want the write error")
	}
	data, err := os.ReadFile(filepath.Join(dir, name+OpenSuffix))
	if err != nil {
		t.Fatalf("file lost its %s suffix: %v", OpenSuffix, err)
	}
	recs, _, err := readAll(t, data)
	wantReadError(t, err, ErrTornTail)
	if len(recs) < 3 { // and maybe whole members of the failed group
		t.Errorf("%d records before the torn tail, want at least 3", len(recs))
	}
}
