package warc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Recovered reports what Recover did with one interrupted file.
type Recovered struct {
	// File is the file's final base name, without OpenSuffix: the name it
	// has now, unless Removed.
	File string
	// Records is the number of whole records kept, warcinfo included.
	Records int
	// Truncated is the number of bytes cut off the end: a torn tail, or
	// the whole file if Removed.
	Truncated int64
	// Removed is set when the file held no whole record and was deleted.
	Removed bool
}

// Recover completes every file in dir still named with OpenSuffix, as a
// process that died while writing leaves them (only names ending in
// Ext+OpenSuffix are touched). For each, oldest name first, it reads the
// records, truncates the file at the end of the last whole record (the
// Reader reports it as ReadError.Offset wrapping ErrTornTail), fsyncs it,
// renames it to its final name and fsyncs the directory. A file with no
// whole record at all, not even its warcinfo, is removed. It reports what
// it did per file.
//
// A file damaged anywhere but at its tail is left as it is and reported
// in the error (wrapping ErrMalformed), as is a file whose final name is
// taken: cutting there would throw away whole records. Recover goes on
// with the other files and returns what it did with them along with the
// errors. A missing dir is not an error.
//
// Recover must run before any Writer opens dir: it cannot tell an
// interrupted file from one being written.
func Recover(dir string) ([]Recovered, error) {
	return recoverDir(dir, (*os.File).Sync)
}

// recoverDir is Recover with fsync as a parameter, for files and the
// directory: tests that recover hundreds of files skip it, as it can take
// tens of milliseconds.
func recoverDir(dir string, sync func(*os.File) error) ([]Recovered, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("warc: recover: %w", err)
	}
	var (
		done []Recovered
		errs []error
	)
	for _, e := range entries { // sorted by name
		name, ok := strings.CutSuffix(e.Name(), OpenSuffix)
		if !ok || !strings.HasSuffix(name, Ext) || !e.Type().IsRegular() {
			continue
		}
		res, err := recoverFile(dir, name, sync)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		done = append(done, res)
	}
	return done, errors.Join(errs...)
}

// recoverFile completes dir/name+OpenSuffix.
func recoverFile(dir, name string, sync func(*os.File) error) (Recovered, error) {
	res := Recovered{File: name}
	path := filepath.Join(dir, name)
	fail := func(format string, args ...any) (Recovered, error) {
		return res, fmt.Errorf("warc: recover %s: "+format, append([]any{name + OpenSuffix}, args...)...)
	}
	if _, err := os.Lstat(path); err == nil {
		return fail("%s exists already; file left as it is", name)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fail("%w", err)
	}
	f, err := os.OpenFile(path+OpenSuffix, os.O_RDWR, 0)
	if err != nil {
		return fail("%w", err)
	}
	defer func() {
		if f != nil {
			_ = f.Close()
		}
	}()
	info, err := f.Stat()
	if err != nil {
		return fail("%w", err)
	}
	size := info.Size()

	keep, records, err := wholeRecords(f, size)
	if err != nil {
		return fail("%w", err)
	}
	res.Records, res.Truncated = records, size-keep

	if records == 0 {
		err := f.Close()
		f = nil
		if err == nil {
			err = os.Remove(path + OpenSuffix)
		}
		if err != nil {
			return fail("%w", err)
		}
		syncDirWith(dir, sync)
		res.Removed, res.Truncated = true, size
		return res, nil
	}
	if keep < size {
		if err := f.Truncate(keep); err != nil {
			return fail("%w", err)
		}
	}
	err = sync(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	f = nil
	if err == nil {
		err = os.Rename(path+OpenSuffix, path)
	}
	if err != nil {
		return fail("%w", err)
	}
	syncDirWith(dir, sync)
	return res, nil
}

// syncDirWith is syncDir with the given fsync.
func syncDirWith(dir string, sync func(*os.File) error) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = sync(d)
	_ = d.Close()
}

// wholeRecords reads f and returns where its whole records end and how
// many there are. It fails unless the file ends cleanly or in a torn tail.
func wholeRecords(f *os.File, size int64) (keep int64, records int, err error) {
	keep, records, err = readRecords(f, size)
	if errors.Is(err, ErrMalformed) {
		// A crash can leave the tail zero-filled from inside a member,
		// which the Reader sees as a corrupt member: without the zeros,
		// it must be a torn tail.
		if z, zerr := zeroTail(f, size); zerr != nil {
			return 0, 0, zerr
		} else if z < size {
			if k, n, err2 := readRecords(f, z); err2 == nil {
				keep, records, err = k, n, nil
			}
		}
	}
	if err != nil {
		return 0, 0, fmt.Errorf("damaged before its end, file left as it is: %w", err)
	}
	if keep == size {
		return keep, records, nil
	}
	// A member damaged so that it runs into the members after it (a
	// stored deflate block whose length field was hit, say) reaches the
	// end of the file and looks like a torn tail. Whole records after the
	// cut prove otherwise.
	at, found, err := recordAfter(f, keep+1, size)
	if err != nil {
		return 0, 0, err
	}
	if found {
		return 0, 0, fmt.Errorf("%w: damaged at offset %d, but a whole record follows at offset %d, so not a torn tail; file left as it is",
			ErrMalformed, keep, at)
	}
	return keep, records, nil
}

// readRecords reads the first size bytes of f and returns where its whole
// records end and how many there are: all of them if the bytes end
// cleanly, those before ReadError.Offset if they end in a torn tail. Any
// other error is returned.
func readRecords(f *os.File, size int64) (keep int64, records int, err error) {
	r, err := NewReader(io.NewSectionReader(f, 0, size))
	if err != nil {
		return 0, 0, err
	}
	for {
		_, err := r.Next()
		if err == io.EOF {
			return size, records, nil
		}
		var re *ReadError
		if errors.As(err, &re) && re.Kind == ErrTornTail {
			return re.Offset, records, nil
		}
		if err != nil {
			return 0, 0, err
		}
		records++
	}
}

// zeroTail returns where the run of NUL bytes that ends f begins (size if
// f does not end in one).
func zeroTail(f io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
			return 0, fmt.Errorf("read: %w", err)
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] != 0 {
				return start + int64(i) + 1, nil
			}
		}
		end = start
	}
	return 0, nil
}

// recordAfter reports whether a whole record starts at or after offset
// from in f, looking at each gzip member header ("\x1f\x8b\x08"). The torn
// tail is at most one group of records, and a decode that starts inside a
// member fails at once, so this is cheap.
func recordAfter(f io.ReaderAt, from, size int64) (int64, bool, error) {
	const chunk = 1 << 20
	magic := []byte{0x1f, 0x8b, 0x08}
	buf := make([]byte, chunk+len(magic)-1)
	for off := from; off < size; off += chunk {
		// Read past the chunk by len(magic)-1 bytes, so a header that
		// straddles two chunks is found in the first.
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if err != nil && err != io.EOF {
			return 0, false, fmt.Errorf("read: %w", err)
		}
		b := buf[:n]
		for i := 0; ; {
			j := bytes.Index(b[i:], magic)
			if j < 0 || i+j >= chunk {
				break
			}
			at := off + int64(i+j)
			r, err := NewReader(io.NewSectionReader(f, at, size-at))
			if err == nil {
				if _, err := r.Next(); err == nil {
					return at, true, nil
				}
			}
			i += j + 1
		}
	}
	return 0, false, nil
}
