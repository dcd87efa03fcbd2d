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
// # robots.txt
//
// Config.Robots gives each host a RobotsKind: a robots.txt that allows
// everything, disallows /private/ (with or without a Crawl-delay), is
// missing (404), fails (500), never answers, uses "*" and "$" patterns
// (RobotsWildcard, with pages under /w/ on both sides of each pattern),
// has groups for godwit that must be merged and a "*" group that must
// not be used (RobotsAgentGroup), redirects to /robots-real.txt
// (RobotsRedirect), or answers 503 a few times before it answers 200
// (RobotsFlaky). Every host whose rules keep godwit out of /private/ has
// /private/N pages and links to them. A flaky robots.txt is the only
// answer of the web that depends on what came before: it counts requests
// per host, and Reset starts the count again.
//
// # Sitemaps
//
// With Config.Sitemaps every host whose robots.txt answers 200 ends it
// with "Sitemap: http://hK.<domain>/sitemap_index.xml". The index lists
// /sitemap-1.xml (application/xml) and /sitemap-2.xml.gz (the gzip-
// compressed file itself, as application/gzip or application/x-gzip,
// with no Content-Encoding). Between them they list, with optional
// lastmod, changefreq and priority, the host's pages (the first 10,000),
// its Config.OrphanPages orphan pages /orphan/N, which no page links to,
// and the URLs robots.txt keeps godwit from (/private/0, and the
// disallowed /w/ paths), which a crawler must still not fetch.
// "/sitemap.xml", which some crawlers try, answers 404.
//
// # Page-level signals
//
// With Config.PageSignals about 3 ordinary pages in 10 (never a home
// page) carry one robots signal: a <meta name="robots"> tag with
// "nofollow", "none" or "noindex", a <meta name="godwit"> tag with
// "noindex, nofollow", a <meta name="otherbot"> tag with "nofollow", or
// an X-Robots-Tag header "nofollow", "godwit: noindex, nofollow",
// "otherbot: nofollow" or "noindex, noarchive". One random <a> or <area>
// link in 8 has rel="nofollow" (also spelled "external nofollow" and
// "NoFollow noopener"). Three pages per host are reached only through
// nofollow: /nofollow/0 by a rel="nofollow" link on the home page,
// /nofollow/1 from every page whose meta tag says nofollow to godwit,
// /nofollow/2 from every page whose X-Robots-Tag does. Four are reached
// only through pages whose signal must not stop godwit: /follow/0 from
// robots noindex meta tags, /follow/1 from otherbot meta tags, /follow/2
// from otherbot X-Robots-Tags, /follow/3 from "noindex, noarchive" ones.
//
// Pages are generated on demand from (Seed, host, page), never stored: the
// same Config gives byte-identical pages, and memory does not grow with
// the size of the web. Only the request log grows, one entry per request.
// Every feature above is opt-in, and without them the web is what it was
// before they existed, byte for byte (testdata/golden.txt pins it).
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
// canonicalization (Identity), and robots.txt by its own RFC 9309 reader
// for the agent "godwit", both deliberately not shared with the crawler's.
//
// The ground truth, exactly: seeds have depth 0; a page at depth d that
// may be fetched gives its links depth d+1, unless d is Judge.MaxDepth;
// a redirect's target has the redirect's depth. A URL is in it only if
// its host's robots.txt lets godwit fetch it and the host is available
// (RobotsServerError and RobotsHang hosts are not; a RobotsFlaky one is).
// A page that is nofollow for godwit (see Page-level signals) gives its
// links nothing, and neither does a rel="nofollow" link. The URLs listed
// in a host's sitemaps are links of depth d+1 where d is the least depth
// of any URL (page or redirect) of that host in the ground truth, not
// followed when d is Judge.MaxDepth: with the default seeds (every home
// page) sitemap URLs have depth 1. Orphan, /nofollow/, /follow/ and /w/
// pages link only to their home page (the /w/ PDFs to nothing). Sitemap
// files and robots.txt files are not pages of the ground truth.
//
// # Concurrency and ownership
//
// A Web is safe for concurrent use: its configuration never changes after
// New, pages are pure functions of it, and the request log and the counts
// of flaky robots.txt requests are guarded by mutexes. New starts nothing. Serve owns the http.Server it creates and the
// listener it is given, which it closes; when its ctx is done it returns
// once every handler has returned (connections that linger past a short
// grace period are closed by force). The handler from Handler may instead be mounted on a server
// the caller owns; then the caller should call Close before closing that
// server, since a hanging robots.txt otherwise waits for its client to
// give up. Close ends every wait in every handler of the web, now and
// later, by dropping the connection unanswered; it does not close any
// listener or server.
package fakeweb
