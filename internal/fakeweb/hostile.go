package fakeweb

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

// The hostile web (Config.Hostile): resources that are slow, never end,
// are huge, decompress to a gibibyte, ask to be retried later, redirect
// in chains and loops, are not HTML, are in legacy charsets or are badly
// formed, all linked from the home page of each hostile host, and a storm
// host that answers 503 to everything for a while. See the package
// documentation, "Hostile web", for what each answers.

// HostileConfig tunes Config.Hostile. Its zero value gives the defaults
// documented on each field; it is ignored while Hostile is off.
type HostileConfig struct {
	// Every makes host i hostile when i%Every == 0. Zero means 1: every
	// host is hostile.
	Every int
	// SlowDelay is how long /x/slow waits before it answers (on top of
	// Config.Latency). Zero means 1.5s.
	SlowDelay time.Duration
	// DripInterval is the pause between the few bytes /x/drip sends at a
	// time. Zero means 100ms.
	DripInterval time.Duration
	// DripFor is how long /x/drip goes on before it ends its body, if the
	// client is still there. Zero means 60s.
	DripFor time.Duration
	// RetryFailures is how many requests for each retry page of a host
	// (/x/retry/...) are answered 429 or 503 before it answers 200,
	// counted since New or Reset. Zero means 1.
	RetryFailures int
	// RetryAfter is the delay the retry pages advertise in Retry-After,
	// a whole number of seconds. Zero means 2s.
	RetryAfter time.Duration
	// StormHost is the index of the storm host, which answers 503 to every
	// request but robots.txt for StormFor from its first request. Zero
	// means the last host, h{Hosts-1}; a negative value means none.
	StormHost int
	// StormFor is how long the storm lasts. Zero means 3s.
	StormFor time.Duration
	// StormRetryAfter makes the storm's 503 answers carry Retry-After
	// (what is left of the storm, rounded up to a second); without it they
	// carry none and the crawler must back off on its own.
	StormRetryAfter bool
}

// Limits of HostileConfig.
const (
	maxHostileDelay = time.Hour
	// bigSize is the size of /x/big, and bigTailAt the offset of its link
	// that the ground truth does not count.
	bigSize   = 20_000_000
	bigTailAt = 10<<20 + 4096
	// A bomb is a head member followed by bombUnits members each
	// decompressing to bombUnit bytes: about 1 GiB in all.
	bombUnit  = 1 << 20
	bombUnits = 1024
	// dripBytes is what /x/drip sends every DripInterval.
	dripBytes = "tide "
	// hangSlack is how much sooner than the server saw it the judge takes
	// an abandoned request for /x/hang to end.
	hangSlack = 100 * time.Millisecond
)

func (h *HostileConfig) defaults(hosts int) {
	if h.Every == 0 {
		h.Every = 1
	}
	if h.SlowDelay == 0 {
		h.SlowDelay = 1500 * time.Millisecond
	}
	if h.DripInterval == 0 {
		h.DripInterval = 100 * time.Millisecond
	}
	if h.DripFor == 0 {
		h.DripFor = 60 * time.Second
	}
	if h.RetryFailures == 0 {
		h.RetryFailures = 1
	}
	if h.RetryAfter == 0 {
		h.RetryAfter = 2 * time.Second
	}
	if h.StormHost == 0 {
		h.StormHost = max(hosts-1, 0)
	}
	if h.StormFor == 0 {
		h.StormFor = 3 * time.Second
	}
}

func (h HostileConfig) validate(hosts int) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("fakeweb: hostile "+format, args...))
	}
	if h.Every < 1 {
		bad("every %d is not positive", h.Every)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"slow delay", h.SlowDelay}, {"drip interval", h.DripInterval}, {"drip for", h.DripFor}, {"storm for", h.StormFor}} {
		if d.v <= 0 || d.v > maxHostileDelay {
			bad("%s %v is outside (0, %v]", d.name, d.v, maxHostileDelay)
		}
	}
	if h.RetryFailures < 1 || h.RetryFailures > maxFlaky {
		bad("retry failures %d is outside 1..%d", h.RetryFailures, maxFlaky)
	}
	if h.RetryAfter < time.Second || h.RetryAfter > maxHostileDelay || h.RetryAfter%time.Second != 0 {
		bad("retry after %v is not a whole number of seconds in 1s..%v", h.RetryAfter, maxHostileDelay)
	}
	if h.StormHost >= hosts {
		bad("storm host %d is not below hosts %d", h.StormHost, hosts)
	}
	return errors.Join(errs...)
}

// hostileRole is what a hostile resource is to the ground truth.
type hostileRole uint8

const (
	hostilePage     hostileRole = iota // a page of the ground truth, to be covered
	hostileAux                         // fetched by a correct crawl, but not a page
	hostileRedirect                    // a redirect; its target has its depth
	hostileOutside                     // linked only where a correct crawl does not read
)

// hostileSpec describes one hostile resource.
type hostileSpec struct {
	name  string // its key in Report.Hostile
	path  string // its cleaned, percent-decoded path
	role  hostileRole
	home  bool  // linked from the home page of a hostile host
	links []int // the hostile resources of the same host it links to
	to    int   // a redirect's target, on the same host but for /x/cross
	// query, for a charset query target, is the percent-decoded query it
	// must be requested with (bytes in the linking page's charset).
	query   string
	charset bool // a charset target: counted in Report.CharsetLinks
}

// Hostile resources, indexes of hostileSpecs.
const (
	hxSlow = iota
	hxSlowNext
	hxHang
	hxDrip
	hxBig
	hxBigNext
	hxBigTail
	hxGzipBomb
	hxZstdBomb
	hxRetry429
	hxRetry503
	hxBare429
	hxBare503
	hxChain0
	hxChain1
	hxChain2
	hxChainEnd
	hxLoopA
	hxLoopB
	hxLoopSelf
	hxCross
	hxLanding
	hxRelative
	hxRelativeEnd
	hx404
	hx410
	hx500
	hxPDF
	hxPNG
	hxJSON
	hxText
	hxUntyped
	hxSniffed
	hxCharset // the charset pages, one per charsetPages entry
	// hxCharsetTarget+2k is the path target of charset page k, +2k+1 its
	// query target.
	hxCharsetTarget = hxCharset + len(charsetPages)
	hxMalformed     = hxCharsetTarget + 2*len(charsetPages)
	hxMal0          = hxMalformed + 1
	hxMal1          = hxMalformed + 2
	hxMal2          = hxMalformed + 3
	numHostile      = hxMalformed + 4
)

const (
	hostilePrefix = "/x/"
	// hostileStorm is the key of the storm host's 503s in Report.Hostile.
	hostileStorm = "storm"
)

// charsetPage is one page in a legacy charset.
type charsetPage struct {
	name     string // path /x/cs/<name>; its targets live under it
	enc      encoding.Encoding
	label    string // the charset's name in Content-Type or <meta>
	http     bool   // declared by Content-Type only; else by <meta> only
	equiv    bool   // the <meta> is http-equiv="Content-Type", not charset
	pathWord string // non-ASCII text in the path of one link
	queryWrd string // and in the query of another
}

var charsetPages = [...]charsetPage{
	{"latin1-http", charmap.Windows1252, "ISO-8859-1", true, false, "café", "crème"},
	{"latin1-meta", charmap.Windows1252, "iso-8859-1", false, false, "naïve", "über"},
	{"sjis-http", japanese.ShiftJIS, "Shift_JIS", true, false, "東京", "大阪"},
	{"sjis-meta", japanese.ShiftJIS, "shift_jis", false, true, "日本語", "京都"},
}

// hostileSpecs is indexed by the hx constants; read-only.
var hostileSpecs = func() [numHostile]hostileSpec {
	var s [numHostile]hostileSpec
	set := func(i int, name, path string, role hostileRole, home bool, links ...int) {
		s[i] = hostileSpec{name: name, path: path, role: role, home: home, links: links}
	}
	x := hostilePrefix
	set(hxSlow, "slow", x+"slow", hostilePage, true, hxSlowNext)
	set(hxSlowNext, "slow-next", x+"slow-next", hostilePage, false)
	set(hxHang, "hang", x+"hang", hostileAux, true)
	set(hxDrip, "drip", x+"drip", hostileAux, true)
	set(hxBig, "big", x+"big", hostilePage, true, hxBigNext)
	set(hxBigNext, "big-next", x+"big-next", hostilePage, false)
	set(hxBigTail, "big-tail", x+"big-tail", hostileOutside, false)
	set(hxGzipBomb, "gzip-bomb", x+"bomb.html.gz", hostileAux, true)
	set(hxZstdBomb, "zstd-bomb", x+"bomb.html.zst", hostileAux, true)
	set(hxRetry429, "retry-429", x+"retry/429", hostilePage, true)
	set(hxRetry503, "retry-503-date", x+"retry/503", hostilePage, true)
	set(hxBare429, "retry-429-bare", x+"retry/429-bare", hostilePage, true)
	set(hxBare503, "retry-503-bare", x+"retry/503-bare", hostilePage, true)
	set(hxChain0, "chain-301", x+"chain/0", hostileRedirect, true)
	set(hxChain1, "chain-302", x+"chain/1", hostileRedirect, false)
	set(hxChain2, "chain-308", x+"chain/2", hostileRedirect, false)
	set(hxChainEnd, "chain-end", x+"chain/end", hostilePage, false)
	set(hxLoopA, "loop-a", x+"loop/a", hostileRedirect, true)
	set(hxLoopB, "loop-b", x+"loop/b", hostileRedirect, false)
	set(hxLoopSelf, "loop-self", x+"loop/self", hostileRedirect, true)
	set(hxCross, "cross-host", x+"cross", hostileRedirect, true)
	set(hxLanding, "landing", x+"landing", hostilePage, false)
	set(hxRelative, "relative", x+"relative", hostileRedirect, true)
	set(hxRelativeEnd, "relative-end", x+"relative-end", hostilePage, false)
	set(hx404, "status-404", x+"status/404", hostileAux, true)
	set(hx410, "status-410", x+"status/410", hostileAux, true)
	set(hx500, "status-500", x+"status/500", hostileAux, true)
	set(hxPDF, "pdf", x+"files/report.pdf", hostileAux, true)
	set(hxPNG, "png", x+"files/image.png", hostileAux, true)
	set(hxJSON, "json", x+"files/data.json", hostileAux, true)
	set(hxText, "text", x+"files/notes.txt", hostileAux, true)
	set(hxUntyped, "untyped", x+"files/untyped", hostilePage, true, hxSniffed)
	set(hxSniffed, "sniffed", x+"sniffed", hostilePage, false)
	for k, cp := range charsetPages {
		page, pt, qt := hxCharset+k, hxCharsetTarget+2*k, hxCharsetTarget+2*k+1
		set(page, "charset-"+cp.name, x+"cs/"+cp.name, hostilePage, true, pt, qt)
		set(pt, "charset-"+cp.name+"-path", x+"cs/"+cp.name+"/"+cp.pathWord, hostilePage, false)
		set(qt, "charset-"+cp.name+"-query", x+"cs/"+cp.name+"/q", hostilePage, false)
		s[pt].charset, s[qt].charset = true, true
		s[qt].query = "q=" + mustEncode(cp.enc, cp.queryWrd)
	}
	for from, to := range map[int]int{hxChain0: hxChain1, hxChain1: hxChain2, hxChain2: hxChainEnd, hxLoopA: hxLoopB,
		hxLoopB: hxLoopA, hxLoopSelf: hxLoopSelf, hxCross: hxLanding, hxRelative: hxRelativeEnd} {
		s[from].to = to
	}
	set(hxMalformed, "malformed", x+"malformed", hostilePage, true, hxMal0, hxMal1, hxMal2)
	for k := range 3 {
		set(hxMal0+k, fmt.Sprintf("malformed-%d", k), fmt.Sprintf("%smal/%d", x, k), hostilePage, false)
	}
	return s
}()

// hostileSlots[n] is the truth slot of hostile page n among the hostile
// pages of a host, -1 if n is not a page; hostilePageList is its inverse.
var hostileSlots, hostilePageList = func() ([numHostile]int, []int) {
	var slots [numHostile]int
	var list []int
	for n, s := range hostileSpecs {
		slots[n] = -1
		if s.role == hostilePage {
			slots[n] = len(list)
			list = append(list, n)
		}
	}
	return slots, list
}()

// mustEncode encodes s, which the table above keeps representable.
func mustEncode(enc encoding.Encoding, s string) string {
	b, err := enc.NewEncoder().String(s)
	if err != nil {
		panic("fakeweb: " + err.Error())
	}
	return b
}

// hostilePages is the number of truth slots per host the hostile web adds.
func (c Config) hostilePages() int {
	if !c.Hostile {
		return 0
	}
	return len(hostilePageList)
}

// isHostile reports whether host i carries the hostile resources.
func (w *Web) isHostile(i int) bool {
	return w.cfg.Hostile && i%w.cfg.HostileConfig.Every == 0
}

// stormHost is the index of the storm host, -1 if none.
func (w *Web) stormHost() int {
	if !w.cfg.Hostile || w.cfg.HostileConfig.StormHost < 0 {
		return -1
	}
	return w.cfg.HostileConfig.StormHost
}

// crossHost is the host /x/cross on host i redirects to.
func (w *Web) crossHost(i int) int { return (i + 1) % w.cfg.Hosts }

// resolveHostile names the hostile resource a cleaned path denotes on
// host: any on a hostile host, and /x/landing on the host a hostile
// host's /x/cross redirects to.
func (w *Web) resolveHostile(host int, clean string) (resource, bool) {
	if !w.cfg.Hostile || !strings.HasPrefix(clean, hostilePrefix) {
		return resource{}, false
	}
	for n := range hostileSpecs {
		if hostileSpecs[n].path != clean {
			continue
		}
		prev := (host - 1 + w.cfg.Hosts) % w.cfg.Hosts
		if w.isHostile(host) || n == hxLanding && w.isHostile(prev) {
			return resource{kind: resHostile, n: n}, true
		}
	}
	return resource{}, false
}

// resolveQuery is resolve for a request with a query: a charset query
// target exists only with the query its page links to, by the decoded
// bytes of the query (so "%e9" is "%E9"); any other spelling is a 404.
func (w *Web) resolveQuery(host int, clean, rawQuery string) resource {
	res := w.resolve(host, clean)
	if res.kind == resHostile && hostileSpecs[res.n].query != "" {
		q, err := url.PathUnescape(rawQuery)
		if err != nil || q != hostileSpecs[res.n].query {
			return resource{kind: resNotFound}
		}
	}
	return res
}

// querySuffix is what tells a charset query target apart from a
// misspelling of it in the judge's identity of URLs: "?" and its query.
func querySuffix(res resource) string {
	if res.kind == resHostile && hostileSpecs[res.n].query != "" {
		return "?" + url.PathEscape(hostileSpecs[res.n].query)
	}
	return ""
}

// hostileTarget is where hostile redirect n of host points.
func (w *Web) hostileTarget(host, n int) target {
	if n == hxCross {
		host = w.crossHost(host)
	}
	return target{host: host, kind: resHostile, n: hostileSpecs[n].to}
}

// hostileState is the part of the hostile web that depends on history:
// how often each retry page was asked for and when the storm began.
type hostileState struct {
	mu         sync.Mutex
	tries      map[[2]int]int // (host, resource) → requests since New or Reset
	stormStart time.Time
}

// try counts a request for resource n of host and returns the count.
func (s *hostileState) try(host, n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tries == nil {
		s.tries = map[[2]int]int{}
	}
	s.tries[[2]int{host, n}]++
	return s.tries[[2]int{host, n}]
}

// stormLeft starts the storm at now if it has not started and returns
// how much of it is left.
func (s *hostileState) stormLeft(now time.Time, d time.Duration) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stormStart.IsZero() {
		s.stormStart = now
	}
	return s.stormStart.Add(d).Sub(now)
}

func (s *hostileState) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tries = nil
	s.stormStart = time.Time{}
}
