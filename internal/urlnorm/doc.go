// Package urlnorm implements URL parsing, resolution and normalization for
// the crawler: the fetchable form of a URL ([Normalize]), the canonical crawl
// key that deduplicates spellings of one page ([Canonicalizer.Key]), and the
// politeness keys derived from a host ([Host], [Domain]).
//
// The parser is net/url with browser-like (WHATWG) pre-processing: leading
// and trailing C0 controls and spaces are trimmed, tabs and newlines inside
// are removed, backslashes count as slashes in the authority and path of
// http(s) URLs, "http:example.com" and "http:/example.com" mean
// "http://example.com/", a stray '%' is encoded as "%25", and a relative
// reference that starts with the base's own scheme ("http:page") is relative.
// A later revision swaps net/url for a full WHATWG parser (numeric IPv4
// forms, percent-encoded hosts); the API is meant to stay as it is.
//
// Decisions:
//
//   - Only http and https URLs are accepted; any other scheme (mailto:,
//     javascript:, ftp:, data:, ...) is rejected with [ErrNotHTTP], every
//     other failure wraps [ErrInvalid].
//   - Userinfo ("user:pass@") is dropped: credentials found in links are
//     never sent, and "http://trusted.example@evil.example/" must not look
//     like trusted.example to anything downstream.
//   - Hosts are lower-cased, lose trailing dots, and go through IDNA (UTS 46
//     non-transitional lookup mapping with the browser settings: underscores
//     and "--" in the third and fourth positions are allowed, as in
//     "r3---sn-abc.example"). Hosts with spaces, control characters or other
//     forbidden code points are rejected. IPv6 literals are written in their
//     canonical (RFC 5952) form.
//   - Paths and queries keep their meaning: escapes of unreserved characters
//     are decoded ("%7E" → "~"), all other escapes are kept with upper-case
//     hex ("%2f" → "%2F": an escaped slash is not a slash), and characters
//     that may not appear raw (spaces, controls, non-ASCII as UTF-8 bytes,
//     and in paths also `"<>\^`{|}`) are percent-encoded. Query parameter
//     order is kept by [Normalize]; only the crawl key sorts it.
//   - An empty query ("?") is kept by [Normalize] (it is what the page
//     linked to) and dropped by the crawl key.
//
// All functions are safe for concurrent use. A [Canonicalizer] is immutable
// after [NewCanonicalizer] and may be shared by any number of goroutines.
// Returned URLs are fresh values; inputs are never modified.
package urlnorm
