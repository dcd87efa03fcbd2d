// Package frontier schedules godwit's URLs: a FIFO queue per host (the
// Mercator back queues), a heap of hosts ordered by the time each may next
// be touched, and the URL seen-set.
//
// Invariants, which the tests check:
//   - a host has at most one outstanding lease, so it never sees two
//     requests from godwit at once;
//   - a host is not handed out before its ready time, which Complete sets to
//     the end of the last exchange plus the host's delay
//     (max(Policy.Delay, capped Crawl-delay)), or to a back-off after an
//     unreachable robots.txt; an outcome that sent no request leaves it as is;
//   - a URL key is queued at most once per crawl: Add of a seen key is a
//     no-op, and Complete of an unknown or finished lease is a no-op;
//   - Next reports crawl.ErrExhausted only when nothing is queued and no
//     lease is outstanding.
//
// This implementation keeps its state in memory. A Frontier is safe for
// concurrent use; it starts no goroutines and needs no Close.
package frontier
