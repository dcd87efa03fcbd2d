// Package datadir owns the layout of a crawl's data directory (the --data
// directory of godwit crawl): the lock that makes one process its owner,
// and which files in it are godwit's.
//
// The lock is an OS-level lock (flock(2)) on DIR/godwit.lock, which holds
// the owner's process ID while it is held. The kernel drops the lock when
// the process ends, however it ends (kill -9 included), so a stale ID in
// the file never blocks anyone: only a held lock does. The lock file is
// never removed while a directory is a crawl's: removing it would let two
// processes lock two different files of one name.
//
// godwit touches only files it names (Inspect): anything else in the
// directory is foreign, and the program refuses to work in a directory
// holding foreign files, so that deleting a crawl (godwit crawl --fresh)
// deletes exactly what godwit wrote. docs/formats.md lists the layout.
//
// It also reads and writes the crawl's seeds: a user's seeds file
// (ReadSeedsFile, whose errors are worded for the user) and the seeds the
// data directory records for a resumed crawl (LoadSeeds, SaveSeeds).
//
// A Lock is owned by one goroutine; nothing here starts goroutines.
package datadir
