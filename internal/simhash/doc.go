// Package simhash implements near-duplicate detection of web pages: the
// 64-bit SimHash fingerprint of a page's visible text (Charikar, "Similarity
// estimation techniques from rounding algorithms", 2002) and an index that
// finds a stored fingerprint within a small Hamming distance of a new one
// without scanning them all (Manku, Jain and Das Sarma, "Detecting
// near-duplicates for web crawling", WWW 2007).
//
// A page goes through three steps:
//
//	text := simhash.VisibleText(utf8Body)  // text a reader sees, boilerplate-light
//	fp := simhash.Fingerprint(text)        // words weighted by frequency, xxhash64, Charikar
//	id, dist, ok := index.Near(fp)         // closest earlier page within k bits
//
// A caller that tokenizes the page anyway feeds a Text instead of calling
// VisibleText (extract.HTML does, with Options.Text), and the page is read
// once for its links and its text; the text is the same. A Text of
// NewTextFingerprint keeps only the fingerprint, hashing each word as the
// text is written (the crawler's way: no copy of the text, no second pass);
// its Fingerprint equals Fingerprint of the text.
//
// Exact duplicates are found by payload digest before this; SimHash finds
// pages that differ by a date, a counter, a session id in a link, or an
// advertisement. docs/simhash.md defines the fingerprint and the encoding
// byte by byte, explains the index layout and gives measured costs.
//
// # Why our own
//
// DESIGN.md lists SimHash and its index among the parts we write: a
// fingerprint is stored (in url/ records and WARC metadata), so its
// definition must be ours and written down, and it is a few dozen lines;
// the index is what makes it usable, since a linear scan of a million
// fingerprints costs about a millisecond per page (BenchmarkNear/scan).
//
// # Invariants
//
//   - Fingerprint and FromFeatures are pure functions; a fingerprint is a
//     definition, not an implementation detail: a change to the shingles,
//     the lower-casing or the hash changes every stored fingerprint, so it
//     needs a new name (and a migration of the store's simhash values).
//   - VisibleText returns valid UTF-8 of at most MaxText bytes for any
//     input, reads the page once and holds at most the page and the text.
//     A Text is one page's state: not safe for concurrent use.
//   - An Index is safe for concurrent use (a sync.RWMutex: Near calls run
//     in parallel, Add excludes them). For any stored fingerprint within
//     distance k of a query, Near finds one (recall is exact, the index is
//     not probabilistic) and never reports one further than k.
//   - WriteTo and ReadFrom round-trip an Index exactly (format in
//     encoding.go and docs/simhash.md), with checksums, so a torn or
//     foreign file is rejected rather than loaded.
//   - No package-level mutable state.
package simhash
