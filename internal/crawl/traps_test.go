package crawl

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fetch"
)

// nop satisfies Frontier, Fetcher and Archive for tests that call
// discover directly. (crawltest imports this package, so it cannot be
// used here.)
type nop struct{}

func (nop) Add(context.Context, []Link) (int, error)       { return 0, nil }
func (nop) Next(context.Context) (Lease, error)            { return Lease{}, ErrExhausted }
func (nop) Complete(context.Context, Lease, Outcome) error { return nil }
func (nop) Stats() FrontierStats                           { return FrontierStats{} }
func (nop) Fetch(context.Context, fetch.Request) (*fetch.Response, error) {
	return nil, fmt.Errorf("nop: no fetching")
}
func (nop) Decode(r *fetch.Response) ([]byte, error) { return r.Body, nil }
func (nop) Record(context.Context, Task, *fetch.Response, Decision) (Capture, error) {
	return Capture{}, nil
}
func (nop) Load(context.Context, Capture) (*fetch.Response, error) {
	return nil, fmt.Errorf("nop: no archive")
}

// newTestCrawler returns a Crawler whose discover can be called directly,
// seeded with seeds (which set the scope).
func newTestCrawler(t *testing.T, cfg Config, seeds ...string) *Crawler {
	t.Helper()
	c, err := New(cfg, Deps{
		Frontier: nop{},
		Fetcher:  nop{},
		Archive:  nop{},
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddSeeds(t.Context(), seeds); err != nil {
		t.Fatal(err)
	}
	return c
}

// found runs discover for links found on page (fetched, at depth 1) and
// returns the URLs it keeps.
func found(c *Crawler, page string, links ...string) []string {
	t := Task{Link: Link{URL: page, Host: hostOf(page), Depth: 1}}
	cands := make([]foundURL, len(links))
	for i, l := range links {
		cands[i] = foundURL{raw: l}
	}
	var urls []string
	for _, l := range c.discover(t, cands) {
		urls = append(urls, l.URL)
	}
	return urls
}

func hostOf(raw string) string {
	rest := raw[strings.Index(raw, "://")+3:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

func TestTrapPatterns(t *testing.T) {
	long := "http://a.example/" + strings.Repeat("x", 2100)
	var deep, deep20 string
	for i := range 21 {
		deep += "/d" + strconv.Itoa(i)
		if i < 20 {
			deep20 += "/d" + strconv.Itoa(i)
		}
	}
	deep = "http://a.example" + deep
	deep20 = "http://a.example" + deep20
	params := "http://a.example/s?" + strings.Repeat("p=1&", 21)
	tests := []struct {
		url, reason string
	}{
		{"http://a.example/", ""},
		{"http://a.example/docs/a/b/", ""},
		{"http://a.example/docs/a/b/a/b/", ""}, // twice is not yet a trap
		{"http://a.example/docs/a/b/a/b/a/b/", trapRepeats},
		{"http://a.example/x/x/x", trapRepeats},
		{"http://a.example/a/b/c/a/b/c/a/b/c/d", trapRepeats},
		{"http://a.example/a/b/a/c/a/b", ""},
		{"http://a.example/2024/06/2024/06/", ""},
		{long, trapURLLength},
		{deep20, ""},
		{deep, trapPathDepth},
		{deep20 + "/", ""},
		{params, trapParams},
		// Tracking and session parameters do not count.
		{"http://a.example/s?" + strings.Repeat("p=1&", 20) + "utm_source=x&sid=2", ""},
	}
	c := newTestCrawler(t, Config{}, "http://a.example/")
	for _, tt := range tests {
		got := found(c, "http://a.example/", tt.url)
		switch {
		case tt.reason == "" && len(got) != 1:
			t.Errorf("discover(%.80q) refused it, want it queued", tt.url)
		case tt.reason != "" && len(got) != 0:
			t.Errorf("discover(%.80q) queued it, want it refused as %s", tt.url, tt.reason)
		}
	}
	s := c.Stats().Traps
	if s.PathRepeats != 3 || s.URLTooLong != 1 || s.PathTooDeep != 1 || s.TooManyParams != 1 {
		t.Errorf("Stats().Traps = %+v, want 3 repeats, 1 long, 1 deep, 1 params", s)
	}
}

func TestTrapsOff(t *testing.T) {
	cfg := Config{Traps: Traps{MaxURLLength: -1, MaxPathDepth: -1, MaxPathRepeats: -1, MaxQueryParams: -1}}
	c := newTestCrawler(t, cfg, "http://a.example/")
	for _, u := range []string{
		"http://a.example/" + strings.Repeat("x", 3000),
		"http://a.example" + strings.Repeat("/d", 40), // deep and repeated
		"http://a.example/s?" + strings.Repeat("p=1&", 30),
	} {
		if got := found(c, "http://a.example/", u); len(got) != 1 {
			t.Errorf("with the defences off, discover(%.60q) refused it", u)
		}
	}
}

func TestRepeatsRun(t *testing.T) {
	tests := []struct {
		path string
		n    int
		want bool
	}{
		{"", 3, false},
		{"/a", 3, false},
		{"/a/a", 3, false},
		{"/a/a/a", 3, true},
		{"/a/a", 2, true},
		{"/x/a/b/a/b/a/b/y", 3, true},
		{"/a/b/a/b/c/a/b", 3, false},
		{"/a/b/c/d/a/b/c/d/a/b/c/d", 3, true},
	}
	for _, tt := range tests {
		if got := repeatsRun(pathSegments(tt.path), tt.n); got != tt.want {
			t.Errorf("repeatsRun(%q, %d) = %v, want %v", tt.path, tt.n, got, tt.want)
		}
	}
}

func TestCalendarTemplate(t *testing.T) {
	tests := []struct{ path, query, want string }{
		{"/", "", ""},
		{"/p/7", "", ""},
		{"/calendar/2026/11/", "", "/calendar/{y}/{m}/"},
		{"/calendar/2026/11/21/", "", "/calendar/{y}/{m}/{d}/"},
		{"/2024/06/some-post", "", "/{y}/{m}/some-post"},
		{"/events/2026-11-21.html", "", "/events/{date}.html"},
		{"/day-2026_11", "", "/day-{date}"},
		{"/events", "date=2026-11-21", "/events?date={date}"},
		{"/events", "d=20261121&view=list", "/events?d={date}&view=list"},
		{"/cal", "month=11&view=m&year=2026", "/cal?month={m}&view=m&year={y}"},
		{"/cal", "day=3&month=11&year=2026", "/cal?day={d}&month={m}&year={y}"},
		// Not dates: a year alone, numbers out of range, long numbers.
		{"/archive/2026/", "", ""},
		{"/products/1999/99/", "", ""},
		{"/item/12026/11", "", ""},
		{"/p/2026", "year=2026", ""},
		{"/id/202611219", "", ""},
		{"/v/2026-13", "", ""},
	}
	for _, tt := range tests {
		if got := calendarTemplate(tt.path, tt.query); got != tt.want {
			t.Errorf("calendarTemplate(%q, %q) = %q, want %q", tt.path, tt.query, got, tt.want)
		}
	}
}

// month is the URL of a calendar page.
func month(y, m int) string {
	for m < 1 {
		y, m = y-1, m+12
	}
	for m > 12 {
		y, m = y+1, m-12
	}
	return fmt.Sprintf("http://a.example/calendar/%d/%02d/", y, m)
}

// TestCalendarSteps walks an infinite calendar breadth first, each month
// linking to the previous and next, and checks it stops after
// MaxCalendarSteps steps while the ordinary pages go on.
func TestCalendarSteps(t *testing.T) {
	c := newTestCrawler(t, Config{Traps: Traps{MaxCalendarSteps: 4}}, "http://a.example/")
	queue := found(c, "http://a.example/", month(2026, 11), "http://a.example/about")
	if len(queue) != 2 {
		t.Fatalf("entry from the home page refused: %v", queue)
	}
	queued := map[string]bool{}
	for len(queue) > 0 {
		page := queue[0]
		queue = queue[1:]
		if queued[page] || !strings.Contains(page, "/calendar/") {
			continue
		}
		queued[page] = true
		var y, m int
		fmt.Sscanf(page, "http://a.example/calendar/%d/%d/", &y, &m)
		queue = append(queue, found(c, page, month(y, m-1), month(y, m+1), page, "http://a.example/about")...)
	}
	if len(queued) != 1+4 {
		t.Errorf("the crawl queued %d calendar pages, want the entry and 4 steps: %v", len(queued), queued)
	}
	if s := c.Stats().Traps.Calendar; s == 0 {
		t.Error("no calendar refusal counted")
	}
	// An archive page listing many months is not stepping: all are queued.
	var months []string
	for m := 1; m <= 30; m++ {
		months = append(months, month(2020, m))
	}
	if got := found(c, "http://a.example/archive", months...); len(got) != 30 {
		t.Errorf("an archive index of 30 months: %d queued, want 30", len(got))
	}
}

func TestHostPageBudget(t *testing.T) {
	c := newTestCrawler(t, Config{Traps: Traps{HostPages: 3}}, "http://a.example/", "http://b.example/")
	for i := range 3 {
		if !c.traps.mayFetch("a.example") {
			t.Fatalf("page %d: budget spent too early", i)
		}
		found(c, "http://a.example/p/"+strconv.Itoa(i)) // one page fetched
	}
	if c.traps.mayFetch("a.example") {
		t.Error("mayFetch after 3 pages with a budget of 3")
	}
	if !c.traps.mayFetch("b.example") {
		t.Error("another host's budget was spent")
	}
	got := found(c, "http://b.example/", "http://a.example/new", "http://b.example/new")
	if len(got) != 1 || got[0] != "http://b.example/new" {
		t.Errorf("discover = %v, want only the link to the host with budget left", got)
	}
	if s := c.Stats().Traps.HostBudget; s != 1 {
		t.Errorf("Traps.HostBudget = %d, want 1", s)
	}
}

// TestAnomalyThrottle: a host that yields hundreds of new URLs per page
// is demoted and capped; a big but ordinary host is not.
func TestAnomalyThrottle(t *testing.T) {
	cfg := Config{Traps: Traps{Anomaly: AnomalyThrottle{MinURLs: 2000, Ratio: 50, Pages: 5}}}
	c := newTestCrawler(t, cfg, "http://trap.example/", "http://big.example/")
	r := rand.New(rand.NewPCG(1, 2))
	// The trap: every page links to 500 URLs never seen before.
	newLinks := func() []string {
		links := make([]string, 500)
		for i := range links {
			links[i] = fmt.Sprintf("http://trap.example/s/%d", r.Uint64())
		}
		return links
	}
	// The page that demotes the host is the one during which the count
	// of distinct URLs crossed the line; that may be on its last link,
	// so the refusals are judged on the page after it.
	pages := 0
	for pages = 1; pages <= 20 && c.Stats().Traps.DemotedHosts == 0; pages++ {
		found(c, fmt.Sprintf("http://trap.example/p%d", pages), newLinks()...)
	}
	pages--
	if s := c.Stats().Traps; s.DemotedHosts != 1 {
		t.Fatalf("after %d trap pages: %+v; want the host demoted", pages, s)
	}
	if pages > 8 {
		t.Errorf("demoted after %d pages (%d URLs), want about 2000/500+1", pages, pages*500)
	}
	// Capped: Pages more fetches, then none; the new URLs of each are
	// refused.
	for i := range 5 {
		if !c.traps.mayFetch("trap.example") {
			t.Fatalf("demoted host stopped after %d more pages, want 5", i)
		}
		if got := found(c, fmt.Sprintf("http://trap.example/q%d", i), newLinks()...); len(got) != 0 {
			t.Fatalf("a demoted host's page queued %d new URLs, want none", len(got))
		}
	}
	if c.traps.mayFetch("trap.example") {
		t.Error("demoted host may still fetch past its cap")
	}
	// An ordinary big host: 20 new links per page, for 400 pages.
	for p := range 400 {
		links := make([]string, 20)
		for i := range links {
			links[i] = fmt.Sprintf("http://big.example/a/%d", p*20+i)
		}
		if got := found(c, fmt.Sprintf("http://big.example/a/%d", p), links...); len(got) != 20 {
			t.Fatalf("big host: page %d, %d of 20 links queued", p, len(got))
		}
	}
	if d := c.Stats().Traps.DemotedHosts; d != 1 {
		t.Errorf("DemotedHosts = %d, want only the trap host", d)
	}
}

func TestHyperLogLog(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 10, 100, 1000, 10000, 100000} {
		var h hyperLogLog
		for range n {
			x := r.Uint64()
			h.add(x)
			h.add(x) // repeats do not count
		}
		got := h.estimate()
		if d := got - float64(n); d > 0.25*float64(n)+2 || d < -0.25*float64(n)-2 {
			t.Errorf("estimate of %d distinct = %.0f, want within 25%%", n, got)
		}
	}
}

func TestScopeRules(t *testing.T) {
	cfg := Config{
		Scope:   ScopeHost,
		Include: ScopeRules{Prefixes: []string{"HTTP://CDN.Example.net/assets"}, Patterns: []string{`^https?://docs\.example\.org/`}},
		Exclude: ScopeRules{Prefixes: []string{"http://a.example/private/"}, Patterns: []string{`\.(jpg|png)$`}},
	}
	c := newTestCrawler(t, cfg, "http://a.example/")
	tests := []struct {
		url string
		in  bool
		why string
	}{
		{"http://a.example/p", true, scopeSeeds},
		{"http://a.example/private/x", false, scopeExcluded},
		{"http://a.example/logo.png", false, scopeExcluded},
		{"http://b.example/", false, scopeOutside},
		{"http://cdn.example.net/assets/app.js", true, scopeIncluded},
		{"http://cdn.example.net/other", false, scopeOutside},
		{"https://docs.example.org/guide", true, scopeIncluded},
		{"https://docs.example.org/img.jpg", false, scopeExcluded},
	}
	for _, tt := range tests {
		got := found(c, "http://a.example/", tt.url)
		if (len(got) == 1) != tt.in {
			t.Errorf("discover(%q) in scope = %v, want %v (%s)", tt.url, len(got) == 1, tt.in, tt.why)
		}
		u, _ := parseURL(tt.url)
		if in, why, _ := c.scope.decide(u, tt.url); in != tt.in || why != tt.why {
			t.Errorf("decide(%q) = %v, %s; want %v, %s", tt.url, in, why, tt.in, tt.why)
		}
	}
	s := c.Stats()
	if s.ScopeExcluded != 3 || s.ScopeIncluded != 2 || s.OutOfScope != 5 {
		t.Errorf("stats: excluded %d, included %d, out of scope %d; want 3, 2, 5", s.ScopeExcluded, s.ScopeIncluded, s.OutOfScope)
	}
}

func TestRedirectOutOfScope(t *testing.T) {
	c := newTestCrawler(t, Config{Scope: ScopeHost}, "http://a.example/")
	task := Task{Link: Link{URL: "http://a.example/old", Host: "a.example"}}
	links := c.discover(task, []foundURL{{raw: "http://elsewhere.example/new", redirect: true}})
	if len(links) != 0 {
		t.Errorf("a redirect out of scope was queued: %v", links)
	}
	if s := c.Stats(); s.RedirectsOutOfScope != 1 || s.OutOfScope != 1 {
		t.Errorf("RedirectsOutOfScope = %d, OutOfScope = %d; want 1, 1", s.RedirectsOutOfScope, s.OutOfScope)
	}
}

func TestConfigScopeAndTraps(t *testing.T) {
	var cfg Config
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate(defaults) = %v", err)
	}
	want := Traps{MaxURLLength: 2048, MaxPathDepth: 20, MaxPathRepeats: 3, MaxQueryParams: 20, MaxCalendarSteps: 6,
		HostPages: 100_000, TemplatePages: 10, TemplateHops: 5, Anomaly: AnomalyThrottle{MinURLs: 20_000, Ratio: 200, Pages: 1000}}
	if cfg.Traps != want {
		t.Errorf("Traps.Default() = %+v, want %+v", cfg.Traps, want)
	}
	bad := cfg
	bad.Include = ScopeRules{Prefixes: []string{"example.com/x"}, Patterns: []string{"("}}
	bad.Exclude = ScopeRules{Patterns: []string{"[z-a]"}}
	bad.Traps.MaxPathRepeats = 1
	err := bad.Validate()
	if err == nil {
		t.Fatal("Validate accepted bad rules")
	}
	for _, want := range []string{"include prefix", "include pattern", "exclude pattern", "max path repeats"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate error %q does not mention %q", err, want)
		}
	}
}

// TestScopeDecisionLogged: at debug level every scope decision is logged
// with its reason and rule; at info level none is.
func TestScopeDecisionLogged(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo} {
		var buf strings.Builder
		c, err := New(Config{Scope: ScopeHost, Exclude: ScopeRules{Prefixes: []string{"http://a.example/x/"}}}, Deps{
			Frontier: nop{}, Fetcher: nop{}, Archive: nop{},
			Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level})),
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.AddSeeds(t.Context(), []string{"http://a.example/"}); err != nil {
			t.Fatal(err)
		}
		found(c, "http://a.example/", "http://a.example/ok", "http://a.example/x/no", "http://b.example/")
		log := buf.String()
		for _, want := range []string{
			`url=http://a.example/ok from=http://a.example/ in=true why=seeds`,
			`url=http://a.example/x/no from=http://a.example/ in=false why=excluded rule="prefix http://a.example/x/"`,
			`url=http://b.example/ from=http://a.example/ in=false why=outside`,
		} {
			if got := strings.Contains(log, want); got != (level == slog.LevelDebug) {
				t.Errorf("at level %v, log has %q = %v:\n%s", level, want, got, log)
			}
		}
	}
}

// TestPathSegments: the segments are strings.Split's of the path without
// its leading and trailing slash.
func TestPathSegments(t *testing.T) {
	for _, p := range []string{"", "/", "//", "/a", "/a/", "/a/b/c", "/a//b/", "a/b", "/a/b//", strings.Repeat("/x", 40)} {
		want := []string(nil)
		if q := strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/"); q != "" {
			want = strings.Split(q, "/")
		}
		if got := pathSegments(p); !slices.Equal(got, want) {
			t.Errorf("pathSegments(%q) = %q, want %q", p, got, want)
		}
	}
}
