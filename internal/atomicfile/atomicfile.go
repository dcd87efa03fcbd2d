package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// TempSuffix ends the name of the temporary file a write goes through.
const TempSuffix = ".tmp"

// WriteFile writes data to path whole or not at all.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write writes what write writes to path whole or not at all. On an error
// the temporary file is removed and path is as it was. A new file has
// mode 0666 less the umask (os.Create's).
func Write(path string, write func(io.Writer) error) error {
	return WritePerm(path, 0o666, write)
}

// WritePerm is Write giving a new file the mode perm less the umask (a
// WARC file's companions, 0644, are read by others but not written).
func WritePerm(path string, perm fs.FileMode, write func(io.Writer) error) error {
	tmp := path + TempSuffix
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	err = write(f)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = SyncDir(filepath.Dir(path))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// SyncDir fsyncs the directory dir, making a rename or a new file in it
// durable. Callers on platforms that cannot fsync a directory may ignore
// its error: the files' contents are synced already.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
