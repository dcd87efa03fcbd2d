package datadir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// BusyError is Acquire's error when another process holds the lock.
type BusyError struct {
	Dir string
	// PID is the holder's process ID, 0 if it could not be read (the
	// holder had not written it yet).
	PID int
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("datadir: %s is locked by process %d", e.Dir, e.PID)
}

// ErrUnsupported is Acquire's error on a platform without flock(2).
var ErrUnsupported = errors.New("datadir: locking a data directory is not supported on this platform")

// Lock is a held lock on a data directory.
type Lock struct {
	f       *os.File
	path    string
	created bool // this Lock created the lock file
}

// Acquire takes the lock of the data directory dir, which must exist,
// creating the lock file if needed, and writes this process's ID into it.
// It does not wait: when another process holds the lock it returns a
// *BusyError naming that process.
func Acquire(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	created := false
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		created = err == nil
		if errors.Is(err, fs.ErrExist) { // another process created it meanwhile
			f, err = os.OpenFile(path, os.O_RDWR, 0)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("datadir: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("datadir: lock %s: %w", path, err)
	}
	if !held {
		pid := holder(f)
		f.Close()
		return nil, &BusyError{Dir: dir, PID: pid}
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt(pid, 0)
	}
	if err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("datadir: %w", err)
	}
	return &Lock{f: f, path: path, created: created}, nil
}

// holder reads the holder's process ID from the lock file. The holder
// writes it right after taking the lock: an empty file is read again for
// a little while.
func holder(f *os.File) int {
	deadline := time.Now().Add(2 * time.Second)
	for {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		line, _, _ := bytes.Cut(b[:n], []byte("\n"))
		if pid, err := strconv.Atoi(string(bytes.TrimSpace(line))); err == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			return 0
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Release empties the lock file and releases the lock.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Truncate(0)
	if uerr := unlock(l.f); err == nil {
		err = uerr
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("datadir: release %s: %w", l.path, err)
	}
	return nil
}

// Abandon releases the lock and removes the lock file if this Lock
// created it: for a directory found not to be godwit's, which should be
// left as it was. (Other processes that find the directory foreign refuse
// it too, so removing the file cannot let two of them work in it.)
func (l *Lock) Abandon() error {
	if l == nil || l.f == nil {
		return nil
	}
	if l.created {
		os.Remove(l.path)
	}
	return l.Release()
}
