package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

func TestLockIsExclusive(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to an open file: a second open, even in this
	// process, is another owner.
	_, err = Acquire(dir)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.PID != os.Getpid() || busy.Dir != dir {
		t.Fatalf("second Acquire = %v, want a BusyError naming pid %d", err, os.Getpid())
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, LockFile))
	if len(b) != 0 {
		t.Errorf("lock file after release holds %q, want it empty", b)
	}
	l2, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	defer l2.Release()
}

func TestStalePIDDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	// What a killed holder leaves: its pid, and no lock.
	os.WriteFile(filepath.Join(dir, LockFile), []byte("999999\n"), 0o644)
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire with a stale pid in the file: %v", err)
	}
	defer l.Release()
	b, _ := os.ReadFile(filepath.Join(dir, LockFile))
	if want := []byte(strconv.Itoa(os.Getpid()) + "\n"); !slices.Equal(b, want) {
		t.Errorf("lock file holds %q, want %q", b, want)
	}
}

func TestAbandonRemovesOnlyItsOwnLockFile(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Abandon()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file created and abandoned still there: %v", err)
	}
	os.WriteFile(filepath.Join(dir, LockFile), nil, 0o644)
	l, err = Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Abandon()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err != nil {
		t.Errorf("a lock file it did not create was removed: %v", err)
	}
}

func TestInspect(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		foreign []string
		crawl   bool
		warc    bool
	}{
		{"empty", nil, nil, false, false},
		{"lock only", []string{"godwit.lock"}, nil, false, false},
		{"a crawl", []string{"godwit.lock", "state/seeds.txt", "state/settings.yaml", "state/seen.bloom",
			"state/store/MANIFEST-000001", "state/store/OPTIONS-000003", "state/store/LOCK", "state/store/000002.log",
			"state/store/000005.sst", "state/store/marker.manifest.000001.MANIFEST-000001",
			"warc/godwit-20261125002818661-00000-vm.warc.gz", "warc/godwit-20261125002818661-00000-vm.cdxj",
			"warc/godwit-20261125002818661-00001-vm.warc.gz.open", "warc/.cdxj-12345"}, nil, true, true},
		{"leftovers of a crash", []string{"state/seeds.txt.tmp", "state/seen.bloom.tmp", "state/settings.yaml.tmp"}, nil, false, false},
		{"only a diary in state", []string{"state/diary.txt"}, []string{"state/diary.txt"}, false, false},
		{"notes beside a crawl", []string{"state/seeds.txt", "warc/notes.txt", "state/diary.txt", "thesis.tex"},
			[]string{"state/diary.txt", "thesis.tex", "warc/notes.txt"}, true, false},
		{"other WARC names", []string{"warc/mine.warc.gz", "warc/godwit-2026-00000-vm.warc.gz"},
			[]string{"warc/godwit-2026-00000-vm.warc.gz", "warc/mine.warc.gz"}, false, false},
		{"not Pebble's", []string{"state/store/CURRENT", "state/store/notes.md"}, []string{"state/store/notes.md"}, true, false},
		{"a file named state", []string{"state"}, []string{"state"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(dir, filepath.FromSlash(f))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c, err := Inspect(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Foreign, tt.foreign) || c.Crawl != tt.crawl || c.WARC != tt.warc {
				t.Errorf("Inspect = foreign %q crawl %v warc %v, want %q %v %v", c.Foreign, c.Crawl, c.WARC, tt.foreign, tt.crawl, tt.warc)
			}
			if len(c.Foreign) > 0 {
				if err := RemoveOwned(dir, c); err == nil {
					t.Error("RemoveOwned with foreign files did not refuse")
				}
				return
			}
			if err := RemoveOwned(dir, c); err != nil {
				t.Fatal(err)
			}
			left, _ := os.ReadDir(dir)
			for _, e := range left {
				if e.Name() != LockFile {
					t.Errorf("RemoveOwned left %s", e.Name())
				}
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	for _, s := range []string{"one", "two"} {
		if err := WriteFile(p, []byte(s)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != s {
			t.Errorf("WriteFile(%q): read %q", s, b)
		}
	}
	if _, err := os.Stat(p + tmpSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary file left: %v", err)
	}
}
