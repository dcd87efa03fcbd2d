package fakeweb

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Changing pages (Config.Changing). Page /c/N of a host changes at the
// events of a Poisson process of its own, drawn from (Seed, host, N), or
// with ChangingConfig.Periodic at fixed, synchronized instants: its
// version at time t is the number of events in (Start, t]. The events are
// generated on demand, in order, and kept, so that a version is computed
// once and always the same whatever the order of the requests.

const changePrefix = "/c/"

// Rate classes of changing pages, as Report.FreshnessByClass names them.
const (
	ChangeFast   = "fast"
	ChangeSlow   = "slow"
	ChangeStatic = "never"
)

// ChangingConfig tunes Config.Changing. Host pages /c/0../c/{Fast-1}
// change often, the next Slow pages rarely, the next Static pages never.
type ChangingConfig struct {
	// Fast, Slow and Static count the pages per host of each class. Zero
	// means 4, 4 and 2; a negative value means none.
	Fast, Slow, Static int
	// FastMean and SlowMean are the mean times between two changes of a
	// fast and of a slow page: each page's own mean is its class's times
	// a factor drawn from Seed between 1/2 and 2 (see ChangeMean). Zero
	// means 3s and 2m.
	FastMean, SlowMean time.Duration
	// Start is when every page is at version 0; zero means the time New
	// runs, by Config.Now. Before Start every page is at version 0.
	Start time.Time
	// Periodic makes the changes periodic and synchronized instead of
	// Poisson: every fast page changes at exactly Start + k×FastMean and
	// every slow page at Start + k×SlowMean (k = 1, 2, ...), all pages of
	// a class at the same instants, on every host (no per-page factor).
	Periodic bool
}

func (c *ChangingConfig) defaults() {
	for _, f := range []struct {
		v *int
		d int
	}{{&c.Fast, 4}, {&c.Slow, 4}, {&c.Static, 2}} {
		if *f.v == 0 {
			*f.v = f.d
		}
	}
	if c.FastMean == 0 {
		c.FastMean = 3 * time.Second
	}
	if c.SlowMean == 0 {
		c.SlowMean = 2 * time.Minute
	}
}

// maxChangePages bounds the changing pages per host.
const maxChangePages = 10000

func (c ChangingConfig) validate() error {
	var errs []error
	if n := c.pages(); n > maxChangePages {
		errs = append(errs, fmt.Errorf("fakeweb: %d changing pages per host exceeds %d", n, maxChangePages))
	}
	if c.FastMean < time.Millisecond || c.SlowMean < time.Millisecond {
		errs = append(errs, fmt.Errorf("fakeweb: changing means %v and %v must be at least 1ms", c.FastMean, c.SlowMean))
	}
	return errors.Join(errs...)
}

// pages is the number of /c/N pages per host.
func (c ChangingConfig) pages() int { return max(c.Fast, 0) + max(c.Slow, 0) + max(c.Static, 0) }

// changePages is the number of truth slots per host Changing adds.
func (c Config) changePages() int {
	if !c.Changing {
		return 0
	}
	return c.ChangingConfig.pages()
}

// changeClass is the rate class of /c/n and its class mean (0: never).
func (w *Web) changeClass(n int) (string, time.Duration) {
	c := w.cfg.ChangingConfig
	switch {
	case n < max(c.Fast, 0):
		return ChangeFast, c.FastMean
	case n < max(c.Fast, 0)+max(c.Slow, 0):
		return ChangeSlow, c.SlowMean
	}
	return ChangeStatic, 0
}

// changeIndex returns n for a cleaned path /c/n.
func (w *Web) changeIndex(clean string) (int, bool) {
	s, ok := strings.CutPrefix(clean, changePrefix)
	if !ok || !w.cfg.Changing {
		return 0, false
	}
	n, ok := parseIndex(s)
	return n, ok && n < w.cfg.ChangingConfig.pages()
}

// changeProc is the change process of one page: its mean and the change
// times drawn so far, in increasing order.
type changeProc struct {
	mean     time.Duration // 0: never changes
	periodic bool          // changes every mean exactly (ChangingConfig.Periodic)
	src      rand.PCG
	r        *rand.Rand
	times    []time.Time
}

// changeState holds every change process drawn so far, keyed by
// host*pages+n. The processes depend on nothing but Seed and Start, so
// Reset leaves them alone.
type changeState struct {
	mu    sync.Mutex
	procs map[int]*changeProc
}

// changeProc returns the process of /c/n on host, created on first use. The
// caller holds s.mu.
func (w *Web) changeProc(host, n int) *changeProc {
	s := &w.changes
	key := host*w.cfg.ChangingConfig.pages() + n
	if p := s.procs[key]; p != nil {
		return p
	}
	if s.procs == nil {
		s.procs = map[int]*changeProc{}
	}
	p := &changeProc{}
	p.src.Seed(uint64(w.cfg.Seed), streamID(streamChange, host, n))
	p.r = rand.New(&p.src)
	if _, mean := w.changeClass(n); mean > 0 {
		if w.cfg.ChangingConfig.Periodic {
			p.mean, p.periodic = mean, true
		} else {
			// 2^U(-1,1): rates spread over a factor of four within a class.
			p.mean = time.Duration(float64(mean) * math.Exp2(2*p.r.Float64()-1))
		}
	}
	s.procs[key] = p
	return p
}

// extend draws change times until one is after t.
func (p *changeProc) extend(start, t time.Time) {
	if p.mean == 0 {
		return
	}
	for len(p.times) == 0 || !p.times[len(p.times)-1].After(t) {
		p.draw(start)
	}
}

// draw draws the next change time.
func (p *changeProc) draw(start time.Time) {
	last := start
	if len(p.times) > 0 {
		last = p.times[len(p.times)-1]
	}
	if p.periodic {
		p.times = append(p.times, start.Add(time.Duration(len(p.times)+1)*p.mean))
		return
	}
	gap := time.Duration(p.r.ExpFloat64() * float64(p.mean))
	p.times = append(p.times, last.Add(max(gap, time.Nanosecond)))
}

// pageVersion is the state of a changing page at one time.
type pageVersion struct {
	v    int       // version: the number of changes so far
	at   time.Time // when version v began (Start for version 0)
	next time.Time // when version v ends; zero if never
	// sameSecond is set when the previous version began in the same
	// second as this one, so that a Last-Modified cannot tell them apart.
	sameSecond bool
}

// version returns the version of /c/n on host at t.
func (w *Web) version(host, n int, t time.Time) pageVersion {
	start := w.cfg.ChangingConfig.Start
	w.changes.mu.Lock()
	defer w.changes.mu.Unlock()
	p := w.changeProc(host, n)
	p.extend(start, t)
	v := sort.Search(len(p.times), func(i int) bool { return p.times[i].After(t) })
	pv := pageVersion{v: v, at: start}
	if v > 0 {
		pv.at = p.times[v-1]
		prev := start
		if v > 1 {
			prev = p.times[v-2]
		}
		pv.sameSecond = prev.Unix() == pv.at.Unix()
	}
	if v < len(p.times) {
		pv.next = p.times[v]
	}
	return pv
}

// changeTime returns when /c/n of host took version v (Start for 0),
// drawing as many changes as that needs.
func (w *Web) changeTime(host, n, v int) (time.Time, bool) {
	start := w.cfg.ChangingConfig.Start
	if v == 0 {
		return start, true
	}
	w.changes.mu.Lock()
	defer w.changes.mu.Unlock()
	p := w.changeProc(host, n)
	if p.mean == 0 {
		return time.Time{}, false
	}
	for len(p.times) < v {
		p.draw(start)
	}
	return p.times[v-1], true
}

// changeResponse answers /c/n of host at t: a small page naming its
// version, with validators of that version.
func (w *Web) changeResponse(host, n int, t time.Time) response {
	pv := w.version(host, n, t)
	class, _ := w.changeClass(n)
	v := strconv.Itoa(pv.v)
	resp := leafPage(w.hostName(host), "Changing page "+strconv.Itoa(n),
		"<p>This page changes "+changeWords[class]+". Version "+v+", since "+
			pv.at.UTC().Format(time.RFC3339Nano)+".</p>\n")
	resp.etag = `"c` + strconv.Itoa(host) + "-" + strconv.Itoa(n) + "-v" + v + `"`
	resp.lastModified = pv.at.UTC().Truncate(time.Second)
	resp.imsAmbiguous = pv.sameSecond
	resp.version = pv.v
	return resp
}

var changeWords = map[string]string{ChangeFast: "often", ChangeSlow: "rarely", ChangeStatic: "never"}

// ChangeMean returns the mean time between two changes of the changing
// page rawURL (/c/N with Config.Changing), 0 for a page that never
// changes; ok is false for any other URL.
func (w *Web) ChangeMean(rawURL string) (mean time.Duration, ok bool) {
	host, clean, ok := w.parseURL(rawURL)
	if !ok {
		return 0, false
	}
	n, ok := w.changeIndex(clean)
	if !ok {
		return 0, false
	}
	w.changes.mu.Lock()
	defer w.changes.mu.Unlock()
	return w.changeProc(host, n).mean, true
}

// Version returns the version of the changing page rawURL at t and the
// time that version began (ChangingConfig.Start for version 0); ok is
// false for any URL but a /c/N page of Config.Changing.
func (w *Web) Version(rawURL string, t time.Time) (v int, since time.Time, ok bool) {
	host, clean, ok := w.parseURL(rawURL)
	if !ok {
		return 0, time.Time{}, false
	}
	n, ok := w.changeIndex(clean)
	if !ok {
		return 0, time.Time{}, false
	}
	pv := w.version(host, n, t)
	return pv.v, pv.at, true
}

// changefreq is the sitemap changefreq closest to a mean time between
// changes (0: never).
func changefreq(mean time.Duration) string {
	switch {
	case mean == 0:
		return "never"
	case mean < time.Hour:
		return "always"
	case mean < 24*time.Hour:
		return "hourly"
	case mean < 7*24*time.Hour:
		return "daily"
	case mean < 30*24*time.Hour:
		return "weekly"
	case mean < 365*24*time.Hour:
		return "monthly"
	}
	return "yearly"
}

// sitemapChangeHints writes the hints of /c/n of host in a sitemap at t:
// lastmod the current version's time, changefreq from its mean.
func (w *Web) sitemapChangeHints(host, n int, t time.Time) string {
	pv := w.version(host, n, t)
	w.changes.mu.Lock()
	mean := w.changeProc(host, n).mean
	w.changes.mu.Unlock()
	return "    <lastmod>" + pv.at.UTC().Truncate(time.Second).Format(time.RFC3339) + "</lastmod>\n" +
		"    <changefreq>" + changefreq(mean) + "</changefreq>\n"
}

// writeChangeLinks links the home page to every changing page.
func (w *Web) writeChangeLinks(p *pageWriter) {
	p.s("<ul class=\"changing\">\n")
	for n := range w.cfg.ChangingConfig.pages() {
		path := changePrefix + strconv.Itoa(n)
		p.s(`<li><a href="`, path, `">`, path, "</a></li>\n")
	}
	p.s("</ul>\n")
}

// notModifiedResp decides a conditional request for resp: notModified,
// except that If-Modified-Since alone is not trusted when two versions
// share the second of the Last-Modified.
func notModifiedResp(h http.Header, resp response) bool {
	if resp.imsAmbiguous && len(h.Values("If-None-Match")) == 0 {
		return false
	}
	return notModified(h, resp.etag, resp.lastModified)
}
