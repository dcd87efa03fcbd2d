package fakeweb_test

import (
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestReportCatchesViolations runs tiny misbehaving clients and checks the
// judge sees exactly what they did wrong. Timing violations are built from
// generous margins (an hour-long delay, a request that never ends), never
// from short sleeps.
func TestReportCatchesViolations(t *testing.T) {
	const (
		h0 = "http://h0.fake.test"
		h1 = "http://h1.fake.test"
	)
	one := func(k fakeweb.RobotsKind) []fakeweb.RobotsKind { return []fakeweb.RobotsKind{k} }
	tree := fakeweb.Config{Hosts: 1, PagesPerHost: 15, LinksPerPage: 2, CrossHostShare: -1, RedirectShare: -1}

	tests := []struct {
		name  string
		cfg   fakeweb.Config
		judge fakeweb.Judge
		run   func(t *testing.T, tw *testWeb)
		kind  fakeweb.ViolationKind
		count func(fakeweb.Report) int
		want  int
	}{
		{
			name: "concurrent requests to one host",
			cfg:  fakeweb.Config{Hosts: 1, Latency: time.Hour},
			run: func(t *testing.T, tw *testWeb) {
				cancel, done := startHanging(t, tw, h0+"/p/1")
				cancel2, done2 := startHanging(t, tw, h0+"/p/2")
				cancel()
				cancel2()
				<-done
				<-done2
			},
			kind:  fakeweb.ViolationConcurrency,
			count: func(r fakeweb.Report) int { return r.ConcurrencyViolations },
			want:  1,
		},
		{
			name: "request while robots.txt hangs",
			cfg:  fakeweb.Config{Hosts: 1, Robots: one(fakeweb.RobotsHang)},
			run: func(t *testing.T, tw *testWeb) {
				cancel, done := startHanging(t, tw, h0+"/robots.txt")
				defer func() { cancel(); <-done }()
				get(t, tw.proxy, h0+"/")
			},
			kind:  fakeweb.ViolationConcurrency,
			count: func(r fakeweb.Report) int { return r.ConcurrencyViolations },
			want:  1,
		},
		{
			name:  "gap shorter than the delay",
			cfg:   fakeweb.Config{Hosts: 2},
			judge: fakeweb.Judge{Delay: time.Hour},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h1+"/robots.txt") // another host: no gap to keep
				get(t, tw.proxy, h0+"/")
			},
			kind:  fakeweb.ViolationGap,
			count: func(r fakeweb.Report) int { return r.GapViolations },
			want:  1,
		},
		{
			name: "Crawl-delay ignored",
			cfg:  fakeweb.Config{Hosts: 1, Robots: one(fakeweb.RobotsCrawlDelay), CrawlDelay: time.Hour},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h0+"/")
			},
			kind:  fakeweb.ViolationGap,
			count: func(r fakeweb.Report) int { return r.GapViolations },
			want:  1,
		},
		{
			name: "disallowed path",
			cfg:  fakeweb.Config{Hosts: 1, Robots: one(fakeweb.RobotsDisallow)},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h0+"/private/0")
				get(t, tw.origin, h0+"/p/1/../../private/3")
				get(t, tw.proxy, h0+"/private") // not under /private/: allowed, but a 404
			},
			kind:  fakeweb.ViolationDisallowed,
			count: func(r fakeweb.Report) int { return r.DisallowedRequests },
			want:  2,
		},
		{
			name:  "page before robots.txt",
			cfg:   fakeweb.Config{Hosts: 2},
			judge: fakeweb.Judge{},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h1+"/robots.txt") // another host's robots.txt does not count
				get(t, tw.proxy, h0+"/")
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h0+"/p/1")
			},
			kind:  fakeweb.ViolationBeforeRobots,
			count: func(r fakeweb.Report) int { return r.BeforeRobots },
			want:  1,
		},
		{
			name: "robots.txt answers 500",
			cfg:  fakeweb.Config{Hosts: 1, Robots: one(fakeweb.RobotsServerError)},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h0+"/")
			},
			kind:  fakeweb.ViolationUnavailableHost,
			count: func(r fakeweb.Report) int { return r.UnavailableHostRequests },
			want:  1,
		},
		{
			name: "robots.txt never answers",
			cfg:  fakeweb.Config{Hosts: 1, Robots: one(fakeweb.RobotsHang)},
			run: func(t *testing.T, tw *testWeb) {
				cancel, done := startHanging(t, tw, h0+"/robots.txt")
				cancel()
				<-done
				get(t, tw.proxy, h0+"/")
			},
			kind:  fakeweb.ViolationUnavailableHost,
			count: func(r fakeweb.Report) int { return r.UnavailableHostRequests + r.BeforeRobots },
			want:  2,
		},
		{
			name: "one page under many spellings",
			cfg:  fakeweb.Config{Hosts: 1},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h0+"/robots.txt") // robots.txt may be fetched again
				get(t, tw.proxy, h0+"/p/1")
				get(t, tw.proxy, "http://H0.FAKE.TEST:80/p/1?utm_source=news&utm_medium=email")
				get(t, tw.origin, h0+"/p/./1#top")
				get(t, tw.proxy, h0+"/r/1") // a redirect is its own URL
			},
			kind:  fakeweb.ViolationDuplicate,
			count: func(r fakeweb.Report) int { return r.Duplicates },
			want:  2,
		},
		{
			name: "host the web does not have",
			cfg:  fakeweb.Config{Hosts: 1},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, "http://h1.fake.test/robots.txt")
				get(t, tw.proxy, "http://example.com/")
			},
			kind:  fakeweb.ViolationUnknownHost,
			count: func(r fakeweb.Report) int { return r.UnknownHostRequests },
			want:  2,
		},
		{
			name:  "deeper than max depth",
			cfg:   tree,
			judge: fakeweb.Judge{MaxDepth: 1},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h0+"/")
				get(t, tw.proxy, h0+"/p/2") // depth 1: fine
				get(t, tw.proxy, h0+"/p/7") // depth 3
			},
			kind:  fakeweb.ViolationOutOfTruth,
			count: func(r fakeweb.Report) int { return r.OutOfTruth },
			want:  1,
		},
		{
			name: "wildcard patterns",
			cfg:  fakeweb.Config{Hosts: 1, Robots: one(fakeweb.RobotsWildcard)},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h0+"/w/report.pdf")      // Disallow: /*.pdf$
				get(t, tw.proxy, h0+"/w/report.pdf.html") // allowed
				get(t, tw.proxy, h0+"/w/open/guide.pdf")  // Allow: /w/open/*.pdf$ is longer
				get(t, tw.proxy, h0+"/w/a/b/draft")       // Disallow: /w/*/draft
				get(t, tw.proxy, h0+"/w/a/draft/public")  // Allow: /w/*/draft/public
				get(t, tw.proxy, h0+"/w/1")               // Allow: /w/1$
				get(t, tw.proxy, h0+"/w/10")              // Disallow: /w/1
				get(t, tw.proxy, h0+"/w/tie")             // Allow wins the tie
			},
			kind:  fakeweb.ViolationDisallowed,
			count: func(r fakeweb.Report) int { return r.DisallowedRequests },
			want:  3,
		},
		{
			name: "the star group instead of godwit's",
			cfg:  fakeweb.Config{Hosts: 1, Robots: one(fakeweb.RobotsAgentGroup)},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h0+"/p/1")       // "*" disallows it, godwit may
				get(t, tw.proxy, h0+"/private/0") // "*" allows it, godwit may not
			},
			kind:  fakeweb.ViolationDisallowed,
			count: func(r fakeweb.Report) int { return r.DisallowedRequests },
			want:  1,
		},
		{
			name: "page before the robots.txt redirect is followed",
			cfg:  fakeweb.Config{Hosts: 1, Robots: one(fakeweb.RobotsRedirect)},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt") // 301
				get(t, tw.proxy, h0+"/")
				get(t, tw.proxy, h0+"/robots-real.txt")
				get(t, tw.proxy, h0+"/p/1")
			},
			kind:  fakeweb.ViolationBeforeRobots,
			count: func(r fakeweb.Report) int { return r.BeforeRobots + 10*r.RobotsRequests },
			want:  21,
		},
		{
			name: "rules of the robots.txt redirect ignored",
			cfg:  fakeweb.Config{Hosts: 1, Robots: one(fakeweb.RobotsRedirect)},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h0+"/robots-real.txt")
				get(t, tw.proxy, h0+"/private/0")
			},
			kind:  fakeweb.ViolationDisallowed,
			count: func(r fakeweb.Report) int { return r.DisallowedRequests },
			want:  1,
		},
		{
			name: "requests while robots.txt fails",
			cfg:  fakeweb.Config{Hosts: 1, Robots: one(fakeweb.RobotsFlaky)},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt") // 503
				get(t, tw.proxy, h0+"/")
				get(t, tw.proxy, h0+"/robots.txt") // 503
				get(t, tw.proxy, h0+"/p/1")
				get(t, tw.proxy, h0+"/robots.txt") // 200
				get(t, tw.proxy, h0+"/p/2")        // fine
			},
			kind:  fakeweb.ViolationUnavailableHost,
			count: func(r fakeweb.Report) int { return r.UnavailableHostRequests + 10*r.BeforeRobots },
			want:  2,
		},
		{
			name: "pages only nofollow leads to",
			cfg:  fakeweb.Config{Hosts: 1, PageSignals: true},
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h0+"/")
				get(t, tw.proxy, h0+"/nofollow/0")
				get(t, tw.proxy, h0+"/nofollow/1")
				get(t, tw.proxy, h0+"/nofollow/1")
			},
			kind:  fakeweb.ViolationNofollowOnly,
			count: func(r fakeweb.Report) int { return r.NofollowOnlyFetched + 10*r.OutOfTruth },
			want:  3,
		},
		{
			name: "URLs the web does not link to",
			cfg:  tree,
			run: func(t *testing.T, tw *testWeb) {
				get(t, tw.proxy, h0+"/robots.txt")
				get(t, tw.proxy, h0+"/nope")
				get(t, tw.proxy, h0+"/nope?again")
				get(t, tw.proxy, h0+"/p/7/")
			},
			kind:  fakeweb.ViolationOutOfTruth,
			count: func(r fakeweb.Report) int { return r.OutOfTruth },
			want:  2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := startWeb(t, tt.cfg)
			tt.run(t, tw)
			rep := tw.web.Report(tt.judge)
			if got := tt.count(rep); got != tt.want {
				t.Errorf("count = %d, want %d; report:\n%v", got, tt.want, rep)
			}
			if rep.OK() {
				t.Errorf("OK() = true, want false")
			}
			found := false
			for _, v := range rep.Violations {
				if v.Kind == tt.kind {
					found = true
					if v.Host == "" || v.Path == "" || v.At.IsZero() || v.Detail == "" {
						t.Errorf("incomplete violation %+v", v)
					}
				}
			}
			if !found {
				t.Errorf("no %s violation listed; report:\n%v", tt.kind, rep)
			}
		})
	}
}

func TestReportCapsViolations(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 1})
	for range 120 {
		get(t, tw.proxy, "http://h0.fake.test/nope")
	}
	rep := tw.web.Report(fakeweb.Judge{})
	if rep.BeforeRobots != 120 || len(rep.Violations) != 100 {
		t.Errorf("BeforeRobots = %d, %d violations listed, want 120 and 100", rep.BeforeRobots, len(rep.Violations))
	}
}

func TestResetClearsTheLog(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 1})
	get(t, tw.proxy, "http://h0.fake.test/")
	tw.web.Reset()
	get(t, tw.proxy, "http://h0.fake.test/robots.txt")
	get(t, tw.proxy, "http://h0.fake.test/")
	rep := tw.web.Report(fakeweb.Judge{})
	if rep.Requests != 2 || !rep.OK() {
		t.Errorf("after Reset: %v", rep)
	}
}

// TestSitemapRequestsJudged: sitemap files are neither pages nor robots.txt,
// may be fetched twice, and the orphan pages only they list are in the
// ground truth.
func TestSitemapRequestsJudged(t *testing.T) {
	tw := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 5, LinksPerPage: 2, CrossHostShare: -1, RedirectShare: -1,
		Sitemaps: true, OrphanPages: 2, Robots: []fakeweb.RobotsKind{fakeweb.RobotsAllow, fakeweb.RobotsNotFound}})
	const h0 = "http://h0.fake.test"
	for _, p := range []string{"/robots.txt", "/sitemap_index.xml", "/sitemap-1.xml", "/sitemap-2.xml.gz", "/sitemap-1.xml",
		"/sitemap.xml", "/", "/orphan/1"} {
		get(t, tw.proxy, h0+p)
	}
	rep := tw.web.Report(fakeweb.Judge{})
	if !rep.OK() || rep.SitemapRequests != 5 || rep.RobotsRequests != 1 || rep.PageRequests != 2 {
		t.Errorf("report:\n%v", rep)
	}
	// h0: 5 pages and 2 orphans; h1's robots.txt is missing: no sitemaps.
	if rep.Reachable != 12 || rep.Covered != 2 || rep.SitemapOnly != 2 || rep.SitemapOnlyCovered != 1 {
		t.Errorf("Reachable %d, Covered %d, SitemapOnly %d, SitemapOnlyCovered %d; want 12, 2, 2, 1",
			rep.Reachable, rep.Covered, rep.SitemapOnly, rep.SitemapOnlyCovered)
	}
	if !strings.Contains(rep.String(), "sitemap-only pages 1/2 covered") || !strings.Contains(rep.String(), "sitemaps 5") {
		t.Errorf("Report.String() does not show sitemaps:\n%s", rep)
	}
	// With a depth limit of 1 the orphans still count (depth 1), and so
	// do the pages the sitemaps list that links reach only deeper.
	rep = tw.web.Report(fakeweb.Judge{MaxDepth: 1})
	if rep.Reachable != 5+2+3 || rep.SitemapOnly != 2+2 {
		t.Errorf("max depth 1: Reachable %d, SitemapOnly %d; want 10, 4", rep.Reachable, rep.SitemapOnly)
	}
	// A sitemap before robots.txt is as impolite as a page.
	tw.web.Reset()
	get(t, tw.proxy, h0+"/sitemap_index.xml")
	if rep := tw.web.Report(fakeweb.Judge{}); rep.BeforeRobots != 1 || rep.OK() {
		t.Errorf("sitemap before robots.txt judged:\n%v", rep)
	}
}
