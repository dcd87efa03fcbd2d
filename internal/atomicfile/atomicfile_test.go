package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func TestWriteFileReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	for _, want := range []string{"first", "second, longer"} {
		if err := WriteFile(path, []byte(want)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("after WriteFile(%q): the file holds %q, %v", want, got, err)
		}
	}
	if _, err := os.Stat(path + TempSuffix); !os.IsNotExist(err) {
		t.Errorf("the temporary file is left: %v", err)
	}
}

// A write that fails leaves the old file whole and no temporary file.
func TestWriteFailsWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := WriteFile(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want the writer's error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after a failed write the file holds %q, want %q", got, "old")
	}
	if _, err := os.Stat(path + TempSuffix); !os.IsNotExist(err) {
		t.Errorf("the temporary file is left: %v", err)
	}
	if err := WriteFile(filepath.Join(path, "under-a-file"), nil); err == nil {
		t.Error("WriteFile under a regular file succeeded")
	}
}

// WriteWith's file has the mode asked for (a umask only takes bits
// away, so 0600 is 0600 whatever it is), and a temporary file named by a
// pattern is its own and goes away.
func TestWriteWith(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	var tmp string
	err := WriteWith(path, Options{Perm: 0o600, Temp: ".f-*.part"}, func(w io.Writer) error {
		tmp = w.(*os.File).Name()
		_, err := io.WriteString(w, "x")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if b := filepath.Base(tmp); filepath.Dir(tmp) != dir || !regexp.MustCompile(`^\.f-[0-9]+\.part$`).MatchString(b) {
		t.Errorf("the temporary file was %s, want .f-N.part in %s", tmp, dir)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want the file alone", len(entries))
	}
}
