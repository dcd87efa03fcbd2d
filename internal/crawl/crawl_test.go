package crawl_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/crawltest"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/frontier"
	"github.com/godwit-crawler/godwit/internal/politeness"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type site map[string]crawltest.Page

// openFrontier opens a frontier in a fresh directory, closed with the test.
func openFrontier(t *testing.T, p politeness.Policy) *frontier.Frontier {
	t.Helper()
	f, err := frontier.Open(frontier.Options{Dir: t.TempDir(), Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// crawlSite crawls pages from seeds with a fast but otherwise default policy
// and returns what the fake web saw and what the archive got.
func crawlSite(t *testing.T, cfg crawl.Config, pages site, seeds ...string) (*crawltest.Fetcher, *crawltest.Archive, crawl.Stats) {
	t.Helper()
	cfg.Politeness = quickPolicy()
	cfg.Politeness.Default()
	f := crawltest.NewFetcher(pages)
	a := &crawltest.Archive{}
	c, err := crawl.New(cfg, crawl.Deps{
		Frontier: openFrontier(t, cfg.Politeness),
		Fetcher:  f,
		Archive:  a,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddSeeds(t.Context(), seeds); err != nil {
		t.Fatal(err)
	}
	if err := c.Run(t.Context()); err != nil {
		t.Fatalf("Run() = %v", err)
	}
	return f, a, c.Stats()
}

func TestRobotsFirstAndObeyed(t *testing.T) {
	pages := site{
		"http://a.test/robots.txt": crawltest.HTML("User-agent: *\nDisallow: /private\n"),
		"http://a.test/":           crawltest.HTML(`<a href="/public">p</a> <a href="/private/x">x</a> <a href="http://b.a.test/">b</a>`),
		"http://a.test/public":     crawltest.HTML(""),
		"http://a.test/private/x":  crawltest.HTML(""),
		"http://b.a.test/":         crawltest.HTML(""),
	}
	f, _, st := crawlSite(t, crawl.Config{}, pages, "http://a.test/")
	reqs := f.Requests()
	seenRobots := map[string]bool{}
	for _, r := range reqs {
		host := strings.Split(strings.TrimPrefix(r, "http://"), "/")[0]
		if strings.HasSuffix(r, "/robots.txt") {
			seenRobots[host] = true
			continue
		}
		if !seenRobots[host] {
			t.Errorf("%s requested before %s/robots.txt", r, host)
		}
	}
	if slices.Contains(reqs, "http://a.test/private/x") {
		t.Error("fetched a path robots.txt disallows")
	}
	for _, want := range []string{"http://a.test/public", "http://b.a.test/"} {
		if !slices.Contains(reqs, want) {
			t.Errorf("%s not fetched; requests: %v", want, reqs)
		}
	}
	if st.RobotsDisallowed != 1 {
		t.Errorf("RobotsDisallowed = %d, want 1", st.RobotsDisallowed)
	}
}

// TestRobotsStatusHandling covers RFC 9309 §2.3.1: 4xx allows everything,
// 5xx and network failures disallow everything (retried, then given up).
func TestRobotsStatusHandling(t *testing.T) {
	tests := []struct {
		name      string
		robots    crawltest.Page
		wantPages bool
		wantTries int
	}{
		{"404 allows all", crawltest.Status(404), true, 1},
		{"403 allows all", crawltest.Status(403), true, 1},
		{"500 disallows all", crawltest.Status(500), false, 3},
		{"503 disallows all", crawltest.Status(503), false, 3},
		{"429 disallows all", crawltest.Status(429), false, 3},
		// KeepTrying: without it, a crawl whose only host never answers
		// gives up at once (TestGivesUpWhenNothingAnswers).
		{"unreachable disallows all", crawltest.Page{Err: fmt.Errorf("dial: %w", context.DeadlineExceeded)}, false, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages := site{
				"http://a.test/robots.txt": tt.robots,
				"http://a.test/":           crawltest.HTML(`<a href="/x">x</a>`),
				"http://a.test/x":          crawltest.HTML(""),
			}
			f, _, st := crawlSite(t, crawl.Config{KeepTrying: true}, pages, "http://a.test/")
			var robots, other int
			for _, r := range f.Requests() {
				if strings.HasSuffix(r, "/robots.txt") {
					robots++
				} else {
					other++
				}
			}
			if robots != tt.wantTries {
				t.Errorf("robots.txt requested %d times, want %d", robots, tt.wantTries)
			}
			if got := other > 0; got != tt.wantPages {
				t.Errorf("pages fetched: %d, want pages fetched = %v", other, tt.wantPages)
			}
			if !tt.wantPages && st.RobotsUnavailable != 1 {
				t.Errorf("RobotsUnavailable = %d, want 1 (the seed)", st.RobotsUnavailable)
			}
		})
	}
}

func TestRobotsRedirectsFollowed(t *testing.T) {
	pages := site{
		"http://a.test/robots.txt":  crawltest.Redirect("https://a.test/robots.txt"),
		"https://a.test/robots.txt": crawltest.HTML("User-agent: godwit\nDisallow: /x\n"),
		"http://a.test/":            crawltest.HTML(`<a href="/x">x</a><a href="/y">y</a>`),
		"http://a.test/y":           crawltest.HTML(""),
	}
	f, _, _ := crawlSite(t, crawl.Config{}, pages, "http://a.test/")
	want := []string{"http://a.test/robots.txt", "https://a.test/robots.txt", "http://a.test/", "http://a.test/y"}
	if got := f.Requests(); !slices.Equal(got, want) {
		t.Errorf("requests = %v, want %v", got, want)
	}
}

func TestRedirectsBecomeLinks(t *testing.T) {
	pages := site{
		"http://a.test/":   crawltest.Redirect("/r1"),
		"http://a.test/r1": crawltest.Redirect("http://a.test/r2"),
		"http://a.test/r2": crawltest.Redirect("/"), // a loop: the seen-set ends it
	}
	for i := 0; i < 10; i++ {
		pages[fmt.Sprintf("http://a.test/c%d", i)] = crawltest.Redirect(fmt.Sprintf("/c%d", i+1))
	}
	pages["http://a.test/r2"] = crawltest.Redirect("/c0")
	f, _, st := crawlSite(t, crawl.Config{MaxRedirects: 5}, pages, "http://a.test/")
	// / → r1 → r2 → c0 → c1 → c2 is five hops; c3 would be the sixth.
	for _, r := range f.Requests() {
		if r == "http://a.test/c3" {
			t.Errorf("followed a sixth redirect: %v", f.Requests())
		}
	}
	if !slices.Contains(f.Requests(), "http://a.test/c2") {
		t.Errorf("fifth redirect not followed: %v", f.Requests())
	}
	if st.TooManyRedirects != 1 || st.Redirects != 6 {
		t.Errorf("TooManyRedirects = %d, Redirects = %d; want 1, 6", st.TooManyRedirects, st.Redirects)
	}
}

func TestScopeAndDepth(t *testing.T) {
	pages := site{
		"http://www.a.test/":  crawltest.HTML(`<a href="http://cdn.a.test/1">same domain</a><a href="http://b.test/">other</a>`),
		"http://cdn.a.test/1": crawltest.HTML(`<a href="http://cdn.a.test/2">deeper</a>`),
		"http://cdn.a.test/2": crawltest.HTML(`<a href="http://cdn.a.test/3">too deep</a>`),
		"http://b.test/":      crawltest.HTML(""),
		"http://cdn.a.test/3": crawltest.HTML(""),
	}
	tests := []struct {
		cfg  crawl.Config
		want []string
	}{
		{crawl.Config{Scope: crawl.ScopeDomain, MaxDepth: 2}, []string{"http://www.a.test/", "http://cdn.a.test/1", "http://cdn.a.test/2"}},
		{crawl.Config{Scope: crawl.ScopeHost}, []string{"http://www.a.test/"}},
		{crawl.Config{Scope: crawl.ScopeAny, MaxDepth: 1}, []string{"http://www.a.test/", "http://cdn.a.test/1", "http://b.test/"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s-depth%d", tt.cfg.Scope, tt.cfg.MaxDepth), func(t *testing.T) {
			f, _, _ := crawlSite(t, tt.cfg, pages, "http://www.a.test/")
			var got []string
			for _, r := range f.Requests() {
				if !strings.HasSuffix(r, "/robots.txt") {
					got = append(got, r)
				}
			}
			slices.Sort(got)
			slices.Sort(tt.want)
			if !slices.Equal(got, tt.want) {
				t.Errorf("fetched %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTransientFailuresRetried(t *testing.T) {
	pages := site{
		"http://a.test/":  crawltest.HTML(`<a href="/e">e</a>`),
		"http://a.test/e": crawltest.Status(503),
	}
	f, a, st := crawlSite(t, crawl.Config{MaxRetries: 2}, pages, "http://a.test/")
	n := 0
	for _, r := range f.Requests() {
		if r == "http://a.test/e" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("503 page fetched %d times, want 3 (1 + 2 retries)", n)
	}
	if st.Transient != 1 || st.Retries != 2 {
		t.Errorf("Transient = %d, Retries = %d; want 1, 2", st.Transient, st.Retries)
	}
	if got := len(a.URLs()); got != 5 { // robots.txt, /, and three 503s: every exchange is archived
		t.Errorf("archived %d responses, want 5", got)
	}
}

// TestArchiveFailureStopsTheCrawl: a crawl that cannot record what it
// fetches must stop rather than fetch on.
func TestArchiveFailureStopsTheCrawl(t *testing.T) {
	pages := site{"http://a.test/": crawltest.HTML(`<a href="/1">1</a>`), "http://a.test/1": crawltest.HTML("")}
	cfg := crawl.Config{}
	cfg.Politeness = quickPolicy()
	cfg.Politeness.Default()
	diskFull := errors.New("disk full")
	c, err := crawl.New(cfg, crawl.Deps{
		Frontier: openFrontier(t, cfg.Politeness),
		Fetcher:  crawltest.NewFetcher(pages),
		Archive:  &crawltest.Archive{Err: diskFull},
	})
	if err != nil {
		t.Fatal(err)
	}
	c.AddSeeds(t.Context(), []string{"http://a.test/"})
	if err := c.Run(t.Context()); !errors.Is(err, diskFull) {
		t.Fatalf("Run() = %v, want the archive's error", err)
	}
	if st := c.Stats(); st.Frontier.Queued != 1 {
		t.Errorf("queued after failure = %d, want the seed kept (1)", st.Frontier.Queued)
	}
}

func TestPolicyRefusalIsNotARequest(t *testing.T) {
	refused := fmt.Errorf("dial 127.0.0.1: %w", fetch.ErrForbiddenAddress)
	pages := site{"http://a.test/robots.txt": {Err: refused}, "http://a.test/": {Err: refused}}
	f, _, st := crawlSite(t, crawl.Config{}, pages, "http://a.test/")
	if got := f.Requests(); len(got) != 1 {
		t.Errorf("requests = %v, want only the refused robots.txt attempt", got)
	}
	if st.Policy != 1 {
		t.Errorf("Policy = %d, want 1", st.Policy)
	}
}

// TestFailuresArchived: every request that was sent and got no response
// is handed to the archive (FailureRecorder) with its kind, class,
// attempt and time: a page's every attempt, a robots.txt whose
// certificate does not verify; a request the SSRF guard refused was not
// sent, and is not.
func TestFailuresArchived(t *testing.T) {
	refused := crawltest.Page{Err: fmt.Errorf("dial: %w", syscall.ECONNREFUSED)}
	pages := site{
		"http://a.test/robots.txt":  crawltest.Status(404),
		"http://a.test/":            crawltest.HTML(`<a href="/down">d</a> <a href="/guarded">g</a>`),
		"http://a.test/down":        refused,
		"http://a.test/guarded":     {Err: fmt.Errorf("dial 10.0.0.1: %w", fetch.ErrForbiddenAddress)},
		"https://b.test/robots.txt": {Err: fmt.Errorf("get: %w", x509.UnknownAuthorityError{})},
	}
	_, a, _ := crawlSite(t, crawl.Config{MaxRetries: 2}, pages, "http://a.test/", "https://b.test/")
	var got []string
	for _, f := range a.Failures() {
		if f.Start.IsZero() || f.End.Before(f.Start) || f.Detail == "" {
			t.Errorf("failure %+v: want a start, an end after it and a detail", f)
		}
		got = append(got, fmt.Sprintf("%s %s %s %d", f.URL, f.Kind, f.Class, f.Attempt))
	}
	slices.Sort(got)
	want := []string{
		"http://a.test/down connection-refused transient 1",
		"http://a.test/down connection-refused transient 2",
		"http://a.test/down connection-refused transient 3",
		"https://b.test/robots.txt tls-unknown-authority permanent 1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("failures archived:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []crawl.Config{
		{Workers: -1},
		{MaxDepth: -1},
		{Scope: "planet"},
		{MaxPages: -5},
	}
	for _, cfg := range tests {
		cfg.Default()
		if err := cfg.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", cfg)
		}
	}
	var ok crawl.Config
	ok.Default()
	if err := ok.Validate(); err != nil {
		t.Errorf("default config invalid: %v", err)
	}
}

// TestRobotsLongOutageAllows: once robots.txt has been unreachable for
// RobotsAllowAfter, the host is crawled as if it had none (RFC 9309
// §2.3.1.4); before that, nothing but robots.txt is requested.
func TestRobotsLongOutageAllows(t *testing.T) {
	pages := site{
		"http://a.test/robots.txt": crawltest.Status(503),
		"http://a.test/":           crawltest.HTML(""),
	}
	cfg := crawl.Config{}
	cfg.Politeness = quickPolicy()
	cfg.Politeness.RobotsBackoffMax, cfg.Politeness.RobotsRetries, cfg.Politeness.RobotsAllowAfter = time.Millisecond, 100, 5*time.Millisecond
	cfg.Politeness.Default()
	f := crawltest.NewFetcher(pages)
	c, err := crawl.New(cfg, crawl.Deps{Frontier: openFrontier(t, cfg.Politeness), Fetcher: f, Archive: &crawltest.Archive{}})
	if err != nil {
		t.Fatal(err)
	}
	c.AddSeeds(t.Context(), []string{"http://a.test/"})
	if err := c.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	reqs := f.Requests()
	if last := reqs[len(reqs)-1]; last != "http://a.test/" || len(reqs) < 3 {
		t.Errorf("requests = %v: want robots.txt tried until the outage is long enough, then the page", reqs)
	}
	for _, r := range reqs[:len(reqs)-1] {
		if r != "http://a.test/robots.txt" {
			t.Errorf("%s requested while robots.txt was unreachable", r)
		}
	}
}

// TestPageRobotsSignals: meta robots and X-Robots-Tag nofollow stop a
// page's links, rel=nofollow stops one link, a header scoped to another
// crawler does not apply, and noarchive keeps the body out of the archive.
func TestPageRobotsSignals(t *testing.T) {
	xrt := func(v, body string) crawltest.Page {
		p := crawltest.HTML(body)
		p.Header.Set("X-Robots-Tag", v)
		return p
	}
	pages := site{
		"http://a.test/": crawltest.HTML(`<a href="/meta">m</a> <a href="/hdr">h</a> <a href="/other">o</a>
			<a href="/ugc" rel="UGC nofollow">u</a> <a href="/plain">p</a> <a href="/noarchive">n</a>`),
		"http://a.test/meta":      crawltest.HTML(`<meta name="ROBOTS" content="noindex, NoFollow"><a href="/x1">x</a>`),
		"http://a.test/hdr":       xrt("nofollow", `<a href="/x2">x</a>`),
		"http://a.test/other":     xrt("otherbot: nofollow", `<a href="/y1">y</a>`),
		"http://a.test/ugc":       crawltest.HTML(""),
		"http://a.test/plain":     crawltest.HTML(""),
		"http://a.test/noarchive": crawltest.HTML(`<meta name="godwit" content="noarchive">`),
		"http://a.test/y1":        crawltest.HTML(""),
	}
	f, a, st := crawlSite(t, crawl.Config{}, pages, "http://a.test/")
	reqs := f.Requests()
	for _, never := range []string{"http://a.test/x1", "http://a.test/x2", "http://a.test/ugc"} {
		if slices.Contains(reqs, never) {
			t.Errorf("fetched %s, reachable only through nofollow", never)
		}
	}
	for _, want := range []string{"http://a.test/plain", "http://a.test/y1", "http://a.test/noarchive"} {
		if !slices.Contains(reqs, want) {
			t.Errorf("%s not fetched", want)
		}
	}
	if d := a.Decision("http://a.test/noarchive"); !d.OmitBody || !slices.Contains(d.Signals, "noarchive") {
		t.Errorf("noarchive page recorded with %+v", d)
	}
	if d := a.Decision("http://a.test/plain"); d.OmitBody || len(d.Signals) > 0 {
		t.Errorf("plain page recorded with %+v", d)
	}
	if d := a.Decision("http://a.test/meta"); d.OmitBody || !slices.Contains(d.Signals, "noindex") {
		t.Errorf("noindex page recorded with %+v: its body is kept by default, the signal recorded", d)
	}
	if st.NofollowPages != 2 || st.NofollowLinks != 1 {
		t.Errorf("NofollowPages = %d, NofollowLinks = %d; want 2, 1", st.NofollowPages, st.NofollowLinks)
	}
}

// TestSitemapsFromRobots: robots.txt Sitemap lines lead through an index
// (one child gzip-compressed) to pages nothing links to; out-of-scope
// entries are not queued; hints travel with the URLs.
func TestSitemapsFromRobots(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
		<url><loc>http://a.test/orphan2</loc></url></urlset>`))
	zw.Close()
	pages := site{
		"http://a.test/robots.txt": crawltest.HTML("User-agent: *\nDisallow: /private\nSitemap: http://a.test/index.xml\n"),
		"http://a.test/index.xml": crawltest.HTML(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
			<sitemap><loc>http://a.test/s1.xml</loc></sitemap><sitemap><loc>http://a.test/s2.xml.gz</loc></sitemap></sitemapindex>`),
		"http://a.test/s1.xml": crawltest.HTML(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
			<url><loc>http://a.test/orphan1</loc><lastmod>2026-11-01</lastmod><changefreq>daily</changefreq><priority>0.8</priority></url>
			<url><loc>http://elsewhere.test/x</loc></url><url><loc>http://a.test/private/p</loc></url></urlset>`),
		"http://a.test/s2.xml.gz": {Status: 200, Header: http.Header{"Content-Type": {"application/x-gzip"}}, Body: gz.String()},
		"http://a.test/":          crawltest.HTML(""),
		"http://a.test/orphan1":   crawltest.HTML(""),
		"http://a.test/orphan2":   crawltest.HTML(""),
	}
	f, _, st := crawlSite(t, crawl.Config{}, pages, "http://a.test/")
	reqs := f.Requests()
	for _, want := range []string{"http://a.test/index.xml", "http://a.test/s1.xml", "http://a.test/s2.xml.gz", "http://a.test/orphan1", "http://a.test/orphan2"} {
		if !slices.Contains(reqs, want) {
			t.Errorf("%s not fetched; requests %v", want, reqs)
		}
	}
	for _, never := range []string{"http://elsewhere.test/x", "http://a.test/private/p"} {
		if slices.Contains(reqs, never) {
			t.Errorf("fetched %s (out of scope or disallowed)", never)
		}
	}
	if st.Sitemaps != 3 || st.SitemapURLs != 6 {
		t.Errorf("Sitemaps = %d, SitemapURLs = %d; want 3, 6", st.Sitemaps, st.SitemapURLs)
	}
}

// quickPolicy is a polite policy scaled down to milliseconds, so tests of
// retries and backoff finish quickly.
func quickPolicy() politeness.Policy {
	return politeness.Policy{Delay: time.Microsecond, RobotsBackoff: time.Millisecond, RobotsBackoffMax: 10 * time.Millisecond,
		BackoffBase: time.Millisecond, BackoffMax: 10 * time.Millisecond,
		BreakerOpenFor: 5 * time.Millisecond, BreakerOpenMax: 20 * time.Millisecond}
}

// TestPauseResume: a paused crawl sends no request until resumed, then
// finishes; seeds added while it runs are crawled, and a seen or excluded
// one is reported.
func TestPauseResume(t *testing.T) {
	pages := site{
		"http://a.test/robots.txt": crawltest.Status(404),
		"http://a.test/":           crawltest.HTML(`<a href="/x">x</a>`),
		"http://a.test/x":          crawltest.HTML(""),
		"http://a.test/late":       crawltest.HTML(""),
	}
	cfg := crawl.Config{Exclude: crawl.ScopeRules{Prefixes: []string{"http://a.test/no"}}}
	cfg.Politeness = quickPolicy()
	cfg.Politeness.Default()
	f := crawltest.NewFetcher(pages)
	c, err := crawl.New(cfg, crawl.Deps{Frontier: openFrontier(t, cfg.Politeness), Fetcher: f, Archive: &crawltest.Archive{}})
	if err != nil {
		t.Fatal(err)
	}
	c.AddSeeds(t.Context(), []string{"http://a.test/"})
	c.Pause()
	done := make(chan error)
	go func() { done <- c.Run(t.Context()) }()
	time.Sleep(100 * time.Millisecond)
	if got := f.Requests(); len(got) != 0 || !c.Paused() {
		t.Fatalf("paused crawl made requests %v", got)
	}
	n, rejected, err := c.AddSeedsReport(t.Context(), []string{"http://a.test/late", "http://a.test/", "http://a.test/no/x", "ftp://a.test/"}, 0)
	if err != nil || n != 1 || len(rejected) != 3 {
		t.Fatalf("AddSeedsReport = %d, %+v, %v", n, rejected, err)
	}
	for i, want := range []string{"seen", "out-of-scope", "invalid"} {
		if rejected[i].Reason != want {
			t.Errorf("rejection %d = %+v, want %s", i, rejected[i], want)
		}
	}
	c.Resume()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := len(f.Requests()); got != 4 { // robots.txt, /, /x, /late
		t.Errorf("requests after resume = %v", f.Requests())
	}
	if a := c.Activity(); len(a.TopHosts) != 1 || a.TopHosts[0].Requests != 4 {
		t.Errorf("Activity().TopHosts = %+v", a.TopHosts)
	}
}

// TestGivesUpWhenNothingAnswers: a crawl whose seed hosts all fail at the
// first contact, with nothing answering, ends at once (not after
// robots.txt retries minutes apart) and reports every seed failed, with
// why; one host that answers keeps the others' retries going.
func TestGivesUpWhenNothingAnswers(t *testing.T) {
	refused := crawltest.Page{Err: fmt.Errorf("dial: %w", syscall.ECONNREFUSED)}
	nxdomain := crawltest.Page{Err: &net.DNSError{Err: "no such host", Name: "b.test", IsNotFound: true}}
	slow := politeness.Policy{Delay: time.Millisecond, RobotsRetries: 3, RobotsBackoff: time.Hour}
	slow.Default()

	t.Run("nothing answers", func(t *testing.T) {
		pages := site{"http://a.test/robots.txt": refused, "http://b.test/robots.txt": nxdomain}
		f := crawltest.NewFetcher(pages)
		c, err := crawl.New(crawl.Config{Politeness: slow}, crawl.Deps{Frontier: openFrontier(t, slow), Fetcher: f, Archive: &crawltest.Archive{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.AddSeeds(t.Context(), []string{"http://a.test/", "http://b.test/"}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // the retry would come in an hour
		defer cancel()
		if err := c.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if ctx.Err() != nil {
			t.Fatal("the crawl waited for robots.txt retries")
		}
		r := c.Seeds()
		if !r.AllFailed() || r.Seeds != 2 {
			t.Fatalf("Seeds() = %+v, want both failed", r)
		}
		why := map[string]string{}
		for _, s := range r.Failed {
			why[s.URL] = s.Reason
		}
		if why["http://a.test/"] != "connection refused" || why["http://b.test/"] != "no such host" {
			t.Errorf("reasons = %v", why)
		}
		if n := len(f.Requests()); n != 2 {
			t.Errorf("%d requests (%v), want one robots.txt each", n, f.Requests())
		}
	})
	t.Run("one host answers", func(t *testing.T) {
		pages := site{
			"http://a.test/robots.txt": refused,
			"http://c.test/robots.txt": crawltest.Status(404),
			"http://c.test/":           crawltest.HTML(""),
		}
		f := crawltest.NewFetcher(pages)
		c, err := crawl.New(crawl.Config{Politeness: slow}, crawl.Deps{Frontier: openFrontier(t, slow), Fetcher: f, Archive: &crawltest.Archive{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.AddSeeds(t.Context(), []string{"http://a.test/", "http://c.test/"}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan error)
		go func() { done <- c.Run(ctx) }()
		// The answering host's seed is fetched; a.test waits for its retry
		// (an hour away), so the crawl goes on until stopped.
		for deadline := time.Now().Add(30 * time.Second); c.Seeds().OK == 0; {
			if time.Now().After(deadline) {
				t.Fatal("c.test's seed never fetched")
			}
			time.Sleep(10 * time.Millisecond)
		}
		select {
		case err := <-done:
			t.Fatalf("the crawl ended (%v) although a host answered and a.test's retry is pending", err)
		case <-time.After(200 * time.Millisecond):
		}
		cancel()
		<-done
		if r := c.Seeds(); r.AllFailed() || len(r.Failed) != 0 {
			t.Errorf("Seeds() = %+v, want no failure reported while a.test's retry is pending", r)
		}
	})
}
