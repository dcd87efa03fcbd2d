// Package dedup implements the crawler's duplicate detection in memory:
// today the Bloom filter in front of the seen-set.
//
// The authoritative seen-set is the url/ table of the store; [Bloom]
// answers "definitely new" in RAM, so that only keys it reports as "maybe
// seen" cost a store lookup. A false positive costs one lookup, never a
// lost URL: the filter has no false negatives.
//
// # Why our own filter
//
// Bloom is cache-blocked (Putze, Sanders and Singler, "Cache-, Hash- and
// Space-Efficient Bloom Filters", 2007; the probe sequence is RocksDB's
// FastLocalBloom): a key's k bits all lie in one 64-byte block, so Add and
// MayContain cost one cache miss instead of k, and all k positions come
// from one 64-bit hash. github.com/bits-and-blooms/bloom/v3, the common Go
// filter, touches k cache lines and hashes each key with 128-bit murmur3;
// bench_test.go compares the two. The price of blocking is a slightly
// higher false-positive rate at the same memory, because blocks are
// unevenly loaded: at 10 bits per key, 0.98% measured at a million keys
// instead of a classic filter's 0.82%.
//
// # Growth
//
// A Bloom filter cannot be resized: the keys are gone, only bits remain.
// NewBloom sizes the filter for an expected number of keys; when more are
// added, Bloom becomes a scalable Bloom filter (Almeida, Baquero, Preguiça
// and Hutchison, 2007): a chain of sub-filters, each new one twice the
// capacity of the last and given enough bits per key that its
// false-positive rate when full is at most fp0·c/(i+1)² for the i-th
// (fp0 the first one's, c = 1/(π²/6 − 1) ≈ 1.55). Keys are added to the
// newest; a query checks them all. A key that was not added passes each
// sub-filter with at most its rate, so the chain's rate is at most the sum,
// below 2·fp0 (about 2% at 10 bits per key) however many keys are added.
// The paper's targets fall geometrically (fp0/2^i); ours fall
// polynomially, for the same bound with fewer bits, since every halving of
// a target costs a blocked filter 1.7 to 2.5 more bits per key.
//
// Memory is bitsPerKey bits per key up to the expected count. Past it the
// chain needs more (TestGrowthKeepsRateBounded, 10 bits per key, 1,000
// keys expected): 15 bits per key at 15,000 keys and 20 at a million when
// the newest sub-filter is full, up to twice that just after one is added
// (it is allocated whole); and each query of a key not in the filter costs
// one cache miss per sub-filter. That is the price of not knowing the
// count in advance, so size the filter for the count you expect, e.g.
// twice the seen-set's size when rebuilding it from the store on start.
// EstimatedFPRate and SizeBytes show when a rebuild would pay.
//
// A sub-filter of 1 MiB or more lives outside the Go heap (an anonymous
// memory map where the system has them; mem.go), freed when its Bloom is
// no longer referenced: on the heap, a filter of N bytes let the
// collector's GOGC headroom grow the process by N more, twice its size.
//
// # Invariants
//
//   - A Bloom is not safe for concurrent use: the frontier calls it under
//     its own lock.
//   - The filter uses a key's 64-bit hash directly: AddHash and
//     MayContainHash need a well-mixed hash such as Hash (xxhash64), and
//     a filter must be queried with the same hash it was filled with.
//   - Each Add counts towards Len and the capacity, so a key is added once.
//   - WriteTo and ReadBloom snapshot a filter (format in snapshot.go), with
//     a magic, a version and CRC-32C checksums of the header and the data,
//     so a torn or foreign file is rejected rather than loaded. A loaded
//     filter answers exactly as the one written, and goes on growing the
//     same way.
//   - No package-level mutable state.
package dedup
