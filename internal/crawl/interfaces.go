package crawl

import (
	"context"
	"errors"
	"time"

	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/process"
)

// Decision is what the worker learnt about a page that the archive
// records: what its robots signals ask, and what the page says.
type Decision struct {
	// OmitBody keeps the response's body out of the archive (noarchive):
	// the response record holds the HTTP header only.
	OmitBody bool
	// Signals are the page-level robots directives that applied to us
	// ("noarchive", "noindex", "nofollow"); when any did, the archive
	// records them and the decision in a metadata record.
	Signals []string
	// Outlinks are the absolute URLs the page links to (redirect target
	// included), as extracted, before scope and politeness.
	Outlinks []string
	// Embeds are the page's requisites (or a stylesheet's), likewise.
	Embeds []string
	// SimHash is the 64-bit SimHash of the page's visible text, when
	// HasSimHash (HTML pages with text).
	SimHash    uint64
	HasSimHash bool
	// Title is the page's <title>, when it has one.
	Title string
	// Annotations are what the content processors said about the page
	// (process.Runner), sorted by key; the metadata record keeps them.
	Annotations []process.Annotation
	// NotModified, for a 304 answer to a conditional request, is the
	// capture whose content the server says is still current: the
	// archive writes a server-not-modified revisit referring to it.
	NotModified *Capture
}

// ErrExhausted is returned by Frontier.Next when nothing is queued and no
// lease is outstanding: the crawl is complete.
var ErrExhausted = errors.New("crawl: frontier exhausted")

// Frontier schedules URLs. Its state changes only through Add and Complete,
// each deterministic given the prior state and idempotent. Implementations
// are safe for concurrent use.
type Frontier interface {
	// Add queues the links whose keys were not seen before and reports how
	// many. A seen key found again at a smaller depth takes the smaller
	// depth: still queued, it is simply updated; already fetched, it is
	// queued again as a Replay of its capture, so that its links are
	// followed from the smaller depth without fetching it twice.
	Add(ctx context.Context, links []Link) (int, error)
	// Next blocks until a host is ready and returns a lease for the head of
	// its queue. It returns ErrExhausted when the crawl is complete, or
	// ctx.Err() when ctx ends first.
	Next(ctx context.Context) (Lease, error)
	// Complete ends a lease. Completing a lease twice is a no-op.
	Complete(ctx context.Context, l Lease, out Outcome) error
	// Stats is a consistent snapshot of the frontier's size.
	Stats() FrontierStats
}

// FrontierStats describes the frontier at one instant.
type FrontierStats struct {
	Queued   int // URLs waiting
	InFlight int // leases outstanding
	Hosts    int // hosts known
	Active   int // hosts with queued URLs or a lease in flight
	Seen     int // distinct URL keys ever added
	Ready    int // active hosts allowed to be contacted now (not blocked, no lease)
	Waiting  int // active hosts waiting for their next allowed time
	Blocked  int // hosts blocked by an operator
	// WaitingIP counts active hosts ready by their own rules but held
	// back by their IP address's budget; IPGroups the addresses (IPv6:
	// /64 prefixes) the active hosts resolved to. Zero without an IP
	// budget.
	WaitingIP int
	IPGroups  int

	// BloomFPRate is the seen-set filter's measured false-positive rate:
	// of the keys the store did not know, the share the filter called
	// "maybe seen". 0 when the frontier has no filter.
	BloomFPRate float64

	// Recrawl describes revisiting; zero when the frontier does not
	// recrawl.
	Recrawl RecrawlStats
}

// WireReporter is a Frontier that wants to know when a lease's request
// went on the wire (its IP budget spaces request starts by it,
// docs/frontier.md "IP budget"): the crawler calls Wrote once per
// request it sends under the lease, from a transport goroutine, before
// Complete.
type WireReporter interface {
	Wrote(lease uint64, host string, at time.Time)
}

// Fetcher performs one HTTP exchange. fetch.Client implements it.
type Fetcher interface {
	Fetch(ctx context.Context, req fetch.Request) (*fetch.Response, error)
	Decode(resp *fetch.Response) ([]byte, error)
}

// Archive records fetched exchanges (WARC) and reads them back.
// Implementations are safe for concurrent use.
type Archive interface {
	// Record archives one exchange as d says and returns where its
	// response went.
	Record(ctx context.Context, t Task, resp *fetch.Response, d Decision) (Capture, error)
	// Load reads an archived response back (status, header, body as received).
	Load(ctx context.Context, c Capture) (*fetch.Response, error)
}

// FailureRecorder is an Archive that also records the requests that got
// no response (a TLS failure, no such host, a refused connection, a
// timeout …), so that the archive itself says a URL was tried, when, and
// why it holds nothing for it. archive.Archive implements it; with an
// Archive without it, failures are only counted and logged.
type FailureRecorder interface {
	// RecordFailure archives f and returns once it is on stable storage.
	RecordFailure(ctx context.Context, f Failure) error
}

// Failure is a request that was sent, or tried (a DNS lookup, a
// connection), and got no response.
type Failure struct {
	URL     string
	Start   time.Time // when the request started
	End     time.Time // when it failed
	Attempt int       // 1 for the URL's first try, 2 for its first retry …
	Kind    string    // fetch.ErrorKind: "tls-expired", "dns-not-found" …
	Class   string    // fetch.Classify's: "transient" or "permanent"
	Detail  string    // fetch.Reason: for a person
	IP      string    // fetch.ErrorIP: the server's address, "" when unknown
}

// Events receives one PageEvent per page archived (robots.txt and replays
// excluded), after its records are on stable storage and before its lease
// completes: a crash between the two sends the event again when the page
// is fetched again (at least once). Implementations are safe for
// concurrent use.
type Events interface {
	Page(ctx context.Context, e PageEvent) error
}

// PageEvent describes one archived page for downstream systems.
type PageEvent struct {
	URL         string
	Status      int
	Time        time.Time // when the request started (the WARC-Date)
	Depth       int
	ContentType string
	Title       string
	SimHash     uint64
	HasSimHash  bool
	// Capture is where the response (or revisit) record is; its Digest
	// is the payload digest.
	Capture     Capture
	Annotations []process.Annotation
	Outlinks    []string
}

// Visitor is a Frontier that can hold a host's politeness slot for a
// request no lease of the host's queue makes: a browser's sub-request
// while a page renders (render.go). The single-node frontier implements
// it; a Frontier without it renders nothing.
type Visitor interface {
	// Visit blocks until host may be contacted (no request in flight
	// there, its gap since the last one passed) and counts the caller's
	// request as the host's one in flight until Visit.Release. held is
	// the lease the caller holds (its ID, and the end of its own
	// request): a visit to that lease's own host shares the lease's slot,
	// one request at a time with the gap between them, instead of waiting
	// for the lease to end. It returns ErrNotOwned for a host another
	// cluster node schedules, ErrHostBlocked for a host an operator
	// blocked, or ctx.Err().
	Visit(ctx context.Context, host string, held uint64, heldEnd time.Time) (Visit, error)
}

// Visit is a host's politeness slot held by Visitor.Visit.
type Visit struct {
	// Robots is the host's robots.txt state; when it must be fetched
	// first, the visit is spent on it and its outcome's Robots set.
	Robots RobotsState
	// Release ends the visit with the exchange's outcome: its timing and
	// health feed the host's adaptive politeness and next ready time as
	// Complete's do; a zero Outcome (no request made) leaves them alone.
	// Only the first call counts.
	Release func(out Outcome) error
}

// Errors of Visitor.Visit.
var (
	ErrNotOwned    = errors.New("crawl: host scheduled by another node")
	ErrHostBlocked = errors.New("crawl: host blocked by an operator")
)
