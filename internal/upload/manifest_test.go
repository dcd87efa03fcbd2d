package upload

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzManifest: any manifest content either loads or is refused with an
// error; one that loads takes an append and reads back with one more
// entry (a torn last line is cut, never glued to the next).
func FuzzManifest(f *testing.F) {
	f.Add([]byte(`{"file":"a.warc.gz","key":"warc/c/n/2026-11-25/a.warc.gz","size":3,"md5":"x","etag":"x","uploaded":"2026-11-25T00:00:00Z"}` + "\n"))
	f.Add([]byte(`{"file":"a.warc.gz"}` + "\n" + `{"file":"b.cd`))
	f.Add([]byte("\n\n"))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		path := filepath.Join(t.TempDir(), "uploads.jsonl")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		m, entries, err := openManifest(path)
		if err != nil {
			return
		}
		e := Entry{File: "new.warc.gz", Key: "k", Size: 1, Uploaded: time.Unix(0, 0).UTC()}
		if err := m.append(e); err != nil {
			t.Fatal(err)
		}
		m.close()
		m2, again, err := openManifest(path)
		if err != nil {
			t.Fatalf("manifest unreadable after an append: %v", err)
		}
		m2.close()
		if len(again) != len(entries)+1 || again[len(again)-1] != e {
			t.Fatalf("after an append: %d entries (last %+v), want %d ending in %+v", len(again), again[len(again)-1], len(entries)+1, e)
		}
	})
}
