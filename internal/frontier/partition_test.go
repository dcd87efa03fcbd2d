package frontier

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/shard"
)

// oldPartition rewrites the store in dir as a version before
// 2026-11-27 left it: every key of a host in the shard of its own name
// (xxhash64(host) mod Shards), no partition recorded. It returns how
// many keys that moved.
func oldPartition(t *testing.T, dir string) int { return oldPartitionOf(t, dir, "hrqvu") }

// oldPartitionOf is oldPartition of the tables named (their tags) only:
// the others as a migration interrupted after them left them.
func oldPartitionOf(t *testing.T, dir, tables string) int {
	t.Helper()
	db, err := kv.Open(filepath.Join(dir, "store"), kv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := db.NewBatch()
	moved := 0
	for _, tag := range []byte(tables) {
		it, err := db.Scan([]byte{tag}, []byte{tag + 1})
		if err != nil {
			t.Fatal(err)
		}
		for ; it.Valid(); it.Next() {
			host, ok := keyHost(it.Key())
			if !ok {
				continue
			}
			k := append([]byte(nil), it.Key()...)
			binary.BigEndian.PutUint16(k[1:3], uint16(xxhash.Sum64String(host)%Shards))
			b.Delete(it.Key())
			b.Set(k, it.Value())
			moved++
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
	}
	b.Delete(metaKey(partitionMeta))
	if err := b.Commit(true); err != nil {
		t.Fatal(err)
	}
	return moved
}

// TestOpenMigratesPartition: a store written before hosts were sharded
// by site (a www. host's keys in the shard of its own name) is moved to
// the new partition when opened: the www. host's queue, URL records and
// host record are found again, its seen URLs stay seen, and the crawl
// goes on where it was.
func TestOpenMigratesPartition(t *testing.T) {
	// All tables as an older version left them; or only some, as a
	// migration interrupted after the host and robots tables left them.
	for _, tables := range []string{"hrqvu", "qvu"} {
		t.Run(tables, func(t *testing.T) { testOpenMigratesPartition(t, tables) })
	}
}

func testOpenMigratesPartition(t *testing.T, tables string) {
	dir := t.TempDir()
	p := politeness.Policy{Delay: time.Millisecond}
	f, err := Open(Options{Dir: dir, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	links := []crawl.Link{link("www.a.test", 1), link("www.a.test", 2), link("www.a.test", 3), link("b.test", 1)}
	if n, err := f.Add(t.Context(), links); n != 4 || err != nil {
		t.Fatalf("Add = %d, %v", n, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if shard.Of("www.a.test", Shards) == int(xxhash.Sum64String("www.a.test")%Shards) {
		t.Fatal("www.a.test is in the same shard under both partitions: the test cannot tell")
	}
	if moved := oldPartitionOf(t, dir, tables); moved < 3 {
		t.Fatalf("the old partition moved %d keys, want www.a.test's host record, queue entries and URL records", moved)
	}

	f, err = Open(Options{Dir: dir, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, ok, err := f.Host("www.a.test")
	if err != nil || !ok || info.Queued != 3 {
		t.Fatalf("Host(www.a.test) = %+v, %v, %v after the migration, want 3 queued", info, ok, err)
	}
	if _, ok, err := f.URL("www.a.test", links[1].Key); err != nil || !ok {
		t.Errorf("URL(%s) = %v, %v after the migration, want its record", links[1].Key, ok, err)
	}
	if n, err := f.Add(t.Context(), links); n != 0 || err != nil {
		t.Errorf("Add(seen links) = %d, %v after the migration, want 0", n, err)
	}
	leased := map[string]int{}
	for range 4 {
		l := mustNext(t, f)
		leased[l.Task.Host]++
		if err := f.Complete(t.Context(), l, crawl.Outcome{Status: 200}); err != nil {
			t.Fatal(err)
		}
	}
	if leased["www.a.test"] != 3 || leased["b.test"] != 1 {
		t.Errorf("leased %v after the migration, want www.a.test's 3 URLs and b.test's", leased)
	}
	v, ok, err := f.db.Get(metaKey(partitionMeta))
	if err != nil || string(v) != shard.Partition {
		t.Errorf("partition recorded %q, %v, %v, want %q", v, ok, err, shard.Partition)
	}
}

// TestOpenRefusesOldClusterStore: a cluster node's store of the old
// partition is not migrated (its shards are the cluster's) but refused,
// saying what to do.
func TestOpenRefusesOldClusterStore(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add(t.Context(), []crawl.Link{link("www.a.test", 1)}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	oldPartition(t, dir)
	f, err = Open(Options{Dir: dir, Partial: true})
	if err == nil {
		f.Close()
		t.Fatal("Open(Partial) of an old cluster node's store succeeded")
	}
	if !strings.Contains(err.Error(), "before 2026-11-27") {
		t.Errorf("Open(Partial) = %v, want it to say the store is older", err)
	}
}
