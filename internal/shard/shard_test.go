package shard

import (
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	seen := map[int]bool{}
	for i := range 10000 {
		s := Of(fmt.Sprintf("host%d.example", i), 1024)
		if s < 0 || s >= 1024 {
			t.Fatalf("Of = %d, outside [0, 1024)", s)
		}
		seen[s] = true
	}
	if len(seen) < 1000 {
		t.Errorf("10000 hosts fell in only %d of 1024 shards", len(seen))
	}
	// xxhash64("example.com") = 0x2883ba7dc9aa3289, pinned so the
	// function never changes under a running crawl (the frontier's store
	// keys and the cluster's shard logs are laid out by it).
	if got, want := Of("example.com", 1024), 0x289; got != want {
		t.Errorf("Of(example.com) = %d, want %d", got, want)
	}
}
