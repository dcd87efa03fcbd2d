package fakeweb_test

import (
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
