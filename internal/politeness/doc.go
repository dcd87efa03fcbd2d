// Package politeness holds the rules that decide how often godwit may touch
// one host: the minimum gap between request starts, the cap on a site's
// Crawl-delay, how long a robots.txt stays fresh, and how an unreachable
// robots.txt is retried.
//
// A Policy is plain data and immutable once validated; its methods are pure
// functions and safe for concurrent use. The frontier applies the policy when
// it computes a host's next ready time; workers never sleep for politeness.
package politeness
