// Package fakeweb implements a deterministic simulated web on loopback and
// a judge that grades a crawler from the server side, by what the web
// actually saw rather than by what the crawler says it did.
//
// # The web
//
// A Web has Config.Hosts virtual hosts h0..hN.<Domain>. Host pages are
// "/" (page 0) and "/p/1".."/p/{PagesPerHost-1}"; page i links to pages
// 2i+1 and 2i+2, so every page hangs off the home page, plus random links
// to other pages, to other hosts, to "/r/N" (301 to "/p/N") and, on hosts
// whose robots.txt disallows it, to "/private/N". Links are written the
// many equivalent ways real pages write them (absolute, upper-case host,
// ":80", root-, document- and parent-relative, protocol-relative, with a
// fragment or tracking parameters, against a <base>) in <a>, <area>,
// <link rel="next">, <iframe> and a stray <frame>, which a tokenizer
// reports but a tree builder drops. Each page also has mailto:, tel: and
// javascript: links to ignore. Queries are ignored by the server.
//
// Config.Traps adds spider traps (see Traps): infinite calendars,
// repeating relative paths and ever-longer searches on some hosts; session
// IDs minted per visit, links hidden in comments and scripts, <base href>,
// "&amp;" in queries and upper-case unquoted attributes on all. Trap pages
// are outside the ground truth, and Report counts the requests made
// inside each trap. With no trap enabled the web is exactly what it was
// before traps existed, byte for byte.
//
// Pages are generated on demand from (Seed, host, page), never stored: the
// same Config gives byte-identical pages, and memory does not grow with
// the size of the web. Only the request log grows, one entry per request.
//
// One listener is both an HTTP forward proxy (absolute request-URIs;
// CONNECT, hence https, is refused with 405) and the origin of every
// virtual host (Host header), and also answers control endpoints for any
// other host: see Handler.
//
// # The judge
//
// Every request is logged with the time its handler was entered and the
// time its response was ready. Report walks the log and counts requests
// that break a politeness rule (concurrency per host, gap between request
// starts, robots.txt order and rules), duplicates, and requests outside the
// ground truth, a breadth-first walk of the link graph as a correct
// crawler would see it. URL equivalence is decided by this package's own
// canonicalization (Identity), deliberately not shared with the crawler's.
//
// # Concurrency and ownership
//
// A Web is safe for concurrent use: its configuration never changes after
// New, pages are pure functions of it, and the request log is guarded by a
// mutex. New starts nothing. Serve owns the http.Server it creates and the
// listener it is given, which it closes; when its ctx is done it returns
// once every handler has returned (connections that linger past a short
// grace period are closed by force). The handler from Handler may instead be mounted on a server
// the caller owns; then the caller should call Close before closing that
// server, since a hanging robots.txt otherwise waits for its client to
// give up. Close ends every wait in every handler of the web, now and
// later, by dropping the connection unanswered; it does not close any
// listener or server.
package fakeweb
