package kv

import (
	"fmt"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestBatchGetScanReopen(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	for i := range 10 {
		b.Set(fmt.Appendf(nil, "k%02d", i), fmt.Appendf(nil, "v%d", i))
	}
	b.Delete([]byte("k03"))
	if _, ok, _ := db.Get([]byte("k01")); ok {
		t.Fatal("write visible before Commit")
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, ok, err := db.Get([]byte("k05")); !ok || err != nil || string(v) != "v5" {
		t.Errorf("Get(k05) = %q, %v, %v; want v5", v, ok, err)
	}
	if _, ok, _ := db.Get([]byte("k03")); ok {
		t.Error("deleted key still present")
	}
	it, err := db.Scan([]byte("k02"), []byte("k06"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for ; it.Valid(); it.Next() {
		keys = append(keys, string(it.Key()))
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(keys); got != "[k02 k04 k05]" {
		t.Errorf("Scan(k02, k06) = %v, want [k02 k04 k05]", got)
	}
}

// TestReadOnly: a read-only store sees what was committed (from the
// write-ahead log too: the writer did not close cleanly), refuses writes,
// and does not create a missing store.
func TestReadOnly(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	b.Set([]byte("k"), []byte("v"))
	if err := b.Commit(true); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if v, ok, err := ro.Get([]byte("k")); !ok || err != nil || string(v) != "v" {
		t.Errorf("read-only Get(k) = %q, %v, %v; want v", v, ok, err)
	}
	w := ro.NewBatch()
	w.Set([]byte("k2"), []byte("v"))
	if err := w.Commit(true); err == nil {
		t.Error("a read-only store accepted a write")
	}
	if _, err := Open(t.TempDir()+"/none", Options{ReadOnly: true}); err == nil {
		t.Error("read-only Open created a store")
	}
}

// TestMemory: the store reports its memory outside the Go heap: a
// memtable from the start, then the blocks a read from a table cached and
// the table open.
func TestMemory(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := db.Memory(); m.MemTableBytes == 0 || m.MemTables != 1 || m.CacheBytes != 0 || m.Tables != 0 {
		t.Fatalf("fresh store: %+v, want one memtable and nothing else", m)
	}
	b := db.NewBatch()
	for i := range 1000 {
		b.Set([]byte(fmt.Sprintf("key%04d", i)), make([]byte, 100))
	}
	if err := b.Commit(true); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopened, the data is in a table (the WAL is flushed on open).
	if db, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, ok, err := db.Get([]byte("key0500")); err != nil || !ok {
		t.Fatalf("get: %v %v", ok, err)
	}
	if m := db.Memory(); m.CacheBytes == 0 || m.Tables == 0 || m.FileCacheSize == 0 {
		t.Fatalf("after a read from a table: %+v, want cached blocks and an open table", m)
	}
}
