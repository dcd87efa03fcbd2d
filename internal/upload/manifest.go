package upload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/godwit-crawler/godwit/internal/atomicfile"
)

// Entry is one uploaded file: a line of the manifest (docs/formats.md).
type Entry struct {
	File     string    `json:"file"` // base name in the spool
	Key      string    `json:"key"`  // object key, relative to the bucket's prefix
	Size     int64     `json:"size"` // bytes, verified against the stored object
	MD5      string    `json:"md5"`  // hex MD5 of the file
	ETag     string    `json:"etag"` // the stored object's ETag
	Uploaded time.Time `json:"uploaded"`
}

// manifest is the append-only record of uploaded files.
type manifest struct {
	path string
	f    *os.File
	size int64 // bytes of whole lines
}

// openManifest reads the manifest at path (created if missing) and opens
// it for appending. A torn last line (a crash mid-append) is cut off: the
// upload it was recording is redone.
func openManifest(path string) (*manifest, []Entry, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, fmt.Errorf("upload: manifest: %w", err)
	}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("upload: manifest: %w", err)
	}
	created := errors.Is(err, fs.ErrNotExist)
	var entries []Entry
	whole := bytes.LastIndexByte(b, '\n') + 1 // bytes up to the last complete line
	for i, line := range bytes.Split(b[:whole], []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, nil, fmt.Errorf("upload: manifest %s line %d: %w", path, i+1, err)
		}
		entries = append(entries, e)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("upload: manifest: %w", err)
	}
	if whole < len(b) {
		if err := f.Truncate(int64(whole)); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("upload: manifest: cut torn line: %w", err)
		}
	}
	if _, err := f.Seek(int64(whole), 0); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("upload: manifest: %w", err)
	}
	if created {
		syncDir(filepath.Dir(path))
	}
	return &manifest{path: path, f: f, size: int64(whole)}, entries, nil
}

// append records e durably.
func (m *manifest) append(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("upload: manifest: %w", err)
	}
	line = append(line, '\n')
	_, err = m.f.Write(line)
	if err == nil {
		err = m.f.Sync()
	}
	if err != nil {
		// Cut a partial line off again, so that the next line starts
		// clean; if that fails too, the load's torn-line rule applies.
		if m.f.Truncate(m.size) == nil {
			_, _ = m.f.Seek(m.size, 0)
		}
		return fmt.Errorf("upload: manifest: %w", err)
	}
	m.size += int64(len(line))
	return nil
}

func (m *manifest) close() error { return m.f.Close() }

// syncDir makes a new directory entry durable; errors are ignored (some
// platforms cannot fsync a directory).
func syncDir(dir string) { _ = atomicfile.SyncDir(dir) }
