package dedup

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestLargeFilterOffHeap: a large filter's bits are not on the Go heap
// (where the collector would let the heap grow by their size again
// before collecting), and the filter works there, before and after a
// snapshot round trip.
func TestLargeFilterOffHeap(t *testing.T) {
	if mem, ok := mapMemory(1 << 20); !ok {
		t.Skip("no anonymous memory maps here")
	} else {
		unmapMemory(mem)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	b := NewBloom(8_000_000, 10) // 10 MB of bits
	grown := int64(heap()) - int64(before)
	if b.SizeBytes() < 9<<20 {
		t.Fatalf("filter of %d bytes, want ~10 MB", b.SizeBytes())
	}
	if grown > 1<<20 {
		t.Fatalf("the Go heap grew by %d bytes for a filter of %d", grown, b.SizeBytes())
	}
	for i := range 100_000 {
		b.AddHash(Hash([]byte{byte(i), byte(i >> 8), byte(i >> 16)}))
	}
	for i := range 100_000 {
		if !b.MayContainHash(Hash([]byte{byte(i), byte(i >> 8), byte(i >> 16)})) {
			t.Fatalf("key %d added and not found", i)
		}
	}
	runtime.KeepAlive(b)
}

// TestLargeFilterFreed: the memory of a large filter no longer referenced
// is given back (its cleanup runs), and a small one never needed it.
func TestLargeFilterFreed(t *testing.T) {
	if mem, ok := mapMemory(1 << 20); !ok {
		t.Skip("no anonymous memory maps here")
	} else {
		unmapMemory(mem)
	}
	var freed atomic.Int64
	saved := unmap
	unmap = func(mem []byte) { freed.Add(int64(len(mem))); unmapMemory(mem) }
	defer func() { unmap = saved }()

	small := NewBloom(1000, 10)
	small.Add([]byte("a"))
	large := NewBloom(2_000_000, 10)
	large.Add([]byte("a"))
	// The filter grows: its second sub-filter is mapped too.
	for i := range 2_000_001 {
		large.AddHash(uint64(i) * 0x9e3779b97f4a7c15)
	}
	want := int64(large.SizeBytes())
	small, large = nil, nil
	_ = small
	deadline := time.Now().Add(10 * time.Second)
	for freed.Load() < want && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	}
	if got := freed.Load(); got != want {
		t.Fatalf("freed %d bytes of a %d-byte filter", got, want)
	}
}
