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
	// keys and the cluster's shard logs are laid out by it). The www.
	// name is in the same shard (Partition "site").
	for _, host := range []string{"example.com", "www.example.com"} {
		if got, want := Of(host, 1024), 0x289; got != want {
			t.Errorf("Of(%s) = %d, want %d", host, got, want)
		}
	}
}

func TestSite(t *testing.T) {
	for _, tt := range []struct{ host, want string }{
		{"example.com", "example.com"},
		{"www.example.com", "example.com"},
		{"www.example.com:8080", "example.com:8080"},
		{"www.h1.shapes.test", "h1.shapes.test"},
		{"www2.example.com", "www2.example.com"},
		{"wwwexample.com", "wwwexample.com"},
		{"www.com", "www.com"},
		{"www.localhost:8080", "www.localhost:8080"},
		{"www.www.example.com", "example.com"},
		{"sub.www.example.com", "sub.www.example.com"},
		{"[::1]:8080", "[::1]:8080"},
		{"127.0.0.1", "127.0.0.1"},
	} {
		if got := Site(tt.host); got != tt.want {
			t.Errorf("Site(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}
