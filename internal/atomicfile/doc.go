// Package atomicfile writes a file whole or not at all: the content goes
// to a temporary file beside it (the path + ".tmp", a name internal/datadir
// knows as a crash's leftover), which is fsynced, renamed over the path,
// and the directory fsynced so that the rename survives a crash. A reader
// sees the old file or the new one, never part of one.
//
// Its errors are the operating system's (they name the path); callers add
// their package's prefix. Nothing here keeps state or starts goroutines.
package atomicfile
