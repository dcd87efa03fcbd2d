// Package fetch implements one HTTP GET, captured for the archive: the
// request and response bytes as they went over the wire, the de-chunked
// but still content-encoded body, the remote IP and timings, under hard
// limits on time and size, through a DNS cache, and behind a guard
// against server-side request forgery.
//
// The crawler's worker calls Client.Fetch once per URL. Politeness (delays,
// one request per host, robots.txt) is not this package's job, and neither
// is following redirects: a 3xx comes back as a Response and
// Response.Location gives the target for the caller to queue.
//
// # Invariants
//
//   - A Client is safe for concurrent use by many goroutines. It holds one
//     http.Transport (HTTP/1.1, HTTP/2 too when Config.HTTP2, keep-alive,
//     bounded idle connections,
//     no transparent decompression) and never uses http.DefaultClient.
//     New starts no goroutines; Close closes idle connections, and the
//     owner calls it once no Fetch is running.
//   - Fetch returns either a Response or an error, never both. Any HTTP
//     status is a Response. Errors wrap a sentinel or a network error and
//     map to Transient, Permanent or Policy with Classify. TLSKind names
//     a TLS failure (unknown authority, expired, name mismatch, other
//     certificate problem, handshake timeout, protocol); ErrorKind names
//     any failure of a request that was sent (TLS, DNS, refused, reset,
//     timeout …) for the archive, and ErrorIP the server's address when
//     the error tells it.
//   - Response.Body is at most Config.MaxBodyBytes long and exactly what
//     the server sent after de-chunking; when a limit cut it,
//     Response.Truncated says which ("length" or "time") and the bytes
//     received so far are kept. The body is read and closed inside Fetch:
//     the caller has nothing to close.
//   - Decode's output is at most Config.MaxDecodedBytes long, and its
//     memory is bounded by that cap, whatever the compression ratio.
//   - Config.Overrides send some host names to fixed addresses and ports
//     instead of DNS (curl's --resolve); the guard still checks the
//     address. Config.RootCAs, when set, replaces the system roots for
//     TLS verification (cmd/godwit passes the system pool plus --ca-cert).
//   - Host names are resolved through the Client's DNS cache (see
//     Config.Resolver): answers are kept for a TTL (Config.DNSCacheTTL, or
//     the resolver's own clamped to [DNSMinTTL, DNSMaxTTL]), "no such
//     host" for DNSNegativeTTL, other failures not at all; concurrent
//     lookups of one name share one query; at most DNSCacheSize names are
//     held. Client.DNSStats reports hits, misses, negative hits and joins.
//   - Unless Config.AllowPrivate, no connection is made to a loopback,
//     private, link-local, multicast, unspecified, CGNAT or reserved
//     address. The dialer checks every address a name resolves to and
//     refuses the name if any is forbidden (an error wrapping
//     ErrForbiddenAddress that names the host and the address), then
//     checks again on the socket (net.Dialer.Control), so neither DNS
//     rebinding nor a mixed answer gets through. Configured proxies are
//     trusted and exempt; behind a proxy, which resolves names itself,
//     targets whose host is such an address literally (or "localhost")
//     are refused before sending.
//   - No cookies are stored or sent.
//
// # Capture fidelity
//
// Every connection the transport uses is wrapped in a recorder, armed for
// one Fetch from the moment the connection is handed to its request until
// the body has been read, so that on a keep-alive connection each capture
// holds its own exchange only. RawRequest, RawHeader and RawBody are then
// the bytes as written and received: the final response's header exactly
// as sent (1xx interim responses dropped), and the body with its transfer
// coding. Without a transfer coding RawBody is Body itself, not a copy;
// reads past MaxBodyBytes plus the header limit are not recorded.
// Proxy-Authorization is removed from RawRequest. Where the wire bytes are
// not plain HTTP (https through a CONNECT tunnel or a socks proxy, where
// the recorder sees only TLS records) or do not match what net/http
// parsed, the three are rebuilt from the parsed messages instead and
// Response.Reserialized says so. In both cases reading RawHeader followed
// by RawBody as an HTTP response gives Body.
//
// HTTP/2 is off unless Config.HTTP2: then TLS offers h2 and http/1.1 by
// ALPN, and an h2 connection is handed to net/http bare (it speaks HTTP/2
// only on a *tls.Conn), so nothing is recorded on it: the exchange is
// rebuilt in HTTP/1.1 form (Response.Reserialized, Response.Protocol
// "h2"; see Response.RawRequest). Response.Protocol and
// Response.TLSVersion name the protocols for the archive's WARC-Protocol
// fields.
package fetch
