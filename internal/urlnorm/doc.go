// Package urlnorm implements URL parsing, resolution and normalization for
// the crawler: the fetchable form of a URL ([Parse], [Resolve],
// [Normalize]), the canonical crawl key that deduplicates spellings of one
// page ([Canonicalizer.Key]), its SURT form for CDXJ indexes ([SURT]), and
// the keys derived from a host: the host key for politeness and sharding
// ([Host]) and the registrable domain ([Domain]).
//
// Parsing is the WHATWG URL Standard's basic URL parser, our own
// implementation (whatwg.go, whatwghost.go), as browsers parse: leading
// and trailing C0 controls and spaces trimmed, tabs and newlines removed,
// backslashes as slashes in http(s) URLs, "http:example.com" and
// "http:/example.com" meaning "http://example.com/", "http:page" relative
// to an http base, hosts percent-decoded and run through IDNA (UTS 46,
// non-transitional, via golang.org/x/net/idna), IPv4 hosts in any of the
// historical forms ("0x7f.1", "2130706433") written in dotted decimal,
// IPv6 hosts compressed, percent-encoding per the standard's sets. It
// agrees with every case of the web-platform-tests urltestdata.json;
// docs/urls.md has the numbers, the differences in IDNA test files, and
// why we did not use an existing library. An absolute link of the common
// shape (http or https, a plain ASCII domain, a path and query of bytes
// that nothing changes) takes a fast path (fast.go) that gives the same
// URL without running the parser; [ParseString] also returns its String
// form, the input itself when it is already normal.
//
// On top of the standard, the crawl's normalization:
//
//   - Only http and https URLs are accepted; any other scheme (mailto:,
//     javascript:, ftp:, data:, ...) is rejected with [ErrNotHTTP], every
//     other failure wraps [ErrInvalid].
//   - Userinfo ("user:pass@") is dropped: credentials found in links are
//     never sent, and "http://trusted.example@evil.example/" must not look
//     like trusted.example to anything downstream. The fragment is dropped.
//   - A domain loses its trailing dots; a host that is only dots, or has a
//     character DNS cannot carry and net/url cannot represent ('`', '{',
//     '}'), is rejected.
//   - Paths and queries keep their meaning: escapes of unreserved characters
//     are decoded ("%7E" → "~"), all other escapes are kept with upper-case
//     hex ("%2f" → "%2F": an escaped slash is not a slash), and characters
//     that may not appear raw (spaces, controls, non-ASCII as UTF-8 bytes,
//     and in paths also `"<>\^`{|}`) are percent-encoded. Query parameter
//     order is kept by [Normalize]; only the crawl key sorts it.
//   - An empty query ("?") is kept by [Normalize] (it is what the page
//     linked to) and dropped by the crawl key.
//
// The crawl key ([Canonicalizer.Key]) further sorts the query parameters
// (stable for repeated names) and removes tracking parameters (utm_*,
// gclid, fbclid, ...) and session identifiers (jsessionid, PHPSESSID,
// sid, ..., in the query and as ";jsessionid=" path parameters), both
// lists configurable in [Options]. Keys are idempotent: the key of a key
// is itself.
//
// All functions are safe for concurrent use. A [Canonicalizer] is immutable
// after [NewCanonicalizer] and may be shared by any number of goroutines.
// Returned URLs are fresh values; inputs are never modified.
package urlnorm
