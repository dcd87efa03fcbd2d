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
// Preset names shapes of web shared by benchmarks and demos ("throughput":
// the whole-crawl benchmark's 200 hosts × 50 pages of ~15 KB).
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
// With Config.ConditionalRobots every robots.txt answered 200 (at
// /robots-real.txt for RobotsRedirect, once recovered for RobotsFlaky)
// carries an ETag and a Last-Modified, and a request for it is answered
// 304 with no body exactly as a page of a hostile host is (see Hostile
// web): a crawler that asks again after its cache expires, with the
// validators it kept, gets 304s. Report.RobotsConditional and
// RobotsNotModified count those requests and answers (they are also in
// ConditionalRequests and NotModified), and a 304 makes the host's rules
// known to the judge as a 200 does.
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
// # Page requisites
//
// With Config.Requisites every ordinary page (not a /private/ page, nor
// a page of a trap or a feature) embeds what a browser needs to render
// it: in <head>, <link rel="stylesheet" href="/a/site.css">, <link
// rel="icon" href="/a/icon.png">, <script src="/a/app.js"> and <script
// src="http://h(i+1).<domain>/a/lib.js"> (the next host, modulo Hosts, is
// host i's CDN); after its <h1>, <img src="/a/i/N.png"
// srcset="/a/i/N-2x.png 2x"> for page N. site.css (text/css) @imports
// /a/base.css and names /a/bg.png and the CDN's /a/font.woff2 in url()
// (and, in a comment, a URL that is none); base.css colours the <h1>
// rgb(1, 2, 3) and names img/h1.png, relative to itself. The home page of a host whose robots.txt disallows
// /private/ also embeds /private/logo.png, which godwit must not fetch.
// Every host serves every /a/ path; the images are valid 2×2 PNGs, so
// that a replay of the archive in a browser can be checked. A page's requisites are thus 10: 6 on its host and shared
// by its pages, 2 of its own, 2 on the CDN; their chain is at most three
// embed hops deep (page → site.css → base.css → h1.png).
//
// The judge counts requisite requests apart (Report.RequisiteRequests;
// not PageRequests, never in the ground truth or OutOfTruth) and holds
// them to every rule of politeness and robots.txt
// (Report.RequisiteViolations), and to fetch-once
// (Report.RequisiteDuplicates). Report.Requisites is the number of
// distinct requisites the pages answered need, on available hosts and
// allowed by their robots.txt; RequisitesFetched those answered 200;
// RequisitesUnneeded the requisites fetched that no page answered needs.
// With Requisites off the web is exactly what it was before, byte for
// byte.
//
// # Hostile web
//
// With Config.Hostile, hostile hosts (host i when i%HostileConfig.Every
// == 0; every host by default) carry the resources below, all on the host
// itself, under /x/. The home page of a hostile host links to each one
// marked (home) with a plain root-relative <a href>; the others are
// reached through them. Report.Hostile counts the requests for each, by
// the name in brackets. What is a page is in the ground truth (reached
// from the home page, one level per link, a redirect's target at the
// redirect's depth); what is not a page but linked is fetched by a
// correct crawl without being out of it.
//
//   - /x/slow [slow] (home): a page answered after HostileConfig.SlowDelay
//     (1.5s), linking to the page /x/slow-next [slow-next].
//   - /x/hang [hang] (home): never answers, until the client goes away or
//     the web is closed; then the connection is dropped. Not a page. The
//     judge takes the request to end 100ms before the server saw the
//     client go away, since the client may have moved on by then.
//   - /x/drip [drip] (home): 200 text/html with no Content-Length at
//     once, then "tide " every DripInterval (100ms) for DripFor (60s)
//     or until the client goes away. Not a page. Its request is logged
//     as answered (200) when the headers go out, but like a request never
//     answered it does not make a retry a duplicate.
//   - /x/big [big] (home): a page of exactly 20,000,000 bytes of
//     text/html, streamed, whose first KB links to the page /x/big-next
//     [big-next]; past 10 MiB it links to /x/big-tail [big-tail], which
//     answers 200 but is not in the ground truth.
//   - /x/bomb.html.gz [gzip-bomb] and /x/bomb.html.zst [zstd-bomb] (home):
//     200 text/html with Content-Encoding gzip or zstd, whatever the
//     request's Accept-Encoding, about 1 MB (gzip) or 40 KB (zstd) that
//     decompress to about 1 GiB: the start of a page, then spaces. They
//     are concatenated gzip members or zstd frames, compressed once per
//     Web on first use. Not pages.
//   - /x/retry/429 [retry-429], /x/retry/503 [retry-503-date],
//     /x/retry/429-bare [retry-429-bare], /x/retry/503-bare
//     [retry-503-bare] (home): pages that answer the first
//     HostileConfig.RetryFailures (1) requests of each host with 429 and
//     "Retry-After: <seconds>" (RetryAfter, 2s), 503 and Retry-After as an
//     HTTP-date (rounded up to the second), 429 without Retry-After and
//     503 without Retry-After, then 200.
//   - /x/chain/0 [chain-301] (home) answers 301 to /x/chain/1
//     [chain-302], which answers 302 to "/x/chain/2" (root-relative)
//     [chain-308], which answers 308 to the page /x/chain/end [chain-end].
//   - /x/loop/a [loop-a] (home) answers 302 to /x/loop/b [loop-b], which
//     answers 302 back; /x/loop/self [loop-self] (home) answers 301 to
//     itself. Fetching each once is fine; again is a duplicate.
//   - /x/cross [cross-host] (home) answers 301 to the page /x/landing
//     [landing] of the next host, h(i+1) (h0 after the last), which has
//     that page whether hostile or not.
//   - /x/relative [relative] (home) answers 307 with "Location:
//     relative-end", the page /x/relative-end [relative-end].
//   - /x/status/404 [status-404], /x/status/410 [status-410] and
//     /x/status/500 [status-500] (home) always answer so. Not pages.
//   - /x/files/report.pdf [pdf], /x/files/image.png [png],
//     /x/files/data.json [json] and /x/files/notes.txt [text] (home):
//     files that are not HTML. The URLs written in them
//     ("http://h0.<domain>/never-follow-me", /x/never-follow-...) are not
//     links: they answer 404 and are out of the ground truth. Not pages.
//   - /x/files/untyped [untyped] (home): a page of HTML sent with no
//     Content-Type header at all, linking to the page /x/sniffed
//     [sniffed]: a crawler must sniff it.
//   - /x/cs/latin1-http, /x/cs/latin1-meta, /x/cs/sjis-http and
//     /x/cs/sjis-meta [charset-<name>] (home): pages in windows-1252
//     (labelled ISO-8859-1) and Shift_JIS, the charset declared by the
//     Content-Type header only (-http) or by <meta charset> (latin1-meta)
//     or <meta http-equiv="Content-Type"> (sjis-meta) only. Each links to
//     two pages: /x/cs/<name>/<word> [charset-<name>-path], a non-ASCII
//     word in the path, and /x/cs/<name>/q?q=<word>
//     [charset-<name>-query], one in the query, written in the page's
//     charset. As the WHATWG URL standard resolves them, the path is
//     percent-encoded UTF-8 ("/x/cs/latin1-http/caf%C3%A9") and the query
//     percent-encoded in the page's charset ("q=cr%E8me"); the server
//     answers 200 there only (comparing the percent-decoded bytes of the
//     query) and 404 at any other spelling. Report.CharsetLinks and
//     CharsetLinksFetched count these pages.
//   - /x/malformed [malformed] (home): tag soup (unclosed tags, unquoted
//     attributes, an attribute split across lines, a NUL byte, a stray
//     </html>, an unterminated comment at the end) linking to the pages
//     /x/mal/0..2 [malformed-0..2] before the comment, in which a link
//     to /x/never-follow-comment hides.
//
// The ordinary pages ("/" and /p/N) of a hostile host carry an ETag and a
// Last-Modified, and answer 304 with no body to a request
// whose If-None-Match matches (weak comparison, "*" matches) or, without
// If-None-Match, whose If-Modified-Since is not earlier than
// Last-Modified (RFC 9110 section 13.2.2). Report counts conditional
// requests and 304 answers; a 304 covers a page like a 200.
//
// The storm host (HostileConfig.StormHost, the last host by default,
// hostile or not) answers 503 to every request but robots.txt for
// StormFor (3s) from its first request of any kind, then recovers;
// the 503s carry Retry-After only with StormRetryAfter. Report.Hostile
// counts them under "storm".
//
// The judge holds a crawler to every Retry-After the web sends: no
// request to that host, robots.txt included, may start before the time
// it names (ViolationRetryAfter). A request answered 429 or 5xx, like
// one never answered, does not make a later one a duplicate. Retry pages,
// storm answers and the first request of each host are the history the
// hostile web keeps; Reset starts it again.
//
// # Duplicate content
//
// With Config.Duplicates every host has 21 more pages of the ground truth
// under /d/, all linked from its home page with plain root-relative
// <a href>s, all in one article template (the same header, navigation,
// "Related reading" list, advertisement and footer), each article of
// 500 to 700 words drawn from Seed out of a built-in vocabulary (550 to
// 720 words of visible text with the template's), and each page linking
// to its home page and to three /d/distinct/ pages:
//
//   - /d/exact/0, /d/exact/1 and /d/exact/2: one article, the same on
//     every host, byte for byte (over 4 KiB of text/html; utf-8): exact
//     duplicates within a host and across hosts. /d/exact/0 is sent with
//     a Content-Length; /d/exact/1 with "Content-Encoding: gzip" whatever
//     the request's Accept-Encoding, the same compressed bytes every time
//     (a gzip header with no name and no time), so its HTTP body differs
//     from the others but decodes to theirs; /d/exact/2 chunked, with no
//     Content-Length.
//   - /d/near/C/M (C = 0..2, M = 0..3): three clusters per host of four
//     near-duplicates. The members of a cluster are one article with
//     small edits: member M's date line, two to four words substituted
//     (none for member 0), its own related reading and advertisement; of
//     the word 3-shingles of their visible text, two members share 85% to
//     94% (Jaccard similarity), and differ in a few percent of words.
//   - /d/distinct/K (K = 0..5): unrelated articles in the same template,
//     to catch a near-duplicate detector that mistakes boilerplate for
//     content: any two pages of different clusters share at most about
//     3% of their 3-shingles.
//
// ContentLabels labels each of these pages with its kind and its
// cluster, so that a test can measure the precision and recall of a
// crawler's deduplication from what the crawler kept, and
// Report.ContentDuplicates counts the requests for them by kind.
//
// # Single-page applications
//
// With Config.SPA the hosts SPAShare picks (evenly, host 0 first; every
// host by default) are single-page applications. Their ordinary pages
// ("/" and /p/N) are empty shells: a title "Loading", a <noscript>
// asking for JavaScript, <div id="root" data-api="/api/page/N.json">
// and <script src="/spa/app.js">, no text and no links. The script asks
// /api/track (answered 204), which the robots.txt of every host then
// disallows in every group, then the page's JSON, from which it builds
// the title, a line of text and the page's links as <a href>s with
// absolute URLs: the same targets as the page of a static host. On the
// even pages (the home page included) the JSON gives only some links
// (the first child in the tree of pages and half the others) and names
// /api/more/N.json, which the script fetches for the rest only once a
// sentinel below a 3000px spacer scrolls into view (an
// IntersectionObserver). The ground truth is that of the static web: a
// correct crawl renders the shells and scrolls them.
// Report.SPARequests counts the script and JSON requests (held to every
// rule of politeness and robots.txt like any other), SPATrackRequests
// those for /api/track (DisallowedRequests too), RenderedOnly and
// ScrollOnly the pages of the truth that only script-built links, or
// only links built when scrolled, reach (and those covered), and Unmade
// the requests no page could have made: for URLs the web does not have
// (/favicon.ico among them: no page names an icon) or hosts it does not
// have, and for a JSON before its shell (or, for /api/more/N.json,
// before /api/page/N.json) or the script or /api/track before any shell
// of the host was requested. SPA cannot be combined with Traps,
// PageSignals, Hostile, Duplicates, Changing or Requisites.
//
// # Changing pages
//
// With Config.Changing every host has pages /c/0../c/{K-1}, linked from
// its home page with plain root-relative <a href>s and listed in its
// sitemaps, that change over time (ChangingConfig): the first Fast pages
// often (mean time between changes FastMean, 3s), the next Slow rarely
// (SlowMean, 2m), the last Static never (4, 4 and 2 pages by default).
// Each page's own mean is its class's times a factor between 1/2 and 2
// drawn from Seed (ChangeMean), and its changes are the events of a
// Poisson process of that mean, drawn from Seed and starting at
// ChangingConfig.Start (by default the time New runs). With
// ChangingConfig.Periodic the changes are instead periodic and
// synchronized: every fast page changes at exactly Start + k×FastMean,
// every slow one at Start + k×SlowMean, all at the same instants (pages
// that change together, as a site rebuilt by a cron job). Its version at
// time t is the number of changes in (Start, t] (Version). Time is
// Config.Now, which also stamps the request log, so a test can drive the
// web with a clock of its own.
//
// A changing page is a small page naming its version and linking to its
// home page. Its ETag names host, page and version (so two versions of
// one second differ); its Last-Modified is the time its version began,
// to the second. It answers 304 to an If-None-Match that matches (weak
// comparison, "*" matches) or, without If-None-Match, to an
// If-Modified-Since not earlier than Last-Modified, unless the previous
// version began in the same second, when If-Modified-Since cannot tell
// the two apart and the answer is 200. With Changing the ordinary pages
// ("/" and /p/N) of every host carry the validators of a hostile host's
// pages (see Hostile web) and never change. In the sitemaps a changing
// page's lastmod is the time its current version began (to the second)
// and its changefreq the protocol's word nearest its mean ("always"
// below an hour, ..., "never" for a static page).
//
// The judge measures freshness (Report.Freshness): for each changing
// page, the share of a window during which the version the crawler
// fetched last (answered 200, or 304 while current; from the End of the
// request) was the current one. The window is Judge.FreshnessFrom to
// Judge.FreshnessTo, by default each page's first fetch to the time of
// the report. Report.Current counts the pages of a changing class whose
// version held at the end of the window was current then, and
// Report.CollectionCurrent is the share of all the truth's pages current
// then (a page that never changes is, once fetched): what a crawler's
// own estimate of its collection's freshness is to be compared with.
// Report also counts the requests for changing pages, the
// conditional ones and the 304s, and the revisits of pages unchanged
// since the crawler's last fetch, conditional or answered 304. A
// continuous crawl fetches pages again; Judge.Revisits keeps that from
// counting as duplicates.
//
// # The skewed graph
//
// With Config.SkewedGraph the random links of ordinary pages, to their
// host, to other hosts (but the quarter that go to home pages) and
// through /r/N, pick the page they point to by popularity: each host
// ranks its pages by a permutation drawn from Seed, and a link goes to
// the page of rank k with probability proportional to
// 1/(k+1)^SkewExponent (1.2 by default). A few pages are linked from a
// great many pages, most only from their parent in the tree of pages 2i+1
// and 2i+2, so every page stays reachable from its home page. InDegree
// gives the in-degree of any ordinary page (distinct ordinary pages
// linking to it, directly or through /r/N), with or without the feature.
// The judge lists the in-degree of the ordinary pages in the order the
// crawler first fetched them (Report.FetchOrderInDegree) and compares the
// mean of the first tenth with the mean of as many pages in the
// breadth-first order of the ground truth (BFSMeanInDegreeFirst10Pct).
//
// Pages are generated on demand from (Seed, host, page), never stored: the
// same Config gives byte-identical pages (at the same time, for changing
// pages and the sitemaps that list them), and memory does not grow with
// the size of the web. Only the request log grows, one entry per request,
// and the change times drawn so far, one per change of a page asked for;
// the skewed graph keeps its ranking and InDegree its table, 4 bytes per
// ordinary page each.
// Every feature above is opt-in, and without them the web is what it was
// before they existed, byte for byte (testdata/golden.txt pins it). The
// hostile web's streamed bodies are written piece by piece, never held;
// its one cache is the compressed bombs, about 1 MB per Web.
//
// One listener is both an HTTP forward proxy (absolute request-URIs;
// CONNECT, hence https, is refused with 405) and the origin of every
// virtual host (Host header), and also answers control endpoints for any
// other host: see Handler.
//
// For a crawl without the proxy, ServeTLS serves the same handler over
// TLS, as an origin only, with certificates from a CA made at run time
// (NewCA; no key is ever checked in; CertPEM is what the crawler trusts,
// godwit --ca-cert), HTTP/2 included when the client offers it by ALPN.
// Listeners on several loopback addresses (Linux routes all of
// 127.0.0.0/8) give a web whose hosts share addresses; the crawler maps
// the names to them (godwit --resolve). With Config.HTTPS every absolute
// URL the web writes is https://, and only https:// URLs are its pages.
// Config.BadTLS gives some hosts a bad certificate (expired, for another
// name, or from an unknown CA) when served with Web.TLSConfig: a crawler
// that verifies certificates gets nothing from them, and their pages are
// not in the ground truth.
//
// # The judge
//
// Every request is logged with the time its handler was entered (Start)
// and the time its response was ready (End). A request that came directly
// to Serve or ServeTLS on Linux also carries the time the kernel received
// it (Arrived): each accepted connection has SO_TIMESTAMPNS set and is
// read with recvmsg below TLS, and a request's time is the receive time
// of the read that brought the end of its header block (over HTTP/2 an
// h2Tap follows the frames to find its HEADERS; HTTP/2 is served by
// golang.org/x/net/http2 for that). Handler entry lags the wire by the
// server's own scheduling, tens of milliseconds on a loaded machine, and
// can even reorder requests; the kernel's time does not. The judge times
// each request by Arrived where it has one, Start otherwise
// (Request.At), and walks the requests in that order; End is not
// changed (taken before the first byte of the answer is written, it is
// never later than the client could know the answer ended). Proxy
// requests, other systems, listeners that are not TCP, a web with
// Config.Now and the handler mounted on a server of the caller's have no
// Arrived and are judged by Start, as before.
//
// Report walks the log and counts requests
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
// pages link only to their home page (the /w/ PDFs to nothing), /d/
// pages to their home page and three /d/distinct/ pages, /c/ pages to
// their home page. Sitemap
// files and robots.txt files are not pages of the ground truth.
//
// # Shapes
//
// Shapes is a second, smaller web for two shapes the main web does not
// have (see Shapes and ShapesConfig): URL aliases (the home and section
// pages also linked as index.html, identical bytes, but on one host
// where every index.html is a page of its own; with Tokens, every page
// also carries a token new on every request; with WWW, every host also
// answers under its www. name and pages link both names, but for one
// host whose www. name is another site and one whose bare name
// redirects) and traps that never end
// (session chains whose pages link only the next two, calendars,
// ever-longer searches, repeating paths, beside 500 pages of genuine
// pagination). Its own judge, Shapes.Report, counts alias fetches per
// host (a page answered again under another spelling), www fetches (a
// page answered again under the host's other name), trap requests
// against all requests, and coverage of the pages outside traps and of
// the pagination. It serves the same control endpoints as a Web, and
// its request log is guarded by a mutex.
//
// # Concurrency and ownership
//
// A Web is safe for concurrent use: its configuration never changes after
// New, pages are pure functions of it, and the request log the counts
// of flaky robots.txt requests, the history of the hostile web and the
// change times of the changing pages drawn so far are guarded by
// mutexes, and the in-degree table is computed once, on first use. New starts nothing. Serve owns the http.Server it creates and the
// listener it is given, which it closes; when its ctx is done it returns
// once every handler has returned (connections that linger past a short
// grace period are closed by force). The handler from Handler may instead be mounted on a server
// the caller owns; then the caller should call Close before closing that
// server, since a hanging robots.txt otherwise waits for its client to
// give up. Close ends every wait in every handler of the web, now and
// later, by dropping the connection unanswered, and fails every write of
// the hostile web's streams (a drip, a big page, a bomb) even to a client
// that stopped reading; it does not close any listener or server.
package fakeweb
