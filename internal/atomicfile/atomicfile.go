package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	return WriteWith(path, Options{}, write)
}

// Options change how WriteWith writes.
type Options struct {
	// Perm is the new file's mode before the umask; 0 is 0666.
	Perm fs.FileMode
	// Temp names the temporary file, in path's directory, as
	// os.CreateTemp's pattern does: its last "*" is replaced by a random
	// number, and a name taken is not reused, so that writers racing on
	// one path each write their own. "" is path + TempSuffix.
	Temp string
}

// WriteWith is Write with Options.
func WriteWith(path string, o Options, write func(io.Writer) error) error {
	perm := o.Perm
	if perm == 0 {
		perm = 0o666
	}
	var (
		f   *os.File
		err error
	)
	if o.Temp == "" {
		f, err = os.OpenFile(path+TempSuffix, os.O_RDWR|os.O_CREATE|os.O_TRUNC, perm)
	} else {
		f, err = createTemp(filepath.Dir(path), o.Temp, perm)
	}
	if err != nil {
		return err
	}
	tmp := f.Name()
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

// createTemp creates a new file in dir named by pattern, its last "*"
// replaced by a random decimal number (os.CreateTemp's names, which a
// data directory's inspection knows), with mode perm less the umask
// (os.CreateTemp's is 0600).
func createTemp(dir, pattern string, perm fs.FileMode) (*os.File, error) {
	prefix, suffix := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for range 1000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, pattern), Err: fs.ErrExist}
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
