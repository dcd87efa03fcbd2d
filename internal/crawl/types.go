package crawl

import (
	"errors"
	"time"

	"github.com/godwit-crawler/godwit/internal/politeness"
	"github.com/godwit-crawler/godwit/internal/robots"
)

// Link is a discovered URL that passed normalization, scope and the trap
// filters and is ready to be queued. Adding a Link whose Key was seen before
// is a no-op.
type Link struct {
	URL   string // normalized absolute URL, the form that is fetched
	Key   string // canonical crawl key: the identity in the seen-set
	Host  string // politeness key (urlnorm.Host)
	Depth int    // link hops from a seed; a redirect target keeps its source's depth
	Hops  int    // consecutive redirects that led here
	Via   string // URL of the page or redirect that discovered it; "" for seeds
	// Sitemap is 0 for a page, and n > 0 for a sitemap file n levels below
	// robots.txt (1: listed in robots.txt, 2: listed in that index, …).
	Sitemap int
	// Hints are what a sitemap said about the URL; zero when none.
	Hints Hints
	// Embed is 0 for a page, and n > 0 for a page requisite (an image,
	// stylesheet, script, font, …) n embed hops from the page that needs
	// it (1: embedded by the page, 2: by a stylesheet it embeds, …). A
	// requisite has its page's Depth: the embed hop does not count
	// toward Config.MaxDepth.
	Embed int
	// Cash is the OPIC importance cash the link carries to its target
	// (freshness.Distribute: its share of the linking page's cash; a seed
	// or a sitemap named by robots.txt brings SeedCash). In a leased
	// Task it is the cash the URL held when leased, which the worker
	// hands on to the page's outlinks.
	Cash float64
}

// SeedCash is the OPIC cash of a seed, and of a sitemap robots.txt names.
const SeedCash = 1.0

// Hints are a sitemap's statements about a URL, kept for scheduling.
type Hints struct {
	LastMod     time.Time
	ChangeFreq  string  // always, hourly, daily, weekly, monthly, yearly, never
	Priority    float64 // 0..1, meaningful when HasPriority
	HasPriority bool
}

// Task is a Link handed to a worker by the frontier.
type Task struct {
	Link
	Attempt int // 0 on the first try; incremented by each Retry outcome
	// Replay, when set, asks the worker to process the archived response at
	// this location again instead of fetching: the URL was found by a
	// shorter path after it was fetched, and its links must be followed at
	// the smaller depth. Replay sends no request.
	Replay *Capture
	// Validators are the ETag and Last-Modified of the URL's last response,
	// when it is fetched again: the request is then conditional
	// (If-None-Match, If-Modified-Since) and may be answered 304.
	Validators Validators
	// Prior is the capture those validators came from: a 304 is archived
	// as a server-not-modified revisit of it.
	Prior *Capture
	// Revisit, set by the frontier on lease, says the URL was fetched
	// before and is due again: it does not count against the host's
	// page budget (Traps.HostPages), which counts distinct pages.
	Revisit bool
}

// Validators are a response's cache validators (RFC 9110 §8.8).
type Validators struct {
	ETag         string
	LastModified string
}

// IsZero reports whether there is nothing to validate against.
func (v Validators) IsZero() bool { return v == Validators{} }

// Capture locates an archived response: the WARC file (base name) and the
// byte range of the record's gzip member, and the record's ID and
// WARC-Date, which a later revisit record refers to.
type Capture struct {
	File     string
	Offset   int64
	Length   int64
	RecordID string    // "" in captures stored before it was kept
	Date     time.Time // zero likewise
	// Digest is the response's payload digest (WARC-Payload-Digest) as
	// Archive.Record returns it; the frontier does not keep it.
	Digest string
}

// Lease is the frontier's grant to make (at most) one request to Task.Host.
// The host gets no other lease until this one is completed.
type Lease struct {
	ID     uint64
	Task   Task
	Robots RobotsState // the host's robots.txt state when the lease was granted
	// OverBudget says the host has had the pages an operator's policy
	// allows it (HostPolicy.MaxPages): the task is to be dropped, not
	// fetched.
	OverBudget bool
	// Aliases is the host's URL alias learning state as stored.
	Aliases HostAliases
	// Traps is the host's trap-defence state as stored (traps_state.go);
	// nil when none was. Shared with the frontier: read, never changed.
	Traps *HostTraps
}

// HostPolicy is an operator's override of one host's politeness; a nil
// field is not overridden.
type HostPolicy struct {
	// Delay replaces the configured delay for this host (a robots.txt
	// Crawl-delay, the latency rule and the server's Retry-After still
	// apply when they ask for more).
	Delay *time.Duration
	// MaxPages caps the requests made to the host; past it, its URLs are
	// dropped.
	MaxPages *int64
}

// IsZero reports whether p overrides nothing.
func (p HostPolicy) IsZero() bool { return p.Delay == nil && p.MaxPages == nil }

// ControlOp is an operator's command to the frontier.
type ControlOp uint8

const (
	SetHostPolicy   ControlOp = iota + 1 // replace the host's override with Control.Policy
	ClearHostPolicy                      // remove the host's override
	BlockHost                            // never contact the host; its URLs stay queued
	UnblockHost                          // undo BlockHost
	// SetRevisitShare sets the share of fetch capacity reserved for
	// revisits (Control.Share, 0..1) while discovery has work; Host is
	// not used.
	SetRevisitShare
)

// Control is one operator command. Commands are durable: they survive
// restarts, and (in cluster mode) they travel to the host's owner like any
// other frontier operation.
type Control struct {
	Op     ControlOp
	Host   string // the politeness key, as urlnorm.Host spells it
	Policy HostPolicy
	// Force lets SetHostPolicy set a delay below the crawl's configured
	// delay (the floor); without it such a policy is refused with
	// ErrBelowFloor.
	Force bool
	Share float64 // SetRevisitShare
}

// ErrBelowFloor refuses an operator's delay below the crawl's configured
// delay, given without Control.Force: an override must not make the crawl
// less polite by accident.
var ErrBelowFloor = errors.New("crawl: delay below the crawl's floor")

// URLInfo is what the frontier knows of one URL.
type URLInfo struct {
	Key        string
	Host       string
	Queued     bool // false: done
	Revisit    bool // queued (or leased) as a revisit of a page fetched before
	Depth      int
	Status     int
	FetchedAt  time.Time
	Validators Validators
	Capture    *Capture
	NextVisit  time.Time // when a revisit is due; zero: none scheduled

	// Change estimate (freshness.State): the estimated change rate in
	// changes per second, its relative standard error, and the history
	// it rests on: visits observed, of which Changed saw new content
	// (a different payload, or status or redirect target), and when the
	// content was last seen to change (zero: never seen to).
	ChangeRate float64
	RateError  float64
	Visits     int
	Changed    int
	LastChange time.Time
	Interval   time.Duration // the revisit interval last chosen; zero: none
	// Importance is the URL's OPIC importance relative to the average
	// URL (1: average), from its Cash and History; Band is the priority
	// band it is queued in (0 first).
	Importance float64
	Cash       float64
	History    float64
	Band       int
}

// RecrawlStats describe revisiting (a frontier with recrawl on).
type RecrawlStats struct {
	Enabled bool
	Policy  string // "optimal" or "uniform"
	// Share is the configured share of fetch capacity reserved for
	// revisits while discovery has work (Control SetRevisitShare).
	Share float64
	// RevisitShare is the measured share of recent leases that were
	// revisits (an average over about the last 200 leases).
	RevisitShare float64
	// Scheduled counts the URLs with a next visit in the due-time
	// index; DueBacklog the revisits that fell due and wait in their
	// hosts' queues (or are being fetched); Lag is how late the last
	// revisit leased was, or how overdue the earliest entry not yet
	// moved to its queue is, whichever is more (zero: none waiting).
	Scheduled  int
	DueBacklog int
	Lag        time.Duration
	// Capacity is the estimated fetch capacity (requests per second
	// the hosts' politeness and the workers allow), Budget the part of
	// it revisits are scheduled to use, Mu the budget's Lagrange
	// multiplier (freshness.Policy.CalibrateMu).
	Capacity float64
	Budget   float64
	Mu       float64
	// Freshness is the estimated share of the collection's pages whose
	// copy is current now: over a sample of the fetched URLs, the
	// probability that each is unchanged since its last visit under its
	// change estimate (freshness.Current), times the share of the URLs
	// known that were fetched at all (a page never fetched is stale). 0
	// before any fetch: no evidence is no freshness.
	Freshness float64
	// FreshnessChanging is the same estimate over the sampled pages seen
	// to change at least once (the others are left out, not counted
	// stale); ChangingPages is how many of the sample those are (0: no
	// estimate).
	FreshnessChanging float64
	ChangingPages     int
	// Revisits counts revisits completed by this process, of which
	// NotModified were answered 304 and Unchanged found the same content
	// (304 included).
	Revisits    int64
	NotModified int64
	Unchanged   int64
}

// RobotsStatus is what godwit knows about a host's robots.txt, in RFC 9309 terms.
type RobotsStatus uint8

const (
	RobotsUnknown     RobotsStatus = iota // not fetched yet
	RobotsOK                              // 2xx: the rules apply
	RobotsMissing                         // 4xx (or too many redirects): allow all
	RobotsUnavailable                     // 5xx or unreachable: disallow all, retry later
	RobotsGaveUp                          // unreachable too many times: the host's URLs are dropped
)

var robotsStatusNames = [...]string{"unknown", "ok", "missing", "unavailable", "gave-up"}

func (s RobotsStatus) String() string {
	if int(s) < len(robotsStatusNames) {
		return robotsStatusNames[s]
	}
	return "invalid"
}

// RobotsState is a host's robots.txt as the frontier stores it.
type RobotsState struct {
	Status    RobotsStatus
	Body      []byte        // the robots.txt body as fetched (status OK), kept so the state can be persisted
	Rules     *robots.Group // the group that applies to our agent; nil unless Status is RobotsOK
	FetchedAt time.Time     // when the current answer arrived
	Failures  int           // consecutive unavailable answers
	// FailingSince is when the current run of unavailable answers began.
	FailingSince time.Time
	URL          string // where to ask next while following redirects; "" = the default location
	Hops         int    // redirects followed so far for the current fetch
	// Validators and Capture are those of the last 200 answer: a refetch
	// after RobotsTTL is conditional, and a 304 is archived as a revisit
	// of that capture.
	Validators Validators
	Capture    *Capture
}

// Disposition says what the frontier does with a completed lease's task.
type Disposition uint8

const (
	Done    Disposition = iota // the task is finished (fetched, failed for good, or skipped)
	Retry                      // try again later: back of the host queue, Attempt+1
	Requeue                    // the lease was spent on something else (robots.txt): front of the queue, unchanged
)

// Outcome is what a worker reports for a lease.
type Outcome struct {
	Disposition Disposition
	// Requested reports that a request was sent to the host, so its
	// politeness clock restarts at End.
	Requested bool
	End       time.Time // when the exchange with the host ended
	Status    int       // HTTP status, 0 when none was received
	Class     Class     // why the task failed or was skipped; ClassNone on success
	Reason    string    // short machine-readable detail, e.g. ReasonRobotsDisallowed
	// Robots, when set, replaces the host's robots.txt state.
	Robots *RobotsState
	// Aliases, when set, replaces the host's URL alias learning state.
	Aliases *HostAliases
	// Traps, when set, replaces the host's stored trap-defence state
	// (traps_state.go). Never changed once handed over.
	Traps *HostTraps
	// Capture is where the page's response was archived, when it was.
	Capture *Capture

	// What the exchange, when Requested, says about the server: when the
	// request was written and the first byte of the answer arrived (zero
	// when none did), how healthy the answer was, and the Retry-After of a
	// 429 or 503. The frontier feeds them to the host's adaptive
	// politeness (politeness.Policy.Observe).
	Start, FirstByte time.Time
	Health           politeness.Failure
	RetryAfter       time.Duration
	HasRetryAfter    bool
	// Validators are the response's ETag and Last-Modified, kept with the
	// URL for a conditional request when it is fetched again.
	Validators Validators
	// Content fingerprints what the response said, for change
	// detection when the URL is fetched again: a hash of the payload of
	// a 2xx answer, of the target of a redirect, of the status of any
	// other answer; zero when no answer came (or a 304, which says
	// "unchanged").
	Content uint64
	// Similar fingerprints a 2xx payload with its volatile tokens masked
	// (maskedFingerprint: CSRF tokens, session ids, nonces), for alias
	// learning on pages that never answer the same bytes twice; zero
	// when Content is. Read in the process that fetched the page, never
	// persisted.
	Similar uint64
	// Spent, on a Done outcome of a fetched page, is the OPIC cash the
	// page handed on to its outlinks (the lease's Task.Cash).
	Spent float64
}

// ReasonRobotsDisallowed is the Outcome.Reason of a URL robots.txt
// disallows: no request was made, and a recrawl asks again later (the
// rules may change).
const ReasonRobotsDisallowed = "robots-disallowed"

// reasonRobotsUnavailable is the Outcome.Reason of a URL dropped because
// its host's robots.txt stayed unreachable (or its address is refused).
const reasonRobotsUnavailable = "robots-unavailable"

// HostInfo is one host's state as the frontier knows it: what an operator
// asks when a host seems stuck or slow.
type HostInfo struct {
	Name    string
	Queued  int  // URLs waiting
	Fetched int  // requests completed (robots.txt included)
	Leased  bool // a request is in flight
	// Delay is the gap kept after each exchange with the host, and the
	// rule that sets it (configured delay, Crawl-delay, latency).
	Delay politeness.Delay
	// NextReady is the earliest time of the next request; Waiting is why
	// (the gap, or a Retry-After, backoff or open breaker).
	NextReady time.Time
	Waiting   politeness.Reason
	// Latency is the smoothed time to first byte; ErrorStreak counts
	// consecutive transient failures; Breaker is the circuit breaker.
	Latency     time.Duration
	ErrorStreak int
	// Errors counts the host's failed attempts over the crawl: fetches
	// given up on or retried, robots.txt unreachable.
	Errors  int
	Breaker politeness.Breaker
	// Robots is the host's robots.txt status and when it was last fetched.
	Robots          RobotsStatus
	RobotsFetchedAt time.Time
	// Blocked and Policy are the operator's block and override.
	Blocked bool
	Policy  HostPolicy
	// Aliases are the URL alias rules the host taught (adopted or not).
	Aliases []AliasEvidence
	// Traps is the host's trap-defence state as stored (traps_state.go);
	// nil when none was. Read, never changed.
	Traps *HostTraps
	// IPGroup is the address (IPv4) or /64 prefix (IPv6) whose IP budget
	// the host shares, once resolved ("": none, or not yet resolved).
	// Waiting is politeness.ReasonIP while the host waits for it.
	IPGroup string
}

// Position is a place in one shard's log (cluster mode): the sequence
// number of an event in the log of shard Shard. The frontier records,
// with each event it applies, the position it applied up to, so that an
// event is applied once however often it is delivered. The zero Position
// is no place: single-node mode, which has no shard logs.
type Position struct {
	Shard uint16
	Seq   uint64
}

// IsZero reports whether p is no place.
func (p Position) IsZero() bool { return p.Seq == 0 }
