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
