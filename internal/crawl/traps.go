package crawl

import (
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"math"
	"math/bits"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// Traps configures the spider-trap defences: limits on what a discovered
// URL may look like, and per-host budgets. Every limit has a default that
// Default fills in for a zero value; a negative value turns the defence
// off. Each refusal is counted in Stats.Traps under its reason.
type Traps struct {
	// MaxURLLength is the longest normalized URL queued, in bytes;
	// default 2048 (what most browsers, servers and archives agree on).
	MaxURLLength int
	// MaxPathDepth is the most path segments a URL may have; default 20
	// (Heritrix's TooManyPathSegmentsDecideRule).
	MaxPathDepth int
	// MaxPathRepeats refuses a path in which a run of segments repeats
	// this many times back to back ("a/b/a/b/a/b" is "a/b" three times);
	// default 3.
	MaxPathRepeats int
	// MaxQueryParams is the most query parameters a URL may have once
	// tracking and session parameters are stripped; default 20.
	MaxQueryParams int
	// MaxCalendarSteps bounds calendars: per host and calendar template
	// (a URL with its date taken out, e.g. "/events/{date}/"), at most
	// this many URLs found only by stepping from another date of the same
	// template (the "next month" link of a calendar page) are queued;
	// default 6. Calendar pages linked from ordinary pages are not
	// counted, so an archive index that lists every month is followed.
	MaxCalendarSteps int
	// HostPages is the per-host page budget: pages fetched from one host
	// (robots.txt aside); default 100,000. It keeps a legitimately
	// enormous site, or a trap no pattern catches, from absorbing the crawl.
	HostPages int64
	// TemplatePages and TemplateHops tune the template defence
	// (traps_template.go): per host and URL template, once the last
	// TemplatePages fetched pages of the template yielded no URL new to
	// the crawl outside the template, its pages' links to the template
	// that lie TemplateHops or more hops deeper than its first URL are
	// refused; a template whose pages link nothing outside it is judged
	// on half as many pages. Defaults 10 and 5.
	TemplatePages int
	TemplateHops  int
	// Anomaly is the discovery-anomaly throttle.
	Anomaly AnomalyThrottle
}

// AnomalyThrottle demotes hosts whose newly discovered URLs grow far
// faster than their fetched pages (100 pages fetched, 50,000 URLs found):
// a trap that no pattern recognizes. A demoted host has its new URLs
// refused from then on and may fetch at most Pages more pages.
type AnomalyThrottle struct {
	// MinURLs is how many distinct URLs a host must have yielded before
	// the throttle judges it; default 20,000. Negative turns it off.
	MinURLs int64
	// Ratio is the distinct URLs found per page fetched above which a
	// host is demoted; default 200.
	Ratio float64
	// Pages is how many more pages a demoted host may fetch; default 1,000.
	Pages int64
}

// Default fills zero fields.
func (t *Traps) Default() {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&t.MaxURLLength, 2048)
	def(&t.MaxPathDepth, 20)
	def(&t.MaxPathRepeats, 3)
	def(&t.MaxQueryParams, 20)
	def(&t.MaxCalendarSteps, 6)
	def(&t.TemplatePages, 10)
	def(&t.TemplateHops, 5)
	if t.HostPages == 0 {
		t.HostPages = 100_000
	}
	if t.Anomaly.MinURLs == 0 {
		t.Anomaly.MinURLs = 20_000
	}
	if t.Anomaly.Ratio == 0 {
		t.Anomaly.Ratio = 200
	}
	if t.Anomaly.Pages == 0 {
		t.Anomaly.Pages = 1000
	}
}

// Validate reports settings that cannot work.
func (t Traps) Validate() error {
	var errs []error
	if t.MaxPathRepeats == 1 {
		errs = append(errs, errors.New("crawl: max path repeats 1 would refuse every path (want 2 or more, or negative for off)"))
	}
	if t.MaxURLLength > 0 && t.MaxURLLength < len("http://a/") {
		errs = append(errs, fmt.Errorf("crawl: max URL length %d is shorter than any URL", t.MaxURLLength))
	}
	if r := t.Anomaly.Ratio; math.IsNaN(r) || math.IsInf(r, 0) {
		errs = append(errs, fmt.Errorf("crawl: anomaly ratio %v is not a number", r))
	}
	return errors.Join(errs...)
}

// Trap reasons, as logged and as the fields of TrapStats.
const (
	trapURLLength  = "url-too-long"
	trapPathDepth  = "path-too-deep"
	trapRepeats    = "path-repeats"
	trapParams     = "too-many-params"
	trapCalendar   = "calendar"
	trapHostPages  = "host-budget"
	trapAnomaly    = "discovery-anomaly"
	trapTemplate   = "template-exhausted"
	maxCalTemplate = 32 // calendar templates remembered per host
	maxCalKeys     = 64 // calendar URLs remembered per template
)

// TrapStats counts URLs refused by the trap defences, by reason.
type TrapStats struct {
	URLTooLong    int64 // longer than MaxURLLength
	PathTooDeep   int64 // more segments than MaxPathDepth
	PathRepeats   int64 // a run of segments repeated MaxPathRepeats times
	TooManyParams int64 // more query parameters than MaxQueryParams
	Calendar      int64 // calendar steps past MaxCalendarSteps
	// HostBudget counts URLs refused at discovery, and queued URLs
	// skipped at fetch time, because their host spent its page budget.
	HostBudget int64
	// Anomaly counts URLs refused from demoted hosts; DemotedHosts the
	// hosts demoted.
	Anomaly      int64
	DemotedHosts int64
	// Template counts links refused because their URL template stopped
	// yielding anything new (traps_template.go).
	Template int64
}

// Total is the number of URLs the defences refused.
func (s TrapStats) Total() int64 {
	return s.URLTooLong + s.PathTooDeep + s.PathRepeats + s.TooManyParams + s.Calendar + s.HostBudget + s.Anomaly + s.Template
}

// traps is the crawl core's trap-defence component. The pattern checks
// are pure; the per-host state (pages fetched, distinct URLs found,
// calendar steps, demotion, URL templates) lives in memory, one small
// record per host that passed scope, so memory grows with the number of
// hosts, never with the number of URLs. A bounded digest of it is stored
// with the frontier's host record (traps_state.go), so that a resumed
// crawl, or the cluster node that takes the host over, keeps what was
// learnt. Safe for concurrent use.
type traps struct {
	cfg  Traps
	log  *slog.Logger
	seed maphash.Seed

	mu    sync.Mutex
	hosts map[string]*hostTraps
}

// hostTraps is the per-host state.
type hostTraps struct {
	fetched  int64
	budget   int64       // effective page budget; <0 = none
	urls     hyperLogLog // distinct URL keys queued
	demoted  bool
	calendar map[string]*calendarState
	// templates is the template defence's state (traps_template.go).
	templates map[string]*templateState
	// store is what the stored copy knows (traps_state.go).
	store trapStore
}

type calendarState struct {
	steps int             // URLs admitted as steps
	keys  map[uint64]bool // URLs admitted (entries and steps), to tell repeats from steps
	hash  uint64          // xxhash64 of the template, as stored
}

func newTraps(cfg Traps, log *slog.Logger) *traps {
	return &traps{cfg: cfg, log: log, seed: maphash.MakeSeed(), hosts: make(map[string]*hostTraps)}
}

func (t *traps) host(h string) *hostTraps {
	ht := t.hosts[h]
	if ht == nil {
		ht = &hostTraps{budget: t.cfg.HostPages}
		t.hosts[h] = ht
	}
	return ht
}

// pattern returns the reason the link's URL looks like a trap, or "".
// It looks at the URL alone.
func (t *traps) pattern(l *Link, path, keyQuery string) string {
	c := &t.cfg
	if c.MaxURLLength > 0 && len(l.URL) > c.MaxURLLength {
		return trapURLLength
	}
	var buf [32]string // most paths: no allocation
	segs := appendPathSegments(buf[:0], path)
	if c.MaxPathDepth > 0 && len(segs) > c.MaxPathDepth {
		return trapPathDepth
	}
	if c.MaxPathRepeats > 1 && repeatsRun(segs, c.MaxPathRepeats) {
		return trapRepeats
	}
	if c.MaxQueryParams > 0 && countParams(keyQuery) > c.MaxQueryParams {
		return trapParams
	}
	return ""
}

// patternFilter refuses URLs that look like traps by themselves.
type patternFilter struct{ c *Crawler }

func (f patternFilter) filter(cd *candidate) verdict {
	return f.c.trapVerdict(cd, f.c.traps.pattern(&cd.link, cd.path, cd.query))
}

// hostOpenFilter refuses the new URLs of a host that spent its page
// budget, or that the anomaly throttle demoted.
type hostOpenFilter struct{ c *Crawler }

func (f hostOpenFilter) filter(cd *candidate) verdict {
	if cd.sitemapSourced() || cd.link.Embed > 0 {
		return pass
	}
	return f.c.trapVerdict(cd, f.c.traps.open(cd.link.Host))
}

// calendarFilter bounds the steps through a calendar: a dated URL found
// on a page of the same calendar template.
type calendarFilter struct{ c *Crawler }

func (f calendarFilter) filter(cd *candidate) verdict {
	if cd.sitemapSourced() || cd.link.Embed > 0 || f.c.cfg.Traps.MaxCalendarSteps < 0 {
		return pass
	}
	cal := calendarTemplate(cd.path, cd.query)
	if cal == "" {
		return pass
	}
	step := cd.link.Host == cd.page.task.Host && cal == f.c.pageCalendar(cd.page)
	if !f.c.traps.calendarStep(&cd.link, cal, step) {
		return f.c.trapVerdict(cd, trapCalendar)
	}
	return pass
}

// anomalyFilter is the last trap defence: it admits, and counts the URL
// among the distinct URLs its host yielded, which may demote the host
// (its later URLs are then refused by hostOpenFilter).
type anomalyFilter struct{ c *Crawler }

func (f anomalyFilter) filter(cd *candidate) verdict {
	if !cd.sitemapSourced() && cd.link.Embed == 0 && f.c.traps.account(&cd.link) {
		f.c.stats.demotedHosts.Add(1)
	}
	return pass
}

// trapVerdict turns a trap reason ("" for none) into a verdict, logging
// a refusal at debug level.
func (c *Crawler) trapVerdict(cd *candidate, reason string) verdict {
	if reason == "" {
		return pass
	}
	if cd.page.debug {
		c.log.Debug("trap", "url", cd.link.URL, "from", cd.page.task.URL, "reason", reason)
	}
	return verdict(reason)
}

// open returns the reason the host takes no new URLs ("" if it does).
func (t *traps) open(host string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ht := t.host(host)
	switch {
	case ht.budget >= 0 && ht.fetched >= ht.budget:
		return trapHostPages
	case ht.demoted:
		return trapAnomaly
	}
	return ""
}

// calendarStep decides on a link of calendar template cal; step says
// it was found on a page of the same template and host.
func (t *traps) calendarStep(l *Link, cal string, step bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.host(l.Host).calendarAdmit(cal, maphash.String(t.seed, l.Key), step, t.cfg.MaxCalendarSteps)
}

// account records an admitted link among its host's distinct URLs and
// reports whether that demoted the host.
func (t *traps) account(l *Link) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ht := t.host(l.Host)
	// xxhash, not maphash: the sketch is stored, and must count a URL
	// seen before the restart once.
	if ht.urls.add(xxhash.Sum64String(l.Key)) {
		return t.judge(l.Host, ht)
	}
	return false
}

// calendarAdmit decides on a calendar URL of template cal with key hash
// k; step reports that it was found on a page of the same template.
func (ht *hostTraps) calendarAdmit(cal string, k uint64, step bool, maxSteps int) bool {
	cs := ht.calendar[cal]
	if cs == nil {
		if len(ht.calendar) >= maxCalTemplate {
			// Too many templates to remember: treat every step as one
			// past the limit, still admitting entries from ordinary pages.
			return !step
		}
		if ht.calendar == nil {
			ht.calendar = make(map[string]*calendarState)
		}
		cs = &calendarState{keys: make(map[uint64]bool), hash: xxhash.Sum64String(cal)}
		ht.restoredCalendar(cs)
		ht.calendar[cal] = cs
	}
	if cs.keys[k] {
		return true // seen before: a repeat, not a new step
	}
	if step {
		if cs.steps >= maxSteps {
			return false
		}
		cs.steps++
		ht.store.dirty = true
	}
	if len(cs.keys) < maxCalKeys {
		cs.keys[k] = true
	}
	return true
}

// judge runs the discovery-anomaly check after the host's distinct URL
// count grew, and reports whether it demoted the host. Called with t.mu
// held.
func (t *traps) judge(host string, ht *hostTraps) bool {
	a := t.cfg.Anomaly
	if a.MinURLs < 0 || ht.demoted {
		return false
	}
	found := ht.urls.estimate()
	if found < float64(a.MinURLs) || found <= a.Ratio*float64(max(ht.fetched, 1)) {
		return false
	}
	ht.demoted, ht.store.dirty = true, true
	if b := ht.fetched + a.Pages; ht.budget < 0 || b < ht.budget {
		ht.budget = b
	}
	t.log.Info("host demoted: it yields far more new URLs than pages fetched",
		"host", host, "fetched", ht.fetched, "urls_found", int64(found), "page_budget", ht.budget)
	return true
}

// fetched records a page fetched from host.
func (t *traps) fetched(host string) {
	t.mu.Lock()
	t.host(host).fetched++
	t.mu.Unlock()
}

// mayFetch reports whether host has page budget left.
func (t *traps) mayFetch(host string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ht := t.hosts[host]
	return ht == nil || ht.budget < 0 || ht.fetched < ht.budget
}

// pathSegments splits an absolute path into its segments, without the
// leading and trailing slash.
func pathSegments(path string) []string { return appendPathSegments(nil, path) }

// appendPathSegments appends the segments of path (pathSegments) to dst.
func appendPathSegments(dst []string, path string) []string {
	path = strings.TrimPrefix(path, "/")
	path = strings.TrimSuffix(path, "/")
	if path == "" {
		return dst
	}
	for {
		i := strings.IndexByte(path, '/')
		if i < 0 {
			return append(dst, path)
		}
		dst = append(dst, path[:i])
		path = path[i+1:]
	}
}

// maxRunLength bounds the length of the repeated run repeatsRun looks
// for, so that the check stays linear in the path; a longer run repeated
// three times is deeper than any sensible MaxPathDepth anyway.
const maxRunLength = 16

// repeatsRun reports whether some run of consecutive segments repeats n
// times back to back.
func repeatsRun(segs []string, n int) bool {
	for l := 1; l <= maxRunLength && l*n <= len(segs); l++ {
		same := 0 // consecutive positions i with segs[i] == segs[i+l]
		for i := 0; i+l < len(segs); i++ {
			if segs[i] != segs[i+l] {
				same = 0
				continue
			}
			same++
			if same >= l*(n-1) {
				return true
			}
		}
	}
	return false
}

// countParams counts the parameters of a query.
func countParams(q string) int {
	n := 0
	for q != "" {
		var p string
		p, q, _ = strings.Cut(q, "&")
		if p != "" {
			n++
		}
	}
	return n
}

// hyperLogLog estimates the number of distinct hashes added, in 256
// bytes, within about 7%: plenty to tell 200 URLs per page from 20.
type hyperLogLog struct {
	reg   [256]uint8
	est   float64
	dirty bool
}

// add adds h and reports whether the estimate may have changed.
func (s *hyperLogLog) add(h uint64) bool {
	i := h >> 56 // the top 8 bits pick the register
	// The rank is the position of the lowest 1 in the other 56 bits.
	rank := uint8(bits.TrailingZeros64(h|1<<56) + 1)
	if rank <= s.reg[i] {
		return false
	}
	s.reg[i] = rank
	s.dirty = true
	return true
}

func (s *hyperLogLog) estimate() float64 {
	if !s.dirty {
		return s.est
	}
	const m = float64(len(s.reg))
	sum, zeros := 0.0, 0
	for _, r := range s.reg {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	e := 0.7213 / (1 + 1.079/m) * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros)) // linear counting for small sets
	}
	s.est, s.dirty = e, false
	return e
}
