// Package blob stores objects in an S3-compatible object store: WARC files
// uploaded as they complete, and (in cluster mode) shard snapshots.
//
// A Bucket is one bucket and a key prefix in it, opened from a URL
// s3://bucket/prefix. Keys passed to its methods are relative to the
// prefix and '/'-separated. The package has no interface of its own:
// consumers declare the few methods they call (see internal/upload) and a
// *Bucket satisfies them.
//
// # Guarantees
//
//   - PutFile returns only once the object is stored and verified: its size
//     equals the file's and, where the server's ETag is an MD5 digest (a
//     plain digest, or the multipart form md5-of-part-md5s-N), it matches
//     the file's content. Files larger than the part size are uploaded as
//     multipart objects, their parts read in place (no copy of the file).
//   - PutFileNew does the same but never replaces an object: If-None-Match: *
//     on the PUT, or on the completion of a multipart upload (which it runs
//     itself: the client sends the header only with the initiation, where
//     S3 does not check it). A key already holding the file's bytes is
//     success (Object.Existed); other bytes ErrExists, the object left as it
//     was; a server answering 501 NotImplemented ErrNoConditional, nothing
//     written (CreateLookFirst then looks before it writes).
//   - PutNew creates an object only if its key is absent, with
//     If-None-Match: * (AWS S3, MinIO, Ceph RGW and gofakes3 honour it).
//     For servers that ignore the header, Options.NoConditionalPut makes
//     PutNew look before it writes: that narrows the race but does not
//     close it, so callers that need exclusivity must also fence writers
//     some other way (cluster mode names manifests by lease epoch).
//   - Errors that mean "no such object" wrap ErrNotFound; a create-only
//     put over an existing object fails with ErrExists. Every other error
//     is worth retrying later (the store may be down); the client retries
//     each request Options.MaxRetries times itself.
//   - Plain HTTP is allowed to loopback endpoints only: credentials and
//     WARC content never cross a network in clear text.
//
// A Bucket is safe for concurrent use and holds no resources that need
// closing beyond idle HTTP connections (CloseIdleConnections).
package blob
