// Package archive records godwit's fetches as WARC 1.1: for every exchange
// a request record and a response record, written as one group to the same
// file, the response carrying the payload digest of the entity body as
// received (de-chunked, still content-encoded).
//
// A request that got no response (RecordFailure) is a metadata record of
// its own, naming what went wrong (docs/formats.md, "Failed requests").
//
// Archive implements crawl.Archive and crawl.FailureRecorder on top of a
// warc.Writer. It is safe for
// concurrent use (the writer serializes groups). The caller owns the
// Archive and must Close it after the last Record, which finishes the
// current WARC file.
package archive
