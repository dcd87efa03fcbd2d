package fakeweb_test

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// politeCrawler is the smallest crawler that does everything right: one
// request at a time, robots.txt first (RFC 9309: 4xx allows all, 5xx and
// no answer disallow all), the delay counted from the end of the previous
// response, URLs canonicalized before the seen-set, breadth first with
// redirects followed as new URLs of the same depth, and links of pages at
// maxDepth not followed.
type politeCrawler struct {
	client        *http.Client // must not follow redirects
	delay         time.Duration
	maxDepth      int
	robotsTimeout time.Duration

	hosts map[string]*crawlHost
	depth map[string]int // least depth each URL was found at
}

type crawlHost struct {
	robots      bool // robots.txt fetched
	unavailable bool
	disallow    []string
	crawlDelay  time.Duration
	last        time.Time // when the previous response was read in full
}

func (c *politeCrawler) crawl(t *testing.T, seeds []string) {
	c.hosts = map[string]*crawlHost{}
	c.depth = map[string]int{}
	levels := [][]string{nil}
	add := func(depth int, u *url.URL) {
		k, ok := canonical(u)
		if d, seen := c.depth[k]; !ok || seen && d <= depth {
			return
		}
		// A redirect can reveal a smaller depth for a URL already queued
		// one level down; it moves up (and is skipped down there).
		c.depth[k] = depth
		for len(levels) <= depth {
			levels = append(levels, nil)
		}
		levels[depth] = append(levels[depth], k)
	}
	for _, s := range seeds {
		add(0, mustParse(t, s))
	}
	for d := 0; d < len(levels); d++ {
		// Redirect targets join the level being walked.
		for i := 0; i < len(levels[d]); i++ {
			k := levels[d][i]
			if c.depth[k] != d {
				continue
			}
			links, redirect := c.fetch(t, k)
			if redirect != nil {
				add(d, redirect)
			}
			if c.maxDepth > 0 && d >= c.maxDepth {
				continue
			}
			for _, l := range links {
				add(d+1, l)
			}
		}
	}
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
	return "http://" + host + p, true
}

func (c *politeCrawler) pause(h *crawlHost) {
	if !h.last.IsZero() {
		time.Sleep(time.Until(h.last.Add(max(c.delay, h.crawlDelay))))
	}
}

func (c *politeCrawler) fetch(t *testing.T, rawURL string) (links []*url.URL, redirect *url.URL) {
	u := mustParse(t, rawURL)
	h := c.hosts[u.Host]
	if h == nil {
		h = &crawlHost{}
		c.hosts[u.Host] = h
	}
	if !h.robots {
		h.robots = true
		ctx, cancel := context.WithTimeout(t.Context(), c.robotsTimeout)
		r, err := tryGet(ctx, c.client, "http://"+u.Host+"/robots.txt")
		cancel()
		h.last = time.Now()
		switch {
		case err != nil || r.status >= 500:
			h.unavailable = true
		case r.status == 200:
			h.disallow, h.crawlDelay = parseRobots(string(r.body))
		}
	}
	if h.unavailable {
		return nil, nil
	}
	for _, prefix := range h.disallow {
		if strings.HasPrefix(u.Path, prefix) {
			return nil, nil
		}
	}
	c.pause(h)
	r := get(t, c.client, rawURL)
	h.last = time.Now()
	switch r.status {
	case http.StatusMovedPermanently:
		return nil, mustParse(t, r.header.Get("Location"))
	case http.StatusOK:
		return extractLinks(t, u, r.body), nil
	}
	t.Errorf("GET %s = %d", rawURL, r.status)
	return nil, nil
}

// parseRobots reads the "*" group: Disallow prefixes and Crawl-delay.
func parseRobots(body string) (disallow []string, delay time.Duration) {
	star, agentLine := false, false
	for _, line := range strings.Split(body, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if k == "user-agent" {
			if !agentLine {
				star = false
			}
			star = star || v == "*"
			agentLine = true
			continue
		}
		agentLine = false
		switch {
		case !star:
		case k == "disallow" && v != "":
			disallow = append(disallow, v)
		case k == "crawl-delay":
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				delay = time.Duration(math.Round(f * float64(time.Second)))
			}
		}
	}
	return disallow, delay
}

// extractLinks finds links as a tokenizer-based crawler does; <base>
// applies to the whole document.
func extractLinks(t *testing.T, page *url.URL, body []byte) []*url.URL {
	base := page
	haveBase := false
	var refs []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		attrs := map[string]string{}
		for _, a := range tok.Attr {
			attrs[a.Key] = a.Val
		}
		switch tok.Data {
		case "base":
			if !haveBase {
				haveBase = true
				base = mustParse(t, page.ResolveReference(mustParse(t, attrs["href"])).String())
			}
		case "a", "area":
			refs = append(refs, attrs["href"])
		case "link":
			if attrs["rel"] == "next" {
				refs = append(refs, attrs["href"])
			}
		case "iframe", "frame":
			refs = append(refs, attrs["src"])
		}
	}
	var links []*url.URL
	for _, ref := range refs {
		links = append(links, base.ResolveReference(mustParse(t, ref)))
	}
	return links
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
			c := &politeCrawler{client: tw.proxy, delay: 2 * time.Millisecond, maxDepth: tt.maxDepth, robotsTimeout: 50 * time.Millisecond}
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
