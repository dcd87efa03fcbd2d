package crawl

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// restartable runs pages of one crawl through a Crawler that can be
// replaced by a new one (a restart, or another cluster node), carrying
// only what the frontier would: the seen-set and the trap state the last
// outcome of each host handed over.
type restartable struct {
	t      *testing.T
	cfg    Config
	seeds  []string
	c      *Crawler
	seen   map[string]bool
	stored map[string]*HostTraps
	writes int // outcomes that carried trap state
}

func newRestartable(t *testing.T, cfg Config, seeds ...string) *restartable {
	r := &restartable{t: t, cfg: cfg, seeds: seeds, seen: map[string]bool{}, stored: map[string]*HostTraps{}}
	r.restart()
	return r
}

func (r *restartable) restart() { r.c = newTestCrawler(r.t, r.cfg, r.seeds...) }

// lease is a lease of host as the frontier would hand it out.
func (r *restartable) lease(host string) Lease {
	return Lease{Task: Task{Link: Link{Host: host}}, Traps: r.stored[host]}
}

// complete keeps the trap state out carries, as the frontier does.
func (r *restartable) complete(host string) {
	var out Outcome
	r.c.traps.persist(host, &out)
	if out.Traps != nil {
		r.stored[host] = out.Traps
		r.writes++
	}
}

// page fetches page at depth (crawlPage) under a lease of its host.
func (r *restartable) page(page string, depth int, links ...string) []string {
	host := hostOf(page)
	r.c.traps.load(r.lease(host))
	got := crawlPage(r.c, r.seen, page, depth, links...)
	r.complete(host)
	return got
}

// sessionChain crawls the closed session chain of TestTemplateClosedChain
// breadth first, restarting the crawler after every `every` pages (0:
// never), and returns the chain's pages fetched.
func sessionChain(t *testing.T, every int) (fetched int, r *restartable) {
	r = newRestartable(t, Config{}, "http://a.example/")
	r.page("http://a.example/", 0, "/sess/1")
	queue := []int{1}
	queued := map[int]bool{1: true}
	for len(queue) > 0 && fetched < 100 {
		n := queue[0]
		queue = queue[1:]
		fetched++
		if every > 0 && fetched%every == 0 {
			r.restart()
		}
		for _, u := range r.page("http://a.example/sess/"+strconv.Itoa(n), 1+n/2,
			"/sess/"+strconv.Itoa(n+1), "/sess/"+strconv.Itoa(n+2)) {
			var m int
			if _, err := fmt.Sscanf(u, "http://a.example/sess/%d", &m); err == nil && !queued[m] {
				queued[m] = true
				queue = append(queue, m)
			}
		}
	}
	return fetched, r
}

// TestTemplateStateSurvivesRestart: a trap template's learning carries
// over a restart: a session chain crawled by a crawler restarted every 3
// pages is cut after as many pages as without restarts (without the
// stored state it is never cut: no crawler sees the 5 barren pages).
func TestTemplateStateSurvivesRestart(t *testing.T) {
	want, r := sessionChain(t, 0)
	if want > 9 {
		t.Fatalf("uninterrupted: %d pages of the chain, want at most 9", want)
	}
	for _, every := range []int{1, 2, 3, 5} {
		got, r := sessionChain(t, every)
		if got != want {
			t.Errorf("restarted every %d pages: %d pages of the chain fetched, want %d as without restarts", every, got, want)
		}
		if r.c.Stats().Traps.Template == 0 {
			t.Errorf("restarted every %d pages: no template refusal", every)
		}
	}
	// Once the template is exhausted, its barren pages change nothing
	// the stored state keeps: no more writes (on a host with a count of
	// pages large enough that 20 more do not call for storing it).
	for i := range 1000 {
		found(r.c, "http://a.example/p/"+strconv.Itoa(i))
	}
	r.complete("a.example")
	before := r.writes
	for n := 200; n < 220; n++ {
		r.page("http://a.example/sess/"+strconv.Itoa(n), 100, "/sess/"+strconv.Itoa(n+1))
	}
	if r.writes != before {
		t.Errorf("20 more barren pages of an exhausted template wrote the state %d times, want none", r.writes-before)
	}
}

// TestCalendarStateSurvivesRestart: the steps taken through a calendar
// carry over a restart.
func TestCalendarStateSurvivesRestart(t *testing.T) {
	r := newRestartable(t, Config{Traps: Traps{MaxCalendarSteps: 4, TemplatePages: -1}}, "http://a.example/")
	r.page("http://a.example/", 0, strings.TrimPrefix(month(2026, 11), "http://a.example"))
	queued := 0
	for ; queued < 50; queued++ {
		r.restart()
		next := strings.TrimPrefix(month(2026, 12+queued), "http://a.example")
		if got := r.page(month(2026, 11+queued), 1+queued, next); len(got) == 0 {
			break
		}
	}
	if queued != 4 {
		t.Errorf("a calendar crawled with a restart before every page: %d steps queued, want 4", queued)
	}
}

// TestPageBudgetSurvivesRestart: the pages fetched from a host count
// against its budget across restarts, but for at most the last eighth
// of the count in each run (fetchedStep). Without the stored count, the
// 20 runs would fetch 1,000 pages.
func TestPageBudgetSurvivesRestart(t *testing.T) {
	const budget = 300
	r := newRestartable(t, Config{Traps: Traps{HostPages: budget}}, "http://a.example/")
	fetched := 0
	for run := 0; run < 20; run++ {
		r.restart()
		for range 50 {
			r.c.traps.load(r.lease("a.example"))
			if !r.c.traps.mayFetch("a.example") {
				break
			}
			found(r.c, "http://a.example/p/"+strconv.Itoa(fetched))
			fetched++
			r.complete("a.example")
		}
	}
	// Each of the 6 or 7 runs before the budget is spent may lose up to
	// an eighth of it: 300/8.
	if limit := budget + 7*budget/8; fetched > limit || fetched < budget {
		t.Errorf("%d pages fetched in 20 runs of 50 with a budget of %d, want %d to %d", fetched, budget, budget, limit)
	}
	if s := r.stored["a.example"]; s == nil || s.Fetched < budget*7/8 {
		t.Errorf("stored state %+v, want the pages fetched counted", s)
	}
}

// TestDemotionSurvivesRestart: a host the anomaly throttle demoted stays
// demoted, its cap and its distinct URLs counted, after a restart.
func TestDemotionSurvivesRestart(t *testing.T) {
	cfg := Config{Traps: Traps{Anomaly: AnomalyThrottle{MinURLs: 2000, Ratio: 50, Pages: 5}}}
	r := newRestartable(t, cfg, "http://trap.example/")
	rnd := rand.New(rand.NewPCG(1, 2))
	newLinks := func() []string {
		links := make([]string, 500)
		for i := range links {
			links[i] = fmt.Sprintf("/s/%d", rnd.Uint64())
		}
		return links
	}
	for p := 1; p <= 20 && r.c.Stats().Traps.DemotedHosts == 0; p++ {
		r.page(fmt.Sprintf("http://trap.example/p%d", p), 1, newLinks()...)
	}
	s := r.stored["trap.example"]
	if s == nil || !s.Demoted || s.Sketch == nil {
		t.Fatalf("stored state %+v, want the host demoted and its sketch", s)
	}
	r.restart()
	r.c.traps.load(r.lease("trap.example"))
	if reason := r.c.traps.open("trap.example"); reason != trapAnomaly {
		t.Errorf("after a restart the demoted host is open (%q)", reason)
	}
	for i := range 6 {
		if !r.c.traps.mayFetch("trap.example") {
			if i != 5 {
				t.Errorf("after a restart the demoted host stopped after %d pages, want 5", i)
			}
			break
		}
		found(r.c, fmt.Sprintf("http://trap.example/q%d", i))
	}
	if r.c.traps.mayFetch("trap.example") {
		t.Error("after a restart the demoted host may fetch past its cap")
	}
	// The sketch came back: the URLs counted before are counted once.
	r.c.traps.mu.Lock()
	est := r.c.traps.hosts["trap.example"].urls.estimate()
	r.c.traps.mu.Unlock()
	if est < 2000 {
		t.Errorf("after a restart the host's distinct URLs are estimated at %.0f, want at least 2000", est)
	}
}

// TestStoredTrapStateBounded: a host with far more templates and
// calendars than are stored hands over at most trapStoreTemplates and
// trapStoreCalendars of them, the most used first, and a template stored
// but not met again in the next run is stored again.
func TestStoredTrapStateBounded(t *testing.T) {
	c := newTestCrawler(t, Config{}, "http://a.example/")
	tr := c.traps
	tr.load(Lease{Task: Task{Link: Link{Host: "a.example"}}})
	for i := range 60 {
		tmpl := "/t" + strconv.Itoa(i) + "/{n}"
		for range i + 1 {
			tr.yielded("a.example", tmpl, 1, 0, false)
		}
		cal := "/cal" + strconv.Itoa(i) + "/{y}/{m}/"
		for k := range i%7 + 1 {
			tr.calendarStep(&Link{Host: "a.example", Key: cal + strconv.Itoa(k)}, cal, true)
		}
	}
	var out Outcome
	tr.persist("a.example", &out)
	s := out.Traps
	if s == nil || len(s.Templates) != trapStoreTemplates || len(s.Calendars) != trapStoreCalendars {
		t.Fatalf("stored %+v, want %d templates and %d calendars", s, trapStoreTemplates, trapStoreCalendars)
	}
	if s.Templates[0].Pages != 60 || s.Templates[trapStoreTemplates-1].Pages != 60-trapStoreTemplates+1 {
		t.Errorf("stored templates %+v, want the %d most fetched", s.Templates, trapStoreTemplates)
	}
	if s.Calendars[0].Steps != 6 {
		t.Errorf("stored calendars %+v, want those with the most steps", s.Calendars)
	}
	// The next run meets one stored template again; the others are
	// stored as they were.
	c2 := newTestCrawler(t, Config{}, "http://a.example/")
	c2.traps.load(Lease{Task: Task{Link: Link{Host: "a.example"}}, Traps: s})
	c2.traps.yielded("a.example", "/t59/{n}", 1, 1, false) // a page that yielded: its barren run ends
	var out2 Outcome
	c2.traps.persist("a.example", &out2)
	if out2.Traps == nil || len(out2.Traps.Templates) != trapStoreTemplates ||
		out2.Traps.Templates[0].Pages != 61 || out2.Traps.Templates[0].Barren != 0 ||
		len(out2.Traps.Calendars) != trapStoreCalendars || out2.Traps.Seq != s.Seq+1 {
		t.Errorf("stored after the next run: %+v, want the same templates (the one met again at 61 pages) and calendars, seq %d",
			out2.Traps, s.Seq+1)
	}
}

// TestTrapStateNewerElsewhere: a lease whose stored state is newer than
// what this process stored (another node held the host meanwhile)
// replaces the process's state; an older or equal one does not.
func TestTrapStateNewerElsewhere(t *testing.T) {
	c := newTestCrawler(t, Config{}, "http://a.example/")
	tr := c.traps
	lease := func(s *HostTraps) Lease { return Lease{Task: Task{Link: Link{Host: "a.example"}}, Traps: s} }
	tr.load(lease(nil))
	tr.yielded("a.example", "/x/{n}", 1, 0, false)
	var out Outcome
	tr.persist("a.example", &out)
	if out.Traps == nil || out.Traps.Seq != 1 {
		t.Fatalf("first state stored: %+v", out.Traps)
	}
	barren := func() int {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		ht := tr.hosts["a.example"]
		if st := ht.templates["/x/{n}"]; st != nil {
			return st.barren
		}
		if st, ok := ht.store.templates[out.Traps.Templates[0].Hash]; ok {
			return st.barren // stored, not met again yet
		}
		return -1
	}
	tr.yielded("a.example", "/x/{n}", 1, 0, false) // not stored yet: barren 2 here
	tr.load(lease(out.Traps))
	if b := barren(); b != 2 {
		t.Errorf("a lease with the state this process stored replaced its newer one: barren %d, want 2", b)
	}
	elsewhere := &HostTraps{Seq: 5, Templates: []TemplateTrap{{Hash: out.Traps.Templates[0].Hash, Pages: 9, Barren: 7}}}
	tr.load(lease(elsewhere))
	if b := barren(); b != 7 {
		t.Errorf("a lease with a newer state stored elsewhere: barren %d, want its 7", b)
	}
}

// TestTrapStateMergedWithDiscovery: what links from other hosts taught
// about a host before its first lease in this process is merged with
// its stored state, not lost, nor allowed to hide it.
func TestTrapStateMergedWithDiscovery(t *testing.T) {
	first := newTestCrawler(t, Config{}, "http://a.example/", "http://b.example/")
	first.traps.load(Lease{Task: Task{Link: Link{Host: "a.example"}}})
	for range 6 {
		first.traps.yielded("a.example", "/sess/{n}", 3, 0, false)
	}
	var out Outcome
	first.traps.persist("a.example", &out)

	c := newTestCrawler(t, Config{}, "http://a.example/", "http://b.example/")
	// b's page links a's chain before a is leased.
	found(c, "http://b.example/", "http://a.example/sess/40")
	c.traps.load(Lease{Task: Task{Link: Link{Host: "a.example"}}, Traps: out.Traps})
	c.traps.mu.Lock()
	st := c.traps.hosts["a.example"].templates["/sess/{n}"]
	c.traps.mu.Unlock()
	if st == nil || st.barren != 6 || st.pages != 6 || st.entry != 2 {
		t.Errorf("merged template state %+v, want 6 barren pages of 6, entry 2 (the shallower link)", st)
	}
}
