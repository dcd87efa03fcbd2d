// Package upload moves a crawl's completed WARC files, and the CDXJ index
// beside each, from the local WARC directory (the spool) to an object
// store, as they complete.
//
// An Uploader looks at the directory every Config.Scan (and when woken by
// Notify). A file ending in ".warc.gz" is complete (the writer renames it
// from ".open"); before it goes up, its index NAME.cdxj is written if the
// archive has not written it yet, so that each WARC reaches the store with
// its index. Each file goes to
//
//	Config.Prefix + <date> + "/" + <file>
//
// where <date> is the UTC day (YYYY-MM-DD) of the WARC's warcinfo record,
// its index sharing its WARC's day. docs/formats.md has the layout.
//
// # Durability
//
//   - A file counts as uploaded once the store has verified it
//     (blob.Bucket.PutFileNew: size and ETag) and a line recording it is
//     appended to the manifest (Config.Manifest, JSON Lines) and fsynced.
//     Only then, and only without Config.KeepLocal, is the local file
//     deleted. A restart reads the manifest: it neither uploads a
//     recorded file again nor forgets one; a crash between the upload and
//     the manifest line costs sending the bytes once more, to the same key,
//     where the store refuses them (the key is taken) and the comparison
//     finds them there already.
//   - An upload never replaces an object (blob.Bucket.PutFileNew,
//     If-None-Match: *). A key holding the file's bytes already counts as
//     the file's upload (Stats.Existing); a key holding other bytes is a
//     conflict: the object is left alone, the file and its index stay in
//     the spool, not recorded and not tried again by this Uploader, and
//     the conflict is logged as an error and counted (Stats.Conflicts,
//     ConflictFiles); the other files go on. A store without conditional
//     writes (501) is warned about once; uploads then look before they
//     write (blob.CreateLookFirst).
//   - When the store is down, files stay in the spool and are retried with
//     exponential backoff and jitter. When the spool holds more than
//     Config.SpoolMax bytes not yet uploaded, the Uploader reports pressure
//     (Config.OnPressure, Full) so that the crawl can stop taking work.
//
// # Lifetime
//
// New reads the manifest and starts nothing. Run uploads until its context
// ends (an upload in progress is abandoned; its file stays pending) or
// until Close, which lets Run make one last pass over the spool, each
// pending file tried once, and waits for it (without Run, Close makes that
// pass itself). Close then closes the manifest. Stats, Full, Notify and Key are safe for concurrent use.
//
// # A crawl's spool
//
// A Spool is what a crawl runs: OpenSpool checks the bucket (a missing
// bucket is an error, an unreachable server a warning) and builds the
// Uploader; Start runs it in a goroutine the Spool owns, pausing the crawl
// while the spool is full and resuming only a pause it made itself (the
// operator's pause outlasts it); Stop, once the archive has closed, makes
// the last pass and waits for that goroutine. Meanwhile the Spool reads
// records of uploaded, locally deleted files back from the bucket
// (ReadRange, the archive's Remote).
package upload
