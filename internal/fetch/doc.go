// Package fetch implements one HTTP GET, captured for the archive: the
// request as written, the response header, the raw (still content-encoded)
// body, the remote IP and timings, under hard limits on time and size, and
// behind a guard against server-side request forgery.
//
// The crawler's worker calls Client.Fetch once per URL. Politeness (delays,
// one request per host, robots.txt) is not this package's job, and neither
// is following redirects: a 3xx comes back as a Response and
// Response.Location gives the target for the caller to queue.
//
// # Invariants
//
//   - A Client is safe for concurrent use by many goroutines. It holds one
//     http.Transport (HTTP/1.1 only, keep-alive, bounded idle connections,
//     no transparent decompression) and never uses http.DefaultClient.
//     New starts no goroutines; Close closes idle connections, and the
//     owner calls it once no Fetch is running.
//   - Fetch returns either a Response or an error, never both. Any HTTP
//     status is a Response. Errors wrap a sentinel or a network error and
//     map to Transient, Permanent or Policy with Classify.
//   - Response.Body is at most Config.MaxBodyBytes long and exactly what
//     the server sent after de-chunking; when a limit cut it,
//     Response.Truncated says which ("length" or "time") and the bytes
//     received so far are kept. The body is read and closed inside Fetch:
//     the caller has nothing to close.
//   - Decode's output is at most Config.MaxDecodedBytes long, and its
//     memory is bounded by that cap, whatever the compression ratio.
//   - Unless Config.AllowPrivate, no connection is made to a loopback,
//     private, link-local, multicast, unspecified, CGNAT or reserved
//     address: the check runs on the resolved address of every dial
//     (net.Dialer.Control), so DNS rebinding cannot bypass it. Configured
//     proxies are trusted and exempt; behind a proxy, which resolves names
//     itself, targets whose host is such an address literally (or
//     "localhost") are refused before sending. Refusals wrap
//     ErrForbiddenAddress.
//   - No cookies are stored or sent.
//
// # Capture fidelity
//
// RawRequest holds the header fields exactly as net/http wrote them (taken
// from httptrace), minus Proxy-Authorization. RawHeader is re-serialized
// from the parsed response, so field order and case are normalized; a
// byte-exact capture of the response header needs a connection-level
// recorder and is left for later.
package fetch
