package kv

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
)

// DB is an open store.
type DB struct {
	db *pebble.DB
}

// Options configure Open. The zero value works.
type Options struct {
	// CacheBytes is the block cache size; default 64 MiB.
	CacheBytes int64
	// MemTableBytes is the size of one memtable; default 16 MiB.
	MemTableBytes uint64
	// Logger receives Pebble's error reports (background compaction or
	// flush failures); informational messages are dropped. Optional.
	Logger *slog.Logger
	// ReadOnly opens an existing store for reading only: writes fail,
	// nothing in dir changes (the write-ahead log is replayed in memory).
	ReadOnly bool
}

// Open opens (creating if needed, unless ReadOnly) the store in dir.
func Open(dir string, o Options) (*DB, error) {
	if o.CacheBytes == 0 {
		o.CacheBytes = 64 << 20
	}
	if o.MemTableBytes == 0 {
		o.MemTableBytes = 16 << 20
	}
	cache := pebble.NewCache(o.CacheBytes)
	defer cache.Unref()
	opts := &pebble.Options{
		Cache:        cache,
		MemTableSize: o.MemTableBytes,
		Logger:       pebbleLogger{o.Logger},
		ReadOnly:     o.ReadOnly,
	}
	// A Bloom filter per table (10 bits per key, 1% false positives) lets
	// a point read skip every table that does not hold its key, instead
	// of reading a data block of each level the key's range overlaps:
	// once the store outgrows the block cache, those reads were most of
	// the crawl's CPU (docs/benchmarks.md, "A million pages").
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("kv: open %s: %w", dir, err)
	}
	return &DB{db: db}, nil
}

// Get returns a copy of the value stored at key, and whether there was one.
func (d *DB) Get(key []byte) ([]byte, bool, error) {
	v, closer, err := d.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("kv: get: %w", err)
	}
	out := append([]byte(nil), v...)
	return out, true, closer.Close()
}

// Batch collects writes applied atomically by Commit.
type Batch struct {
	b *pebble.Batch
}

// NewBatch starts an empty batch.
func (d *DB) NewBatch() *Batch { return &Batch{b: d.db.NewBatch()} }

// Set stores value at key (both are copied).
func (b *Batch) Set(key, value []byte) { _ = b.b.Set(key, value, nil) }

// Delete removes key.
func (b *Batch) Delete(key []byte) { _ = b.b.Delete(key, nil) }

// DeleteRange removes every key in [lower, upper).
func (b *Batch) DeleteRange(lower, upper []byte) { _ = b.b.DeleteRange(lower, upper, nil) }

// Empty reports whether the batch holds no writes.
func (b *Batch) Empty() bool { return b.b.Empty() }

// Commit applies the batch; sync makes it durable against power loss.
// The batch cannot be used afterwards.
func (b *Batch) Commit(sync bool) error {
	opt := pebble.NoSync
	if sync {
		opt = pebble.Sync
	}
	err := b.b.Commit(opt)
	if cerr := b.b.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("kv: commit: %w", err)
	}
	return nil
}

// Discard drops an uncommitted batch.
func (b *Batch) Discard() { _ = b.b.Close() }

// Iter walks keys in [lower, upper) in order.
type Iter struct {
	it *pebble.Iterator
}

// Scan returns an iterator over [lower, upper), positioned at the first key.
func (d *DB) Scan(lower, upper []byte) (*Iter, error) {
	it, err := d.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, fmt.Errorf("kv: scan: %w", err)
	}
	it.First()
	return &Iter{it: it}, nil
}

// Valid reports whether the iterator is at a key.
func (i *Iter) Valid() bool { return i.it.Valid() }

// Next moves to the next key.
func (i *Iter) Next() { i.it.Next() }

// Key is the current key; valid until the iterator moves.
func (i *Iter) Key() []byte { return i.it.Key() }

// Value is the current value; valid until the iterator moves.
func (i *Iter) Value() []byte { return i.it.Value() }

// Close releases the iterator and reports any error met while iterating.
func (i *Iter) Close() error {
	if err := i.it.Close(); err != nil {
		return fmt.Errorf("kv: iterate: %w", err)
	}
	return nil
}

// Sync makes every committed batch durable. Concurrent calls share
// fsyncs (Pebble's group commit), so callers need not batch them.
func (d *DB) Sync() error {
	if err := d.db.LogData(nil, pebble.Sync); err != nil {
		return fmt.Errorf("kv: sync: %w", err)
	}
	return nil
}

// Memory is what the store holds in memory outside the Go heap (Pebble
// allocates its block cache and memtables with C's allocator).
type Memory struct {
	CacheBytes    int64  // block cache in use (data, index and filter blocks)
	MemTableBytes uint64 // memtables allocated, the mutable one and any awaiting flush
	MemTables     int64
	Tables        int64 // open table readers (the file cache)
	FileCacheSize int64 // their bytes
}

// Memory reports the store's memory outside the Go heap.
func (d *DB) Memory() Memory {
	m := d.db.Metrics()
	return Memory{
		CacheBytes:    m.BlockCache.Size,
		MemTableBytes: m.MemTable.Size,
		MemTables:     m.MemTable.Count,
		Tables:        m.FileCache.TableCount,
		FileCacheSize: m.FileCache.Size,
	}
}

// DiskBytes is the store's size on disk.
func (d *DB) DiskBytes() uint64 { return d.db.Metrics().DiskSpaceUsage() }

// Close flushes and closes the store.
func (d *DB) Close() error {
	if err := d.db.Close(); err != nil {
		return fmt.Errorf("kv: close: %w", err)
	}
	return nil
}

// pebbleLogger drops Pebble's informational chatter and passes its errors
// on. Fatal errors still stop the process, as Pebble requires.
type pebbleLogger struct{ log *slog.Logger }

func (pebbleLogger) Infof(string, ...any) {}

func (l pebbleLogger) Errorf(format string, args ...any) {
	if l.log != nil {
		l.log.Error("store: " + fmt.Sprintf(format, args...))
	}
}

func (pebbleLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("kv: pebble: "+format, args...))
}

var _ io.Closer = (*DB)(nil)
