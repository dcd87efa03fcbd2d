// Package warc implements the WARC 1.1 file format (ISO 28500:2017): a
// Writer that produces godwit's archive files and a Reader for WARC files
// from any producer.
//
// The Writer is our own code, not a wrapper around a library, because it
// must sit directly on the crawler's capture of each exchange: the request
// and response blocks are written byte for byte as they crossed the wire.
// docs/formats.md describes the files byte by byte.
//
// # Files
//
// A Writer writes files named {prefix}-{yyyyMMddHHmmssSSS}-{serial}-{node}.warc.gz
// into one directory. The file being written carries OpenSuffix (".open")
// and is renamed once it is complete (fsynced and closed), on rotation or
// Close, so any file without the suffix is whole. Every file starts with a
// warcinfo record. Each record is its own gzip member, so a record can be
// read from its offset alone; Write returns those offsets. With
// WriterConfig.Index the Writer also keeps each file's CDXJ index while
// writing it and writes it beside the file (NAME.cdxj) when the file is
// completed, so that indexing never reads a file back.
//
// # Invariants
//
//   - A Writer is safe for concurrent use: workers share one. Records of
//     one Write call (a group, e.g. request + response) are contiguous in
//     one file; rotation happens only between groups. Compression runs
//     outside the Writer's lock; only the file write is serialized.
//   - A group is written whole or not at all: a failed write is cut off
//     the file again. If that cut fails, the Writer reports the error on
//     every later call instead of writing after a torn group.
//   - The caller owns the Records it passes to Write; Write fills fields
//     into their Headers, so a Record must not be written by two
//     goroutines at once.
//   - The Writer owns its files: Close completes the current one. A
//     process that dies leaves one file with the ".open" suffix whose tail
//     may be torn; a Reader reports the torn tail (ErrTornTail) with the
//     offset where the intact records end.
//   - A Reader does not own its io.Reader; the caller closes it. A Reader
//     holds one record in memory at a time and is not safe for concurrent
//     use.
//   - No package-level mutable state: the clock is WriterConfig.Now.
package warc
