// Package atomicfile writes a file whole or not at all: the content goes
// to a temporary file beside it (the path + ".tmp", a name internal/datadir
// knows as a crash's leftover), which is fsynced, renamed over the path,
// and the directory fsynced so that the rename survives a crash. A reader
// sees the old file or the new one, never part of one. WriteWith names
// the temporary file by a pattern instead (writers racing on one path each
// get their own, as the WARC indexes' ".cdxj-N") and sets the new file's
// mode (0644 for the files beside WARC files).
//
// Its errors are the operating system's (they name the path); callers add
// their package's prefix. Nothing here keeps state or starts goroutines.
package atomicfile
