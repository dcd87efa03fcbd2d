// Package kv is godwit's embedded key-value store: a thin layer over Pebble
// (github.com/cockroachdb/pebble/v2), the only package that imports it.
//
// It offers what the frontier needs and nothing more: point reads, ordered
// scans within bounds, and atomic batches. Every write goes through a Batch,
// committed to Pebble's write-ahead log. Commit(false) is fast but not even
// crash-safe: Pebble buffers the WAL in 32 KiB blocks and writes a partial
// block to the file only when a sync is requested, so a killed process loses
// the unwritten tail (measured: ~160 ms of frontier operations). Commit(true)
// and Sync write and fsync everything committed so far. WAL order makes
// recovery a prefix: a batch that survived implies every earlier batch
// survived, so one Sync after a series of Commit(false) makes the series
// durable.
//
// A DB is safe for concurrent use; a Batch and an Iter are not. The caller
// closes every Iter before closing the DB, and closes the DB.
package kv
