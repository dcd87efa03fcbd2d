//go:build unix

package dedup

import "syscall"

// mapMemory maps n bytes of zeroed anonymous memory (page-aligned, so the
// blocks stay cache-line aligned). The pages are only resident once
// written.
func mapMemory(n uint64) ([]byte, bool) {
	if n > uint64(^uint(0)>>1) {
		return nil, false
	}
	mem, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false
	}
	return mem, true
}

// unmapMemory frees what mapMemory mapped.
func unmapMemory(mem []byte) { _ = syscall.Munmap(mem) }
