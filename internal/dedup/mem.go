package dedup

import (
	"runtime"
	"unsafe"
)

// offHeapMin is the size from which a sub-filter's blocks live outside the
// Go heap (where the system allows it; mem_unix.go).
//
// A filter on the Go heap counts as live heap, and the garbage collector
// lets garbage accumulate up to GOGC percent of the live heap before it
// collects (100% by default): so a filter of N bytes there let the
// process's peak memory grow by up to 2N, twice its size. A crawl's
// seen-set is its one structure that grows with the URLs it has seen
// (1.25 bytes per URL at 10 bits per key), and was most of the heap at
// scale (docs/benchmarks.md, "memory per seen URL at scale"). Outside the
// heap it costs its size and nothing more; smaller filters stay on the
// heap, where they cost little and are freed as usual.
const offHeapMin = 1 << 20

// newBlocks allocates n zeroed blocks for a sub-filter of b: outside the
// Go heap if they are large and the system allows it, freed when b becomes
// unreachable. Every method that reads or writes blocks keeps b alive
// until it returns (runtime.KeepAlive), so that the memory is never freed
// under it; the blocks are never handed outside the package.
func (b *Bloom) newBlocks(n uint64) []block {
	if n*64 >= offHeapMin {
		if mem, ok := mapMemory(n * 64); ok {
			runtime.AddCleanup(b, unmap, mem)
			return unsafe.Slice((*block)(unsafe.Pointer(unsafe.SliceData(mem))), n)
		}
	}
	return make([]block, n)
}

// unmap is unmapMemory; a variable so that a test can see it called.
var unmap = unmapMemory
