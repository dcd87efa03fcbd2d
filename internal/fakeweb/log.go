package fakeweb

import (
	"sync"
	"time"
)

// Request is one request as the server saw it.
type Request struct {
	Method string `json:"method"`
	// Host is the host the request was for: the canonical name of a
	// virtual host ("h3.fake.test"), otherwise the lower-cased authority
	// without ":80".
	Host string `json:"host"`
	// Path is the request path as received (percent-decoded, not
	// cleaned); "/" when empty.
	Path string `json:"path"`
	// RawURL is the absolute URL as sent: the request-URI of a proxy
	// request, or "http://" + Host header + request-URI of an origin one.
	RawURL string `json:"raw_url"`
	// Start is when the handler was entered and End when the response was
	// ready to write, after any Latency (zero while in flight). End is
	// taken before the first byte is written, so a client that reads a
	// whole response and then sends its next request is never seen as
	// concurrent with itself.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Arrived, for a request that came directly (not through the proxy)
	// to a server of Serve or ServeTLS on Linux, is when the kernel
	// received it: the receive time (SO_TIMESTAMPNS) of the read that
	// brought the end of its header block (HTTP/1.1: the latest read on
	// its connection before its handler was entered; HTTP/2: the read
	// that ended its HEADERS; see arrivals.request for why). Zero
	// elsewhere, with Config.Now, and when the kernel gave no time.
	// It is before Start by the server's own lag (scheduling, TLS), which
	// on a loaded machine reaches tens of milliseconds; the judge times
	// a request by Arrived when it has one (Request.At).
	Arrived time.Time `json:"arrived,omitzero"`
	// Status is the status written, or 0 if the handler gave up without
	// answering (a hanging robots.txt, a client that went away during
	// Latency, a web that stopped).
	Status    int    `json:"status"`
	UserAgent string `json:"user_agent"`
	// Proto is the request's protocol as the server read it: "HTTP/1.1",
	// or "HTTP/2.0" over TLS when the client chose h2.
	Proto string `json:"proto,omitempty"`
	// Proxy is true when the request came with an absolute request-URI,
	// that is through the forward proxy.
	Proxy bool `json:"proxy"`
	// Local is the IP address the request arrived on, when it did not
	// come through the forward proxy: in direct serving (Web.Serve on
	// several loopback addresses), the address its host resolves to.
	// The judge's per-IP rules (Judge.IPConcurrency, Judge.IPDelay) hold
	// over the requests of one Local.
	Local string `json:"local,omitempty"`
	// Conditional is true when the request carried If-None-Match or
	// If-Modified-Since (logged with Config.Hostile,
	// Config.ConditionalRobots or Config.Changing only).
	Conditional bool `json:"conditional,omitempty"`
	// RetryAfter, when the answer carried a Retry-After header, is the
	// time before which the client must not send the host another
	// request: End plus the delay in seconds, or the HTTP-date sent.
	RetryAfter time.Time `json:"retry_after,omitzero"`
	// Version is, for a changing page of Config.Changing answered 200,
	// the version the body carries, and answered 304 the version the
	// answer confirms: the one current when the answer was made.
	Version int `json:"version,omitempty"`
}

// At is when the judge holds the request to have started: Arrived when
// the kernel's receive time is known, otherwise Start.
func (q *Request) At() time.Time {
	if !q.Arrived.IsZero() {
		return q.Arrived
	}
	return q.Start
}

// requestLog is the append-only record of requests. Entries are appended
// in the order their handlers were entered with Start taken under the
// lock, so the log is sorted by Start; not always by Arrived (handlers
// can be entered in another order than their requests arrived), so the
// judge sorts its copy by At.
type requestLog struct {
	mu   sync.Mutex
	gen  uint64 // bumped by reset so late finishers cannot touch the new log
	reqs []Request
	now  func() time.Time // the web's clock; nil means time.Now
}

func (l *requestLog) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

// entry is a handle on one logged request, owned by its handler.
type entry struct {
	log  *requestLog
	gen  uint64
	i    int
	done bool
	// version is what the answer of a changing page carries or confirms;
	// set before finishing.
	version int
}

func (l *requestLog) begin(r Request) entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	r.Start = l.clock()
	l.reqs = append(l.reqs, r)
	return entry{log: l, gen: l.gen, i: len(l.reqs) - 1}
}

// finish records End and the status; only the first call counts.
func (e *entry) finish(status int) { e.finishUntil(status, time.Time{}) }

// finishUntil is finish for an answer that carries Retry-After, until
// being the time it asks the client to wait for.
func (e *entry) finishUntil(status int, until time.Time) {
	if e.done {
		return
	}
	e.done = true
	l := e.log
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.gen == l.gen {
		l.reqs[e.i].End = l.clock()
		l.reqs[e.i].Version = e.version
		l.reqs[e.i].Status = status
		l.reqs[e.i].RetryAfter = until
	}
}

func (l *requestLog) snapshot() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Request(nil), l.reqs...)
}

func (l *requestLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gen++
	l.reqs = nil
}
