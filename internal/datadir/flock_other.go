//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package datadir

import "os"

// tryLock refuses: without flock(2) godwit cannot make sure one process
// owns a data directory, and two crawls in one directory destroy it.
func tryLock(*os.File) (bool, error) { return false, ErrUnsupported }

func unlock(*os.File) error { return nil }
