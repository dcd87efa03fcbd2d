package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// Every flag of every command, its name and its help text, is declared
// here and nowhere else (after CockroachDB's pkg/cli/cliflags), so that
// README's flag table can be checked against it (flags_test.go). A
// command registers a flag with the method of its type, giving the
// variable and the default: flagScope.stringVar(fs, &s.Scope, "domain").
// Flags of one name in several commands share an entry where they mean
// the same (--log-level, --pages) and have one each where not (--data,
// --delay, --json, ...).

// flagInfo is one flag: its name, its one-letter shorthand ("" for none)
// and its help text.
type flagInfo struct{ name, short, help string }

// listing fills the one %s of f's help with a list known at run time
// (the simulated web's presets, its robots.txt variants).
func (f flagInfo) listing(list string) flagInfo {
	f.help = fmt.Sprintf(f.help, list)
	return f
}

func (f flagInfo) stringVar(fs *pflag.FlagSet, p *string, def string) {
	fs.StringVarP(p, f.name, f.short, def, f.help)
}
func (f flagInfo) boolVar(fs *pflag.FlagSet, p *bool, def bool) {
	fs.BoolVarP(p, f.name, f.short, def, f.help)
}
func (f flagInfo) intVar(fs *pflag.FlagSet, p *int, def int) {
	fs.IntVarP(p, f.name, f.short, def, f.help)
}
func (f flagInfo) int64Var(fs *pflag.FlagSet, p *int64, def int64) {
	fs.Int64VarP(p, f.name, f.short, def, f.help)
}
func (f flagInfo) float64Var(fs *pflag.FlagSet, p *float64, def float64) {
	fs.Float64VarP(p, f.name, f.short, def, f.help)
}
func (f flagInfo) durationVar(fs *pflag.FlagSet, p *time.Duration, def time.Duration) {
	fs.DurationVarP(p, f.name, f.short, def, f.help)
}
func (f flagInfo) stringArrayVar(fs *pflag.FlagSet, p *[]string, def []string) {
	fs.StringArrayVarP(p, f.name, f.short, def, f.help)
}
func (f flagInfo) stringSliceVar(fs *pflag.FlagSet, p *[]string, def []string) {
	fs.StringSliceVarP(p, f.name, f.short, def, f.help)
}

// godwit crawl.
var (
	flagConfig          = flagInfo{name: "config", help: "YAML config file (flags override it)"}
	flagSeeds           = flagInfo{name: "seeds", help: "file of seed URLs, one per line, # comments"}
	flagSkipBadSeeds    = flagInfo{name: "skip-bad-seeds", help: "report malformed seed lines and go on with the rest"}
	flagData            = flagInfo{name: "data", help: "directory for state and outputs; a crawl there resumes with its stored settings (flags given override them)"}
	flagFresh           = flagInfo{name: "fresh", help: "delete godwit's files in --data (state, WARC files) and start a new crawl; refused if anything else is there"}
	flagScope           = flagInfo{name: "scope", help: "what to follow: host, domain (registrable domain of the seeds) or any"}
	flagMaxDepth        = flagInfo{name: "max-depth", help: "link hops from a seed (0 = unlimited)"}
	flagMaxPages        = flagInfo{name: "max-pages", help: "stop after this many page fetches (0 = unlimited)"}
	flagDelay           = flagInfo{name: "delay", help: "minimum gap between request starts to one host"}
	flagCrawlDelayCap   = flagInfo{name: "crawl-delay-cap", help: "largest robots.txt Crawl-delay honoured (larger values use the cap)"}
	flagIPConcurrency   = flagInfo{name: "ip-concurrency", help: "most requests in flight to one IP address (IPv6: one /64), over all its hosts (0 = no bound)"}
	flagIPDelay         = flagInfo{name: "ip-delay", help: "minimum gap between request starts to one IP address (IPv6: one /64), over all its hosts (default: a quarter of --delay)"}
	flagWorkers         = flagInfo{name: "workers", help: "concurrent fetches (each to a different host)"}
	flagUserAgent       = flagInfo{name: "user-agent", help: "User-Agent header (the contact is appended if missing)"}
	flagContact         = flagInfo{name: "contact", help: "contact URL or e-mail put in the User-Agent"}
	flagProxy           = flagInfo{name: "proxy", help: "HTTP proxy URL (default: $HTTP_PROXY/$http_proxy, $HTTPS_PROXY, $NO_PROXY); a proxy is trusted"}
	flagAllowPrivate    = flagInfo{name: "allow-private", help: "allow loopback, private, link-local and multicast target addresses"}
	flagTimeout         = flagInfo{name: "timeout", help: "whole-request timeout, body included"}
	flagMaxBody         = flagInfo{name: "max-body", help: "body size cap in bytes (longer bodies are truncated and marked); config key max_body"}
	flagLogLevel        = flagInfo{name: "log-level", help: "debug, info, warn or error"}
	flagAdmin           = flagInfo{name: "admin", help: `admin API and dashboard address, or "off"`}
	flagAdminToken      = flagInfo{name: "admin-token", help: "bearer token the admin API requires (required off loopback; default $GODWIT_ADMIN_TOKEN)"}
	flagMemoryLimit     = flagInfo{name: "memory-limit", help: "soft memory limit of the process, e.g. 256MiB or 2GiB (default: $GOMEMLIMIT, else none)"}
	flagContinuous      = flagInfo{name: "continuous", help: "never finish: revisit fetched pages as their estimated change rate and importance say"}
	flagRevisitShare    = flagInfo{name: "revisit-share", help: "with --continuous, the share of fetch capacity reserved for revisits while discovery has work (0..1)"}
	flagOrder           = flagInfo{name: "order", help: "how each host's queue is served: importance (OPIC) or breadth-first"}
	flagRequisites      = flagInfo{name: "requisites", help: "also fetch what fetched pages need to render (images, stylesheets and what they import, scripts, fonts, media), one embed hop beyond --max-depth"}
	flagRequisitesScope = flagInfo{name: "requisites-scope", help: "where requisites may be: any (any host, e.g. a CDN; exclude rules apply) or pages (the pages' scope)"}
)

// godwit crawl: transport (transport.go).
var (
	flagResolve = flagInfo{name: "resolve", help: "connect to HOST[:PORT] at ADDR[:PORT] instead of its DNS answer (repeatable; IPv6 in brackets; the guard still applies)"}
	flagCACert  = flagInfo{name: "ca-cert", help: "PEM file of extra trusted root certificates, added to the system's"}
	flagHTTP2   = flagInfo{name: "http2", help: "auto: offer HTTP/2 by ALPN and speak it where the server picks it (archived in HTTP/1.1 form, WARC-Protocol: h2); off: HTTP/1.1 only"}
)

// godwit crawl: uploads (store.go).
var (
	flagStore          = flagInfo{name: "store", help: "upload WARC files and their CDXJ indexes to s3://bucket/prefix (credentials: $AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY)"}
	flagStoreEndpoint  = flagInfo{name: "store-endpoint", help: "S3 endpoint URL (default $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else AWS); plain http to loopback only"}
	flagStoreRegion    = flagInfo{name: "store-region", help: "bucket region (default $AWS_REGION, else us-east-1)"}
	flagStorePathStyle = flagInfo{name: "store-path-style", help: "address the bucket as endpoint/bucket (for servers other than AWS that need it)"}
	flagStoreKeepLocal = flagInfo{name: "store-keep-local", help: "keep WARC files in --data after their verified upload (default: delete them)"}
	flagStoreSpoolMax  = flagInfo{name: "store-spool-max", help: `pause the crawl while this much WARC data waits for upload ("0": never)`}
	flagStoreCrawl     = flagInfo{name: "store-crawl", help: "crawl name in object keys warc/CRAWL/NODE/DAY/FILE (default: the base name of --data)"}
)

// godwit crawl: cluster (cluster.go).
var (
	flagCluster               = flagInfo{name: "cluster", help: "join a cluster crawl through these NATS servers (nats://HOST:PORT[,...]; docs/cluster.md)"}
	flagCrawl                 = flagInfo{name: "crawl", help: "with --cluster: the name of the crawl to join or create"}
	flagNode                  = flagInfo{name: "node", help: "with --cluster: this node's ID in the crawl, stable across restarts"}
	flagClusterReplicas       = flagInfo{name: "cluster-replicas", help: "with --cluster: copies of the crawl's streams and buckets (3 on a 3-server NATS cluster)"}
	flagClusterTTL            = flagInfo{name: "cluster-ttl", help: "with --cluster: lease and membership TTL (whole seconds, at least 2s): a dead node's shards move this long after its last renewal"}
	flagClusterSnapshotEvents = flagInfo{name: "cluster-snapshot-events", help: "with --cluster: events of a shard's log between two snapshots of the shard, which cut its log"}
)

// godwit crawl: processors and page events (processors.go).
var (
	flagProcessor         = flagInfo{name: "processor", help: `content processor, repeatable, run in order: "structured" (JSON-LD and OpenGraph) or "exec:CMD ARGS" (JSON Lines over stdin/stdout)`}
	flagProcessorTimeout  = flagInfo{name: "processor-timeout", help: "time one processor may take over one page"}
	flagProcessorInFlight = flagInfo{name: "processor-in-flight", help: "pages in flight to each exec: processor"}
	flagProcessorErrors   = flagInfo{name: "processor-errors", help: `an exec: processor whose answers break the protocol: "skip" (the crawl goes on without it) or "stop" (the crawl stops, exit status 1)`}
	flagEvents            = flagInfo{name: "events", help: `page events: "jsonl:FILE" (one JSON line per archived page, rotated) or "nats://HOST:PORT/SUBJECT" (one message per page in a JetStream stream)`}
	flagEventsMaxSize     = flagInfo{name: "events-max-size", help: "size in bytes past which the events file is rotated"}
)

// godwit crawl: rendering (render.go).
var (
	flagRender           = flagInfo{name: "render", help: "render pages in a headless browser: never, auto (pages that look script-built, learnt per host; needs a browser) or always"}
	flagBrowser          = flagInfo{name: "browser", help: "chromium binary to render with (default: chromium or chromium-browser on PATH)"}
	flagRenderWorkers    = flagInfo{name: "render-workers", help: "pages rendered at once (tabs of the one browser)"}
	flagRenderScreenshot = flagInfo{name: "render-screenshot", help: "archive a PNG screenshot of each rendered page (a resource record)"}
)

// The admin commands: status, seeds add, hosts, pause, resume, recrawl share, urls (cmd_admin.go).
var (
	flagClientAdmin      = flagInfo{name: "admin", help: "address of the crawl's admin server (host:port or http://host:port)"}
	flagClientAdminToken = flagInfo{name: "admin-token", help: "the admin server's token (default $GODWIT_ADMIN_TOKEN)"}
	flagClientJSON       = flagInfo{name: "json", help: "print the API's JSON as is"}
)

// godwit status.
var (
	flagStatusData    = flagInfo{name: "data", help: "a crawl's data directory: show what it says, no running crawl needed"}
	flagStatusCluster = flagInfo{name: "cluster", help: "a cluster crawl's NATS servers (with --crawl): show the crawl across its nodes, no admin API needed"}
	flagStatusCrawl   = flagInfo{name: "crawl", help: "with --cluster: the crawl's name"}
)

// godwit seeds add.
var (
	flagSeedsPriority = flagInfo{name: "priority", help: "queue band of the seeds (0 = first)"}
)

// godwit hosts.
var (
	flagHostsSort  = flagInfo{name: "sort", help: "order: queued, fetched or errors (most first)"}
	flagHostsLimit = flagInfo{name: "limit", help: "hosts to list at most (1 to 1000)"}
	// godwit hosts ips.
	flagIPGroupsLimit = flagInfo{name: "limit", help: "IP groups to list at most, those holding most hosts back first (1 to 1000)"}
)

// godwit hosts policy.
var (
	flagPolicyDelay    = flagInfo{name: "delay", help: "gap between requests to the host"}
	flagPolicyMaxPages = flagInfo{name: "max-pages", help: "pages to fetch from the host at most"}
	flagPolicyClear    = flagInfo{name: "clear", help: "remove the override"}
	flagPolicyForce    = flagInfo{name: "force", help: "allow a --delay below the crawl's own --delay"}
)

// godwit demo.
var (
	flagDemoData    = flagInfo{name: "data", help: "keep the demo's WARC files here (default: a temporary directory, removed)"}
	flagDemoDelay   = flagInfo{name: "delay", help: "minimum gap between requests to one host"}
	flagDemoHosts   = flagInfo{name: "hosts", help: "virtual hosts in the simulated web"}
	flagDemoWorkers = flagInfo{name: "workers", help: "concurrent fetches"}
)

// godwit export pages, godwit export wacz.
var (
	flagExportData = flagInfo{name: "data", help: "the crawl's data directory (when no WARC files are given)"}
	flagWACZOutput = flagInfo{name: "output", short: "o", help: "the WACZ file to write (replaced whole, or not at all)"}
	flagWACZTitle  = flagInfo{name: "title", help: "the collection's title (default: the file's base name)"}
)

// godwit replay.
var (
	flagReplayData      = flagInfo{name: "data", help: "the crawl's data directory (when no WACZ file is given)"}
	flagReplayListen    = flagInfo{name: "listen", help: "the address to serve the replay on"}
	flagReplayReplayweb = flagInfo{name: "replayweb", help: "the directory of the replaywebpage npm package (ui.js, sw.js); default: load it from the CDN"}
	flagReplayURL       = flagInfo{name: "url", help: "the archived page to open (default: the archive's page list)"}
)

// godwit nats.
var (
	flagNATSListen        = flagInfo{name: "listen", help: "client address (port 0 picks a free port)"}
	flagNATSData          = flagInfo{name: "data", help: "directory of JetStream's file store (required)"}
	flagNATSName          = flagInfo{name: "name", help: "server name: required with --cluster-listen, unique in the cluster and stable across restarts"}
	flagNATSClusterName   = flagInfo{name: "cluster-name", help: "cluster name, the same on every server"}
	flagNATSClusterListen = flagInfo{name: "cluster-listen", help: "address to listen on for the other servers' routes (enables clustering)"}
	flagNATSRoutes        = flagInfo{name: "routes", help: "comma-separated cluster addresses of the servers (nats://host:port); listing this server too is fine"}
)

// godwit robots check.
var (
	flagRobotsFile    = flagInfo{name: "file", short: "f", help: `the robots.txt file to check against ("-": standard input)`}
	flagRobotsAgent   = flagInfo{name: "agent", help: "the product token whose rules apply (user-agent lines are matched case-insensitively)"}
	flagRobotsVerbose = flagInfo{name: "verbose", short: "v", help: "also print the rule that decided, its line and its group"}
)

// godwit url normalize.
var (
	flagURLSURT   = flagInfo{name: "surt", help: "print the SURT form (the CDXJ lookup key) instead of the crawl key"}
	flagURLConfig = flagInfo{name: "config", help: "YAML config file whose url: settings (strip_params, session_params, keep_query_order) apply"}
)

// godwit warc cat.
var (
	flagCatRecord = flagInfo{name: "record", help: "the record's number, counting from 1 as `godwit warc ls` does"}
	flagCatURL    = flagInfo{name: "url", help: "the target URI of the response or resource record to write"}
	flagCatDecode = flagInfo{name: "decode", help: "undo the Content-Encoding (gzip, deflate, br, zstd)"}
	flagCatBlock  = flagInfo{name: "block", help: "write the whole record block as stored"}
)

// godwit warc verify.
var (
	flagVerifyJSON             = flagInfo{name: "json", help: `print one JSON object: files, records, faults, warnings and "problems"`}
	flagVerifyExternalRevisits = flagInfo{name: "external-revisits", help: "a revisit whose original is not in the files given is a warning, not a fault"}
)

// godwit warc cdx.
var (
	flagCDXOutput = flagInfo{name: "output", short: "o", help: "write one index of all files to `OUT` (- for standard output)"}
)

// godwit fakeweb.
var (
	flagWebListen     = flagInfo{name: "listen", help: "address to listen on (port 0 picks a free port)"}
	flagWebSeedsOut   = flagInfo{name: "seeds-out", help: "write the seed URLs to this file"}
	flagWebShape      = flagInfo{name: "shape", help: `serve a Shapes web instead (20 hosts unless --hosts): "aliases" (home and section pages also linked as index.html; on h1 every index.html differs), "aliases-tokens" (the same, every page carrying a token new on every request), "aliases-www" (every host also answering under its www. name, pages linking both names; on h2 the www name is another site, on h3 the bare name redirects to it) or "traps" (an endless trap on every host: session chains, calendars, ever-longer searches, repeating paths; 500 pages of pagination on h0); its report counts alias fetches per host, trap requests and coverage`}
	flagWebPreset     = flagInfo{name: "preset", help: "start from a named shape of web (%s); other flags given override it"}
	flagWebDirect     = flagInfo{name: "direct", help: "also serve the hosts directly (as an origin, not a proxy) on these loopback addresses, e.g. 127.0.0.2,127.0.0.3,127.0.0.4; prints the --resolve lines that spread the hosts over them"}
	flagWebDirectPort = flagInfo{name: "direct-port", help: "with --direct, the port on every address (0: a free one each)"}
	flagWebCAOut      = flagInfo{name: "ca-out", help: "with --https, write the CA certificate (PEM) here for the crawler's --ca-cert (default: a file in the temporary directory)"}
	flagWebConfigOut  = flagInfo{name: "config-out", help: "with --direct, write a godwit config file (resolve, ca_cert, allow_private) for godwit crawl --config"}
)

// godwit fakeweb: the simulated web.
var (
	flagWebHosts             = flagInfo{name: "hosts", help: "number of virtual hosts (h0.<domain> …)"}
	flagWebDomain            = flagInfo{name: "domain", help: "domain the virtual hosts live under"}
	flagWebPages             = flagInfo{name: "pages", help: "pages per host"}
	flagWebLinks             = flagInfo{name: "links", help: "links per page"}
	flagWebPageSize          = flagInfo{name: "page-size", help: "approximate page size in bytes"}
	flagWebCrossHost         = flagInfo{name: "cross-host", help: "share of links to other hosts"}
	flagWebRedirects         = flagInfo{name: "redirects", help: "share of links that go through a 301"}
	flagWebCrawlDelay        = flagInfo{name: "crawl-delay", help: "Crawl-delay advertised by crawl-delay hosts"}
	flagWebLatency           = flagInfo{name: "latency", help: "added latency per response"}
	flagWebSeed              = flagInfo{name: "seed", help: "PRNG seed: the same seed gives the same web"}
	flagWebSitemaps          = flagInfo{name: "sitemaps", help: "robots.txt lists a sitemap index (one gzip child) that also lists pages nothing links to"}
	flagWebRequisites        = flagInfo{name: "requisites", help: "pages embed stylesheets (with @import and url()), images (also srcset), scripts, an icon and a font, some on the next host (its CDN)"}
	flagWebSPA               = flagInfo{name: "spa", help: "some hosts are single-page applications: empty shells whose script builds text and links from JSON (on even pages partly only when scrolled) and asks /api/track, which robots.txt disallows; not with --traps, --page-signals, --hostile, --duplicates, --changing or --requisites"}
	flagWebSPAShare          = flagInfo{name: "spa-share", help: "with --spa, the share of hosts that are SPAs, picked evenly from h0 (0: every host)"}
	flagWebPageSignals       = flagInfo{name: "page-signals", help: "some pages carry meta robots, X-Robots-Tag and rel=nofollow; some pages are reachable only through nofollow"}
	flagWebHostile           = flagInfo{name: "hostile", help: "hostile hosts link to slow, hanging, dripping, 20 MB, gzip/zstd-bomb, 429/503, redirect-loop, error, non-HTML, legacy-charset and malformed resources; one storm host answers 503 for a while"}
	flagWebHostileEvery      = flagInfo{name: "hostile-every", help: "with --hostile, host i is hostile when i % N == 0 (0: every host)"}
	flagWebHostileSlow       = flagInfo{name: "hostile-slow", help: "with --hostile, how long /x/slow takes (0: 1.5s)"}
	flagWebHostileRetryAfter = flagInfo{name: "hostile-retry-after", help: "with --hostile, the Retry-After of the retry pages, whole seconds (0: 2s)"}
	flagWebHostileStormHost  = flagInfo{name: "hostile-storm-host", help: "with --hostile, index of the storm host (0: the last host; negative: none)"}
	flagWebHostileStorm      = flagInfo{name: "hostile-storm", help: "with --hostile, how long the storm host answers 503 (0: 3s)"}
	flagWebDuplicates        = flagInfo{name: "duplicates", help: "every host links to exact duplicates (/d/exact/N, also across hosts; one gzip-encoded, one chunked), near-duplicate clusters (/d/near/C/M) and distinct articles (/d/distinct/K) in one template"}
	flagWebConditionalRobots = flagInfo{name: "conditional-robots", help: "robots.txt answers carry ETag and Last-Modified and answer 304 to a matching If-None-Match or If-Modified-Since"}
	flagWebChanging          = flagInfo{name: "changing", help: "every host links to pages /c/N that change over time (Poisson, some every few seconds, some every few minutes, some never), answer conditional requests and carry sitemap lastmod; ordinary pages get validators too"}
	flagWebChangingFast      = flagInfo{name: "changing-fast", help: "with --changing, fast-changing pages per host (0: 4; negative: none)"}
	flagWebChangingSlow      = flagInfo{name: "changing-slow", help: "with --changing, slow-changing pages per host (0: 4; negative: none)"}
	flagWebChangingStatic    = flagInfo{name: "changing-static", help: "with --changing, never-changing pages per host (0: 2; negative: none)"}
	flagWebChangingFastMean  = flagInfo{name: "changing-fast-mean", help: "with --changing, mean time between changes of a fast page (0: 3s)"}
	flagWebChangingPeriodic  = flagInfo{name: "changing-periodic", help: "with --changing, pages change periodically and together (every fast page exactly every --changing-fast-mean from the start, every slow one every --changing-slow-mean) instead of as Poisson processes"}
	flagWebChangingSlowMean  = flagInfo{name: "changing-slow-mean", help: "with --changing, mean time between changes of a slow page (0: 2m)"}
	flagWebSkewedGraph       = flagInfo{name: "skewed-graph", help: "random links pick their targets by a Zipf law over a random ranking of pages: a few pages have very many in-links, most one or two"}
	flagWebSkewExponent      = flagInfo{name: "skew-exponent", help: "with --skewed-graph, the Zipf exponent (0: 1.2)"}
	flagWebTreeFanout        = flagInfo{name: "tree-fanout", help: "children of each page in the tree that keeps every page reachable, like navigation pages (0: 2)"}
	flagWebHTTPS             = flagInfo{name: "https", help: "the web's URLs are https:// and --direct serves TLS (h2 and http/1.1 by ALPN) with certificates from a CA made at start (--ca-out)"}
	flagWebBadTLS            = flagInfo{name: "bad-tls", help: "with --https, hosts with a bad certificate, as INDEX=KIND,… (KIND expired, wrong-name or unknown-ca; e.g. 1=expired,3=wrong-name)"}
	flagWebRobots            = flagInfo{name: "robots", help: "comma-separated robots.txt variants, cycled over the hosts: %s"}
)
