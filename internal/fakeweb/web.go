package fakeweb

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Web is one simulated web. All its methods are safe for concurrent use.
type Web struct {
	cfg       Config // defaulted and validated; never changed after New
	dotDomain string // "." + cfg.Domain
	slots     int    // truth slots per host: PagesPerHost + cfg.extraPages()

	// robotsBodies[k] is the robots.txt file a host of kind k answers
	// with 200 (for RobotsRedirect at /robots-real.txt, for RobotsFlaky
	// once it recovers), nil if none; rules[k] is what it says to godwit.
	// Both are shared by every host of the kind and never written.
	robotsBodies [numRobotsKinds][]byte
	rules        [numRobotsKinds]ruleSet

	log requestLog
	// flaky counts the robots.txt requests of each RobotsFlaky host since
	// New or Reset: the one answer of the web that depends on history.
	flaky flakyCounter
	// hostile is the history of the hostile web (Config.Hostile): retry
	// pages' counts and the storm's start. bombs caches the compressed
	// bombs; streams tracks the streamed bodies being written.
	hostile hostileState
	bombs   bombCache
	streams streamSet
	// changes holds the change processes of the changing pages drawn so
	// far (Config.Changing); skew the popularity of pages
	// (Config.SkewedGraph), written by New only; indeg the in-degree of
	// every ordinary page, computed on first use.
	changes changeState
	skew    skew
	indeg   inDegrees

	stop      chan struct{} // closed by Close; ends every wait in every handler
	closeOnce sync.Once

	// enter, if set (by tests only, before serving), is called by the
	// handler of every logged request after its arrival is read and
	// before Start is taken: a late handler entry.
	enter func(*http.Request)
}

// New builds the web described by cfg after applying cfg.Default. It
// starts nothing: serve it with Serve or mount Handler on a server of
// your own.
func New(cfg Config) (*Web, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Robots = append([]RobotsKind(nil), cfg.Robots...)
	w := &Web{
		cfg:       cfg,
		dotDomain: "." + cfg.Domain,
		slots:     cfg.PagesPerHost + cfg.extraPages(),
		stop:      make(chan struct{}),
	}
	w.log.now = w.now
	if cfg.Changing && cfg.ChangingConfig.Start.IsZero() {
		w.cfg.ChangingConfig.Start = w.now()
	}
	if cfg.SkewedGraph {
		w.buildSkew()
	}
	for k, file := range map[RobotsKind]string{
		RobotsAllow:      robotsAllowFile,
		RobotsDisallow:   robotsDisallowFile,
		RobotsCrawlDelay: robotsStarPrivate + "Crawl-delay: " + seconds(cfg.CrawlDelay) + "\n" + robotsOtherbot,
		RobotsWildcard:   robotsWildcardFile,
		RobotsAgentGroup: robotsAgentGroupFile,
		RobotsRedirect:   robotsDisallowFile,
		RobotsFlaky:      robotsDisallowFile,
	} {
		if cfg.SPA {
			file = addSPATrackRule(file)
		}
		w.robotsBodies[k] = []byte(file)
		w.rules[k] = parseRobots(file, agent)
	}
	return w, nil
}

// flakyCounter counts robots.txt requests per RobotsFlaky host.
type flakyCounter struct {
	mu sync.Mutex
	n  map[int]int
}

// fail counts a request for the robots.txt of host and reports whether
// it is among the first `failures`, which answer 503.
func (c *flakyCounter) fail(host, failures int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[int]int{}
	}
	c.n[host]++
	return c.n[host] <= failures
}

func (c *flakyCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = nil
}

// allowed reports whether robots.txt lets godwit fetch path (with "?" and
// the query, if any) on host, and the deciding rule if one matched.
func (w *Web) allowed(host int, path string) (bool, rule, bool) {
	return w.rules[w.kind(host)].allowed(path)
}

// now reads the web's clock, Config.Now.
func (w *Web) now() time.Time {
	if w.cfg.Now != nil {
		return w.cfg.Now()
	}
	return time.Now()
}

// seconds writes d in seconds with as many decimals as it needs: "1", "0.2".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// Config returns the effective configuration, defaults filled in.
func (w *Web) Config() Config {
	c := w.cfg
	c.Robots = append([]RobotsKind(nil), w.cfg.Robots...)
	return c
}

// Close ends every wait in progress in any handler of this web (a hanging
// robots.txt, Latency) by dropping its connection unanswered, and makes
// every later wait end the same way at once. Use it when the Handler is
// served by a server Serve does not own, such as an httptest.Server, whose
// Close would otherwise wait for hanging requests forever. Close is
// idempotent and returns nil.
func (w *Web) Close() error {
	w.closeOnce.Do(func() {
		close(w.stop)
		w.streams.close()
	})
	return nil
}

// kind is the robots.txt behaviour of host i.
func (w *Web) kind(i int) RobotsKind {
	if len(w.cfg.Robots) == 0 {
		return RobotsAllow
	}
	return w.cfg.Robots[i%len(w.cfg.Robots)]
}

// up reports whether a crawler can fetch anything from host i: its
// robots.txt is reachable and its certificate (if BadTLS names it) would
// verify.
func (w *Web) up(i int) bool {
	return w.kind(i).available() && w.cfg.BadTLS[i] == 0
}

// Robots reports the robots.txt behaviour of host i (0 <= i < Hosts).
func (w *Web) Robots(i int) RobotsKind { return w.kind(i) }

// Seeds returns the home page of every host, "http://hK.<domain>/", in
// host order.
func (w *Web) Seeds() []string {
	seeds := make([]string, w.cfg.Hosts)
	for i := range seeds {
		seeds[i] = w.scheme() + w.hostName(i) + "/"
	}
	return seeds
}

// Page returns the exact body served with status 200 for rawURL, which
// must be an absolute http URL: a page, a /private/ page, a trap page, an
// orphan, /nofollow/, /follow/ or /w/ page, a sitemap file (compressed,
// for the gzip one), or a robots.txt that answers 200 (a RobotsFlaky one
// as it answers once recovered; a RobotsRedirect one at /robots-real.txt),
// or a resource of the hostile web answered 200 with a body held whole
// (a retry page as it answers after its failures; /x/slow without its
// delay; not the drip, the big page or the bombs, which are streamed),
// or a page of Config.Duplicates (compressed, for /d/exact/1), or a
// changing page of Config.Changing as it is at Config.Now.
// Spellings are folded as the server folds them (host case, ":80", dot segments, ";jsessionid=" when the web hands
// out session IDs; the fragment is ignored, and so is the query, except
// that a search trap answers it and a session ID in it shapes the page's
// links). For anything else ok is false.
func (w *Web) Page(rawURL string) (body []byte, ok bool) {
	host, clean, q, ok := w.parseRequestURL(rawURL)
	if !ok {
		return nil, false
	}
	resp := w.respond(host, w.resolveQuery(host, clean, q.rawQuery), q)
	if resp.status != http.StatusOK || resp.stream != streamNone {
		return nil, false
	}
	// robots.txt bodies are shared with the handler.
	return bytes.Clone(resp.body), true
}

// Requests returns a copy of the request log in the order the requests'
// handlers were entered (by Start; Request.At can be in another order).
// A request still in flight has a zero End.
func (w *Web) Requests() []Request { return w.log.snapshot() }

// Reset clears the request log so the web can judge another crawl, and
// makes RobotsFlaky hosts fail again. Requests in flight when Reset is
// called are left out of the new log.
func (w *Web) Reset() {
	w.log.reset()
	w.flaky.reset()
	w.hostile.reset()
}
