// Package freshness holds the pure logic of keeping a crawl's copy fresh
// and of crawling important pages first:
//
//   - estimate.go: each URL's change rate, estimated from what its visits
//     saw (changed or not since the previous visit, at irregular
//     intervals, and Last-Modified when the server is consistent about
//     it), seeded by the sitemap's changefreq. The per-URL State is plain
//     data of 13 to 26 bytes encoded; the frontier stores it with the URL.
//   - schedule.go: the revisit interval that maximizes the expected
//     freshness of the collection for a fetch budget (Cho and
//     Garcia-Molina's optimal policy), bounded by Policy.MinInterval and
//     Policy.MaxInterval, with CalibrateMu to fit the policy to a budget.
//   - importance.go: OPIC on-line page importance (each fetched page
//     hands its cash to its outlinks) and the mapping of importance,
//     depth and sitemap priority to a priority band.
//
// docs/freshness.md gives the mathematics, the choices and the tests that
// check them.
//
// Nothing here does I/O, keeps state between calls or reads a clock: the
// time of each observation is passed in. A Policy is plain data and
// immutable once validated; its methods and the package's functions are
// safe for concurrent use.
package freshness
