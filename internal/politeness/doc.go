// Package politeness holds the rules that decide how often godwit may touch
// one host: the minimum gap between requests, the cap on a site's
// Crawl-delay, how long a robots.txt stays fresh and how an unreachable one
// is retried, and how the gap adapts to each server.
//
// Adaptation (adaptive.go) is a small state machine per host, HostState:
//
//   - the gap grows with the server's latency: at least LatencyFactor × its
//     smoothed time to first byte, so a struggling server sees fewer
//     requests;
//   - a 429 or 503 with Retry-After parks the host for that long (capped);
//     without one, and after timeouts, resets and other 5xx, the host
//     backs off exponentially with jitter;
//   - BreakerThreshold consecutive failures open a circuit breaker: the
//     host is parked, then probed with one request; a failed probe doubles
//     the cool-down, a good answer closes the breaker.
//
// Every wait carries a Reason, so an operator can see why a host is slow.
//
// A Policy is plain data and immutable once validated; its methods are pure
// functions of their arguments (the clock and the jitter are passed in) and
// safe for concurrent use. The frontier stores each host's HostState and
// applies the policy when it computes the host's next ready time; workers
// never sleep for politeness.
package politeness
