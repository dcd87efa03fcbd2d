package admin

import (
	"context"
	"errors"
	"time"
)

// Backend is the running crawl as the admin API sees it. cmd/godwit
// implements it over the crawler, the frontier and the archive; tests use
// a fake. Methods are safe for concurrent use.
type Backend interface {
	// Status is a snapshot of the whole crawl.
	Status() Status
	// AddSeeds queues urls as seeds (priority: a queue band, 0 = first)
	// and says why the others were not queued.
	AddSeeds(ctx context.Context, urls []string, priority int) (SeedsResult, error)
	// Hosts lists hosts sorted by "queued", "fetched" or "errors"
	// (descending), at most limit of them.
	Hosts(ctx context.Context, sort string, limit int) ([]Host, error)
	// Host returns one host; ErrNotFound when the crawl never saw it.
	Host(ctx context.Context, name string) (Host, error)
	// SetHostPolicy overrides a host's politeness; ClearHostPolicy
	// removes the override. Both are durable.
	SetHostPolicy(ctx context.Context, host string, p HostPolicy) error
	ClearHostPolicy(ctx context.Context, host string) error
	// Block stops all requests to a host (its URLs stay queued); Unblock
	// lets them go again. Both are durable.
	Block(ctx context.Context, host string) error
	Unblock(ctx context.Context, host string) error
	// URL returns the record of one URL; ErrNotFound when never seen.
	URL(ctx context.Context, rawURL string) (URLInfo, error)
	// Pause stops handing out new fetches (in-flight ones finish);
	// Resume starts again.
	Pause()
	Resume()
	// SetRevisitShare sets the share of fetch capacity reserved for
	// revisits while discovery has work (0 to 1). Durable. ErrInvalid
	// when the share is out of range or the crawl does not recrawl.
	SetRevisitShare(ctx context.Context, share float64) error
}

// Errors a Backend returns that map to HTTP statuses: ErrNotFound → 404,
// ErrInvalid → 400. Others are 500.
var (
	ErrNotFound = errors.New("not found")
	ErrInvalid  = errors.New("invalid")
)

// Status is GET /api/status.
type Status struct {
	Paused bool `json:"paused"`
	// UptimeSeconds is the age of this run of the crawl.
	UptimeSeconds float64 `json:"uptime_seconds"`
	// PagesFetched counts page responses (any status but a redirect's);
	// robots.txt, sitemaps and redirects are counted on their own, as in
	// the crawl's summary and /metrics.
	PagesFetched   int64 `json:"pages_fetched"`
	RobotsFetches  int64 `json:"robots_fetches"`
	SitemapFetches int64 `json:"sitemap_fetches"`
	Redirects      int64 `json:"redirects"`
	// PagesPerSecond1m and 10m are averages over the last 1 and 10
	// minutes (over the uptime while it is shorter).
	PagesPerSecond1m  float64    `json:"pages_per_second_1m"`
	PagesPerSecond10m float64    `json:"pages_per_second_10m"`
	QueueDepth        int64      `json:"queue_depth"`
	InFlight          int64      `json:"in_flight"`
	Hosts             HostCounts `json:"hosts"`
	// Errors counts failed URLs by class: "transient", "permanent",
	// "policy"; ErrorRate is errors (transient + permanent) per fetch over
	// the whole crawl.
	Errors    map[string]int64 `json:"errors"`
	ErrorRate float64          `json:"error_rate"`
	// TLSErrors counts failed requests whose TLS failed, by kind:
	// "unknown-authority", "expired", "name-mismatch",
	// "invalid-certificate", "handshake-timeout", "protocol" (only kinds
	// seen; absent when none). They are also counted in Errors.
	TLSErrors map[string]int64 `json:"tls_errors,omitempty"`
	Dedup     DedupCounts      `json:"dedup"`
	WARCBytes int64            `json:"warc_bytes"`
	// Rate is pages fetched per 10-second interval over the last 10
	// minutes, oldest first: the dashboard's chart.
	Rate []RatePoint `json:"rate"`
	// TopHosts are the hosts with the most requests in the last 10
	// minutes, most first (at most 10): the first sign of a politeness
	// problem.
	TopHosts []HostRequests `json:"top_hosts"`
	// Recrawl describes revisiting; nil when the crawl does not recrawl.
	Recrawl *RecrawlStatus `json:"recrawl,omitempty"`
	// Processors are the content processors, in the order they run;
	// absent without any.
	Processors []ProcessorStatus `json:"processors,omitempty"`
}

// ProcessorStatus is one content processor in Status.
type ProcessorStatus struct {
	Name string `json:"name"`
	// Broken: its answers broke the protocol and pages go on without it
	// (until a probe page is answered); Why says how, in words.
	Broken bool   `json:"broken"`
	Why    string `json:"why,omitempty"`
	// Skipped counts the pages that went on without it, broken.
	Skipped int64 `json:"skipped"`
}

// RecrawlStatus is Status.Recrawl: how revisits keep the collection
// fresh. Counters are of this process (since it started).
type RecrawlStatus struct {
	Enabled bool   `json:"enabled"`
	Policy  string `json:"policy"` // "optimal" or "uniform"
	// Share is the configured share of fetch capacity reserved for
	// revisits while discovery has work (PUT /api/recrawl);
	// RevisitShare the measured share of recent fetches that were
	// revisits.
	Share        float64 `json:"share"`
	RevisitShare float64 `json:"revisit_share"`
	// Scheduled counts URLs with a next visit; DueBacklog those due by
	// now (or queued as revisits, waiting for their host); LagSeconds is
	// how overdue the oldest of them is.
	Scheduled  int64   `json:"scheduled"`
	DueBacklog int64   `json:"due_backlog"`
	LagSeconds float64 `json:"lag_seconds"`
	// CapacityPerSecond is the estimated fetch capacity, BudgetPerSecond
	// the part of it revisits are scheduled to use, Mu the budget's
	// Lagrange multiplier.
	CapacityPerSecond float64 `json:"capacity_per_second"`
	BudgetPerSecond   float64 `json:"budget_per_second"`
	Mu                float64 `json:"mu"`
	// Freshness is the estimated share of the collection's pages whose
	// copy is current now (0 to 1; pages never fetched count as stale).
	Freshness float64 `json:"freshness"`
	// FreshnessChanging is the same estimate over the sampled pages seen
	// to change at least once, ChangingPages how many those are (0: none
	// seen to change yet): a collection most of whose pages never change
	// is current whatever the schedule does for those that do.
	FreshnessChanging float64 `json:"freshness_changing"`
	ChangingPages     int     `json:"changing_pages"`
	// Revisits completed, of which NotModified were answered 304 and
	// Unchanged found the same content (304s included).
	Revisits    int64 `json:"revisits"`
	NotModified int64 `json:"not_modified"`
	Unchanged   int64 `json:"unchanged"`
	// NotModifiedShare is NotModified / Revisits (0 without revisits);
	// the server fills it in.
	NotModifiedShare float64 `json:"not_modified_share"`
}

// RecrawlRequest is the body of PUT /api/recrawl.
type RecrawlRequest struct {
	// RevisitShare is the share of fetch capacity to reserve for
	// revisits while discovery has work, 0 to 1. Required.
	RevisitShare *float64 `json:"revisit_share"`
}

// HostCounts counts hosts by state.
type HostCounts struct {
	Known   int64 `json:"known"`   // ever seen
	Active  int64 `json:"active"`  // with queued URLs or a request in flight
	Ready   int64 `json:"ready"`   // active, not blocked, and allowed to be contacted now
	Waiting int64 `json:"waiting"` // active, not blocked, waiting for their next allowed time
	// WaitingIP: active, allowed by their own rules, waiting for their IP
	// address's budget (--ip-concurrency, --ip-delay).
	WaitingIP int64 `json:"waiting_ip"`
	Blocked   int64 `json:"blocked"` // blocked by an operator
}

// DedupCounts are the archive's deduplication counts.
type DedupCounts struct {
	Revisits       int64 `json:"revisits"`        // identical payloads written as revisits
	NotModified    int64 `json:"not_modified"`    // 304 answers written as revisits
	NearDuplicates int64 `json:"near_duplicates"` // pages near an earlier page's text
	SeenURLs       int64 `json:"seen_urls"`       // distinct URL keys in the seen-set
}

// RatePoint is one interval of Status.Rate.
type RatePoint struct {
	Time  time.Time `json:"time"` // start of the interval
	Pages int64     `json:"pages"`
}

// HostRequests is one entry of Status.TopHosts.
type HostRequests struct {
	Host     string `json:"host"`
	Requests int64  `json:"requests"`
}

// Host is GET /api/hosts/{host} and an element of GET /api/hosts.
type Host struct {
	Name    string `json:"name"`
	Queued  int64  `json:"queued"`
	Fetched int64  `json:"fetched"`
	Leased  bool   `json:"leased"`
	Blocked bool   `json:"blocked"`
	// DelayMS is the gap kept between requests; DelayReason is the rule
	// that sets it: "configured", "crawl-delay", "latency", "robots",
	// "override".
	DelayMS     int64  `json:"delay_ms"`
	DelayReason string `json:"delay_reason"`
	// NextAllowed is the earliest time of the next request; Waiting says
	// why: the delay's reason, or "retry-after", "backoff", "breaker",
	// "blocked", or "ip" (its IP address's budget).
	NextAllowed time.Time `json:"next_allowed"`
	Waiting     string    `json:"waiting"`
	// IPGroup is the address (IPv6: /64 prefix) whose IP budget the host
	// shares, once resolved; empty without an IP budget.
	IPGroup string `json:"ip_group,omitempty"`
	// Node is, in a cluster crawl, the node that schedules the host (the
	// owner of its shard), which answered for it: a node asked about a
	// host another node schedules asks that node's admin API.
	Node        string `json:"node,omitempty"`
	LatencyMS   int64  `json:"latency_ms"`
	ErrorStreak int64  `json:"error_streak"`
	Breaker     string `json:"breaker"` // "closed", "open", "half-open"
	// Robots is the robots.txt status ("unknown", "ok", "missing",
	// "unavailable", "gave-up") and age.
	Robots           string    `json:"robots"`
	RobotsFetchedAt  time.Time `json:"robots_fetched_at"`
	RobotsAgeSeconds float64   `json:"robots_age_seconds"`
	// BudgetUsed is the pages fetched against the host's max_pages (an
	// override, or the crawl-wide per-host budget).
	// Errors counts the host's failed attempts over the crawl (fetches
	// given up on or retried, robots.txt unreachable); ErrorStreak those
	// in a row.
	Errors     int64 `json:"errors"`
	BudgetUsed int64 `json:"budget_used"`
	BudgetMax  int64 `json:"budget_max"`
	// Policy is the operator's override, if any.
	Policy *HostPolicy `json:"policy,omitempty"`
	// Requests10m counts requests in the last 10 minutes.
	Requests10m int64 `json:"requests_10m"`
	// Aliases are the URL alias rules the host taught the crawl, adopted
	// or not (see docs/urls.md, "URL aliases").
	Aliases []AliasRule `json:"aliases,omitempty"`
	// Traps is what the trap defences learnt of the host, as stored with
	// its record (see docs/urls.md, "Where the state lives"); nil when
	// nothing was stored.
	Traps *HostTraps `json:"traps,omitempty"`
	// Render is the host's rendering decision and its evidence; nil when
	// the crawl renders no page or considered none of the host's.
	Render *HostRender `json:"render,omitempty"`
}

// HostTraps is a host's stored trap-defence state: the pages counted
// against its page budget, whether the anomaly throttle demoted it (and
// the page budget that set), the URL templates its pages taught (at most
// 16, the most fetched first) and the calendars it stepped through.
type HostTraps struct {
	PagesCounted int64          `json:"pages_counted"`
	Demoted      bool           `json:"demoted,omitempty"`
	PageBudget   int64          `json:"page_budget,omitempty"`
	Templates    []TrapTemplate `json:"templates,omitempty"`
	Calendars    []TrapCalendar `json:"calendars,omitempty"`
}

// TrapTemplate is one URL template of a host, by the xxhash64 of its
// spelling (hex): its entry depth, pages fetched, the last pages in a row
// that yielded nothing new outside it, and whether any page linked
// outside it.
type TrapTemplate struct {
	Hash   string `json:"hash"`
	Entry  int    `json:"entry_depth"`
	Pages  int    `json:"pages"`
	Barren int    `json:"barren"`
	Open   bool   `json:"open"`
}

// TrapCalendar is one calendar template of a host, by hash, and the
// steps taken through it.
type TrapCalendar struct {
	Hash  string `json:"hash"`
	Steps int    `json:"steps"`
}

// HostRender is what rendering in a browser found on a host: the crawl's
// mode ("auto", "always"), the verdict ("learning", "pays": every page
// rendered, "useless": none), the pages rendered, the renders that found
// links or text the plain fetch missed and those that found nothing, the
// links found only by rendering, and why the last page was picked.
type HostRender struct {
	Mode         string   `json:"mode"`
	Verdict      string   `json:"verdict"`
	Rendered     int      `json:"rendered"`
	Found        int      `json:"found"`
	FoundNothing int      `json:"found_nothing"`
	NewLinks     int      `json:"new_links"`
	LastReasons  []string `json:"last_reasons,omitempty"`
}

// AliasRule is a URL alias rule as one host's evidence stands.
type AliasRule struct {
	// Rule says what the rule rewrites: "drop /index.html", "drop
	// trailing /", "lower-case path", "drop ?ref".
	Rule string `json:"rule"`
	// Kind is "index", "trailing-slash", "case" or "param"; Param the
	// index file name or parameter name.
	Kind  string `json:"kind"`
	Param string `json:"param,omitempty"`
	// Confirmations counts URL pairs differing by the rule that
	// returned identical payloads; Contradicted says a pair did not.
	Confirmations int  `json:"confirmations"`
	Contradicted  bool `json:"contradicted"`
	// Adopted: the host's links are rewritten with the rule.
	Adopted bool `json:"adopted"`
}

// HostPolicy is PUT /api/hosts/{host}/policy: an operator's override of a
// host's politeness. A nil field is not overridden.
type HostPolicy struct {
	DelayMS  *int64 `json:"delay_ms,omitempty"`  // gap between requests, replacing --delay (robots.txt Crawl-delay still applies when larger)
	MaxPages *int64 `json:"max_pages,omitempty"` // pages fetched from the host at most; then its URLs are dropped
	// Force lets DelayMS go below the crawl's --delay (the floor); without
	// it such a policy is refused (400). Never set in answers.
	Force bool `json:"force,omitempty"`
}

// SeedsRequest is the body of POST /api/seeds.
type SeedsRequest struct {
	URLs     []string `json:"urls"`
	Priority int      `json:"priority"`
}

// SeedsResult is the answer of POST /api/seeds.
type SeedsResult struct {
	Queued   int         `json:"queued"`
	Rejected []Rejection `json:"rejected"`
}

// Rejection says why a seed was not queued: "seen", "out-of-scope",
// "invalid".
type Rejection struct {
	URL    string `json:"url"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// URLInfo is GET /api/urls?url=…
type URLInfo struct {
	URL       string        `json:"url"`
	Key       string        `json:"key"` // canonical crawl key
	Host      string        `json:"host"`
	State     string        `json:"state"` // "queued", "done"
	Depth     int           `json:"depth"`
	Status    int           `json:"status,omitempty"`
	FetchedAt time.Time     `json:"fetched_at,omitzero"`
	ETag      string        `json:"etag,omitempty"`
	LastMod   string        `json:"last_modified,omitempty"`
	WARC      *WARCLocation `json:"warc,omitempty"`
	// NextVisit is when the URL is due again (recrawl); zero: not scheduled.
	NextVisit time.Time `json:"next_visit,omitzero"`
	// Revisit: queued (or in flight) as a revisit of a page fetched before.
	Revisit bool `json:"revisit"`

	// The change estimate: ChangeRate in changes per second, with its
	// relative standard error; MeanChangeIntervalSeconds is 1/ChangeRate
	// (absent when the rate is 0; the server fills it in). It rests on
	// Visits, of which Changed saw new content; LastChange is when the
	// content was last seen to change (absent: never).
	ChangeRate                float64   `json:"change_rate"`
	MeanChangeIntervalSeconds float64   `json:"mean_change_interval_seconds,omitempty"`
	RateError                 float64   `json:"rate_error"`
	Visits                    int       `json:"visits"`
	Changed                   int       `json:"changed"`
	LastChange                time.Time `json:"last_change,omitzero"`
	// IntervalSeconds is the revisit interval last chosen (0: none).
	IntervalSeconds float64 `json:"interval_seconds"`
	// Importance is the URL's OPIC importance relative to the average
	// URL (1: average), from its Cash and History; Band is the priority
	// band it is queued in (0 first).
	Importance float64 `json:"importance"`
	Cash       float64 `json:"cash"`
	History    float64 `json:"history"`
	Band       int     `json:"band"`
}

// WARCLocation is where a capture is: file, offset and length of its
// record's gzip member, and its record ID.
type WARCLocation struct {
	File     string `json:"file"`
	Offset   int64  `json:"offset"`
	Length   int64  `json:"length"`
	RecordID string `json:"record_id,omitempty"`
}

// ErrorBody is the one error envelope of the API:
// {"error": {"code": "not_found", "message": "…"}}.
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"` // bad_request, unauthorized, forbidden, not_found, method_not_allowed, internal
		Message string `json:"message"`
	} `json:"error"`
}
