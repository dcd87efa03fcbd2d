//go:build !unix

package dedup

// mapMemory is not available here: filters stay on the Go heap.
func mapMemory(uint64) ([]byte, bool) { return nil, false }

func unmapMemory([]byte) {}
