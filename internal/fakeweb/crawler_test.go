package fakeweb_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// politeCrawler is the smallest crawler that does everything right: one
// request at a time, robots.txt first (RFC 9309: groups for "godwit"
// merged, else "*"; "*" and "$" patterns, longest match, Allow wins ties;
// up to 5 redirects followed; 4xx allows all; 5xx retried robotsRetries
// times and then, like no answer, disallows all), the delay counted from
// the end of the previous response, URLs canonicalized before the
// seen-set, breadth first with redirects followed as new URLs of the same
// depth, and links of pages at maxDepth not followed. It reads the
// sitemaps robots.txt names (index, plain and gzip children) when it first
// fetches a URL of the host, queueing their same-host URLs one level below
// it, and obeys nofollow: robots or godwit meta tags, X-Robots-Tag for all
// or for godwit, and rel="nofollow".
type politeCrawler struct {
	client   *http.Client // must not follow redirects
	delay    time.Duration
	maxDepth int
	// robotsTimeout gives up on a robots.txt (the hang kind never
	// answers): 250 ms in the tests, since at 50 ms a loaded machine made
	// an answering host look unavailable and its pages went uncrawled.
	robotsTimeout time.Duration
	robotsRetries int

	hosts  map[string]*crawlHost
	depth  map[string]int // least depth each URL was found at
	levels [][]string
}

type crawlHost struct {
	robots      bool // robots.txt fetched
	unavailable bool
	rules       []robotsRule
	crawlDelay  time.Duration
	sitemaps    []string
	visited     bool      // a URL of the host was fetched (and its sitemaps read)
	last        time.Time // when the previous response was read in full
}

type robotsRule struct {
	allow   bool
	pattern string
	re      *regexp.Regexp
}

func (c *politeCrawler) crawl(t *testing.T, seeds []string) {
	c.hosts = map[string]*crawlHost{}
	c.depth = map[string]int{}
	c.levels = [][]string{nil}
	for _, s := range seeds {
		c.add(0, mustParse(t, s))
	}
	for d := 0; d < len(c.levels); d++ {
		// Redirect targets join the level being walked.
		for i := 0; i < len(c.levels[d]); i++ {
			k := c.levels[d][i]
			if c.depth[k] != d {
				continue
			}
			links, redirect := c.fetch(t, k, d)
			if redirect != nil {
				c.add(d, redirect)
			}
			if c.maxDepth > 0 && d >= c.maxDepth {
				continue
			}
			for _, l := range links {
				c.add(d+1, l)
			}
		}
	}
}

func (c *politeCrawler) add(depth int, u *url.URL) {
	k, ok := canonical(u)
	if d, seen := c.depth[k]; !ok || seen && d <= depth {
		return
	}
	// A redirect can reveal a smaller depth for a URL already queued
	// one level down; it moves up (and is skipped down there).
	c.depth[k] = depth
	for len(c.levels) <= depth {
		c.levels = append(c.levels, nil)
	}
	c.levels[depth] = append(c.levels[depth], k)
}

// canonical folds what the server ignores; it is the test's own, not the
// package's.
func canonical(u *url.URL) (string, bool) {
	if u.Scheme != "http" {
		return "", false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Host), ":80")
	p := u.Path
	if p == "" {
		p = "/"
	}
	// The query goes too: the server ignores it, and robots.txt rules
	// then see the URL as fetched.
	return "http://" + host + p, true
}

func (c *politeCrawler) pause(h *crawlHost) {
	if !h.last.IsZero() {
		time.Sleep(time.Until(h.last.Add(max(c.delay, h.crawlDelay))))
	}
}

// get fetches rawURL politely.
func (c *politeCrawler) get(ctx context.Context, h *crawlHost, rawURL string) (result, error) {
	c.pause(h)
	r, err := tryGet(ctx, c.client, rawURL)
	h.last = time.Now()
	return r, err
}

// readRobots fetches the robots.txt of host, following redirects and
// retrying 5xx answers.
func (c *politeCrawler) readRobots(t *testing.T, host string, h *crawlHost) {
	u := "http://" + host + "/robots.txt"
	retries, redirects := 0, 0
	for {
		ctx, cancel := context.WithTimeout(t.Context(), c.robotsTimeout)
		r, err := c.get(ctx, h, u)
		cancel()
		switch {
		case err != nil:
			h.unavailable = true
		case r.status >= 500:
			if retries < c.robotsRetries {
				retries++
				continue
			}
			h.unavailable = true
		case r.status >= 300 && r.status < 400:
			if redirects < 5 {
				redirects++
				u = mustParse(t, u).ResolveReference(mustParse(t, r.header.Get("Location"))).String()
				continue
			}
			h.unavailable = true
		case r.status == 200:
			h.rules, h.crawlDelay, h.sitemaps = readRobots(string(r.body), "godwit")
		}
		return
	}
}

func (c *politeCrawler) fetch(t *testing.T, rawURL string, depth int) (links []*url.URL, redirect *url.URL) {
	u := mustParse(t, rawURL)
	h := c.hosts[u.Host]
	if h == nil {
		h = &crawlHost{}
		c.hosts[u.Host] = h
	}
	if !h.robots {
		h.robots = true
		c.readRobots(t, u.Host, h)
	}
	if h.unavailable || !allowed(h.rules, u.RequestURI()) {
		return nil, nil
	}
	r, err := c.get(t.Context(), h, rawURL)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	if !h.visited {
		// Sitemap URLs lie one level below the host's first URL.
		h.visited = true
		for _, s := range h.sitemaps {
			for _, l := range c.readSitemap(t, h, u.Host, s, 0) {
				if c.maxDepth == 0 || depth < c.maxDepth {
					c.add(depth+1, l)
				}
			}
		}
	}
	switch r.status {
	case http.StatusMovedPermanently:
		return nil, mustParse(t, r.header.Get("Location"))
	case http.StatusOK:
		if !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
			return nil, nil
		}
		p := extractLinks(t, u, r.body)
		if p.nofollow || headerNofollow(r.header.Values("X-Robots-Tag"), "godwit") {
			return nil, nil
		}
		return p.follow, nil
	}
	t.Errorf("GET %s = %d", rawURL, r.status)
	return nil, nil
}

// readSitemap returns the URLs on host a sitemap or sitemap index lists.
func (c *politeCrawler) readSitemap(t *testing.T, h *crawlHost, host, rawURL string, nesting int) []*url.URL {
	u := mustParse(t, rawURL)
	if u.Host != host || nesting > 2 || !allowed(h.rules, u.RequestURI()) {
		return nil
	}
	r, err := c.get(t.Context(), h, rawURL)
	if err != nil || r.status != 200 {
		t.Errorf("GET %s = %d, %v", rawURL, r.status, err)
		return nil
	}
	body := r.body
	if len(body) > 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", rawURL, err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			t.Fatalf("%s: %v", rawURL, err)
		}
	}
	var doc struct {
		Sitemaps []string `xml:"sitemap>loc"`
		URLs     []string `xml:"url>loc"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		t.Fatalf("%s: %v", rawURL, err)
	}
	var out []*url.URL
	for _, s := range doc.Sitemaps {
		out = append(out, c.readSitemap(t, h, host, strings.TrimSpace(s), nesting+1)...)
	}
	for _, l := range doc.URLs {
		if v := mustParse(t, strings.TrimSpace(l)); v.Host == host {
			out = append(out, v)
		}
	}
	return out
}

// readRobots reads what a robots.txt file says to agent: the rules of
// its groups merged, else those of the "*" groups, with the Crawl-delay
// of the same groups, and every Sitemap.
func readRobots(body, agent string) (rules []robotsRule, delay time.Duration, sitemaps []string) {
	type group struct {
		rules []robotsRule
		delay time.Duration
	}
	var mine, star group
	named := false
	inMine, inStar, agentLine := false, false, false
	for _, line := range strings.Split(body, "\n") {
		line, _, _ = strings.Cut(line, "#")
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if k == "user-agent" {
			if !agentLine {
				inMine, inStar = false, false
			}
			agentLine = true
			inStar = inStar || v == "*"
			if strings.EqualFold(v, agent) {
				inMine, named = true, true
			}
			continue
		}
		if k == "sitemap" {
			sitemaps = append(sitemaps, v)
			continue
		}
		agentLine = false
		for _, g := range []struct {
			in bool
			g  *group
		}{{inMine, &mine}, {inStar, &star}} {
			if !g.in {
				continue
			}
			switch {
			case (k == "allow" || k == "disallow") && v != "":
				g.g.rules = append(g.g.rules, robotsRule{allow: k == "allow", pattern: v, re: patternToRegexp(v)})
			case k == "crawl-delay":
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					g.g.delay = time.Duration(math.Round(f * float64(time.Second)))
				}
			}
		}
	}
	if named {
		return mine.rules, mine.delay, sitemaps
	}
	return star.rules, star.delay, sitemaps
}

func patternToRegexp(pattern string) *regexp.Regexp {
	end := strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(pattern, "$")
	var b strings.Builder
	b.WriteString("^")
	for i, part := range strings.Split(pattern, "*") {
		if i > 0 {
			b.WriteString(".*")
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	if end {
		b.WriteString("$")
	}
	return regexp.MustCompile(b.String())
}

// allowed applies the longest matching rule; Allow wins ties.
func allowed(rules []robotsRule, pathQuery string) bool {
	best, allow := -1, true
	for _, r := range rules {
		if r.re.MatchString(pathQuery) && (len(r.pattern) > best || len(r.pattern) == best && r.allow) {
			best, allow = len(r.pattern), r.allow
		}
	}
	return allow
}

// directivesNofollow reports whether comma-separated robots directives
// include nofollow or none.
func directivesNofollow(s string) bool {
	for _, d := range strings.Split(s, ",") {
		if d = strings.ToLower(strings.TrimSpace(d)); d == "nofollow" || d == "none" {
			return true
		}
	}
	return false
}

// headerNofollow reads X-Robots-Tag values, which may name an agent
// ("otherbot: nofollow").
func headerNofollow(values []string, agent string) bool {
	for _, v := range values {
		if name, rest, ok := strings.Cut(v, ":"); ok && !strings.ContainsAny(strings.TrimSpace(name), " ,") {
			if !strings.EqualFold(strings.TrimSpace(name), agent) {
				continue
			}
			v = rest
		}
		if directivesNofollow(v) {
			return true
		}
	}
	return false
}

// pageLinks is what a page says about its links.
type pageLinks struct {
	all      []*url.URL
	follow   []*url.URL // all but rel="nofollow" ones
	nofollow bool       // a robots or godwit meta tag says nofollow
}

// extractLinks finds links as a tokenizer-based crawler does; <base>
// applies to the whole document.
func extractLinks(t *testing.T, page *url.URL, body []byte) pageLinks {
	base := page
	haveBase := false
	type ref struct {
		href     string
		nofollow bool
	}
	var refs []ref
	var p pageLinks
	for name, attrs := range startTags(body) {
		switch name {
		case "base":
			if !haveBase {
				haveBase = true
				base = mustParse(t, page.ResolveReference(mustParse(t, attrs["href"])).String())
			}
		case "meta":
			if name := strings.ToLower(attrs["name"]); (name == "robots" || name == "godwit") && directivesNofollow(attrs["content"]) {
				p.nofollow = true
			}
		case "a", "area":
			refs = append(refs, ref{attrs["href"], slices.Contains(strings.Fields(strings.ToLower(attrs["rel"])), "nofollow")})
		case "link":
			if attrs["rel"] == "next" {
				refs = append(refs, ref{href: attrs["href"]})
			}
		case "iframe", "frame":
			refs = append(refs, ref{href: attrs["src"]})
		}
	}
	for _, r := range refs {
		l := base.ResolveReference(mustParse(t, r.href))
		p.all = append(p.all, l)
		if !r.nofollow {
			p.follow = append(p.follow, l)
		}
	}
	return p
}

// TestPoliteCrawlIsOK runs the polite crawler over a web with every
// robots.txt behaviour: the judge must find nothing wrong and full coverage.
func TestPoliteCrawlIsOK(t *testing.T) {
	cfg := fakeweb.Config{
		Hosts:        6,
		PagesPerHost: 16,
		LinksPerPage: 5,
		PageSize:     600,
		Robots: []fakeweb.RobotsKind{
			fakeweb.RobotsAllow, fakeweb.RobotsDisallow, fakeweb.RobotsCrawlDelay,
			fakeweb.RobotsNotFound, fakeweb.RobotsServerError, fakeweb.RobotsHang,
		},
		CrawlDelay:    4 * time.Millisecond,
		RedirectShare: 0.15,
		Seed:          11,
	}
	tests := []struct {
		name     string
		origin   bool
		maxDepth int
	}{
		{"proxy, unlimited depth", false, 0},
		{"origin, depth 2", true, 2},
		{"proxy, depth 1", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := startWeb(t, cfg)
			c := &politeCrawler{client: tw.proxy, delay: 2 * time.Millisecond, maxDepth: tt.maxDepth, robotsTimeout: 250 * time.Millisecond}
			if tt.origin {
				c.client = tw.origin
			}
			c.crawl(t, tw.web.Seeds())
			rep := tw.web.Report(fakeweb.Judge{Delay: c.delay, MaxDepth: tt.maxDepth})
			if !rep.OK() || rep.Coverage != 1 || rep.Reachable == 0 {
				t.Errorf("polite crawl judged:\n%v", rep)
			}
			if tt.maxDepth == 0 && rep.Reachable != 4*cfg.PagesPerHost {
				t.Errorf("Reachable = %d, want every page of the 4 available hosts", rep.Reachable)
			}
			if len(rep.MinGap) != 4 {
				t.Errorf("MinGap = %v, want an entry for each of the 4 available hosts", rep.MinGap)
			}
			if rep.MinGap["h2.fake.test"] < cfg.CrawlDelay {
				t.Errorf("MinGap on the Crawl-delay host = %v, below %v", rep.MinGap["h2.fake.test"], cfg.CrawlDelay)
			}
		})
	}
}

// TestPoliteCrawlAllFeatures runs the polite crawler over a web with every
// robots.txt kind, sitemaps and page signals: the judge must find nothing
// wrong and full coverage, sitemap-only pages included.
func TestPoliteCrawlAllFeatures(t *testing.T) {
	kinds := fakeweb.RobotsKinds()
	cfg := fakeweb.Config{
		Hosts:         len(kinds),
		PagesPerHost:  16,
		LinksPerPage:  5,
		PageSize:      600,
		Robots:        kinds,
		CrawlDelay:    4 * time.Millisecond,
		RedirectShare: 0.15,
		Seed:          11,
		Sitemaps:      true,
		OrphanPages:   3,
		PageSignals:   true,
	}
	tests := []struct {
		name     string
		origin   bool
		maxDepth int
		seeds    []string // nil: every home page
	}{
		{"proxy, unlimited depth", false, 0, nil},
		{"origin, depth 2", true, 2, nil},
		{"proxy, depth 1", false, 1, nil},
		// Hosts first reached below depth 0: their sitemap URLs lie one
		// level further down, or beyond the limit.
		{"one seed, depth 3", false, 3, []string{"http://h0.fake.test/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := startWeb(t, cfg)
			c := &politeCrawler{client: tw.proxy, delay: 2 * time.Millisecond, maxDepth: tt.maxDepth,
				robotsTimeout: 250 * time.Millisecond, robotsRetries: 3}
			if tt.origin {
				c.client = tw.origin
			}
			seeds := tt.seeds
			if seeds == nil {
				seeds = tw.web.Seeds()
			}
			c.crawl(t, seeds)
			rep := tw.web.Report(fakeweb.Judge{Delay: c.delay, MaxDepth: tt.maxDepth, Seeds: tt.seeds})
			if !rep.OK() || rep.Coverage != 1 || rep.Reachable == 0 {
				t.Errorf("polite crawl judged:\n%v", rep)
			}
			if tt.seeds != nil {
				if rep.SitemapOnly == 0 {
					t.Errorf("no sitemap-only page:\n%v", rep)
				}
				return
			}
			// 7 hosts name sitemaps and have 3 orphans each.
			if rep.SitemapOnly < 7*3 || rep.SitemapOnlyCovered != rep.SitemapOnly || rep.SitemapRequests != 7*3 {
				t.Errorf("sitemap-only pages %d/%d covered, %d sitemap requests; want at least 21, all, 21",
					rep.SitemapOnlyCovered, rep.SitemapOnly, rep.SitemapRequests)
			}
			// robots.txt: 1 per host, +1 for the redirect, +2 failures
			// for the flaky host, +3 retries for the server-error host.
			if want := len(kinds) + 1 + 2 + 3; rep.RobotsRequests != want {
				t.Errorf("%d robots.txt requests, want %d", rep.RobotsRequests, want)
			}
		})
	}
}
