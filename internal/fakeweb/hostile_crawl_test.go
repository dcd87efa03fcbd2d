package fakeweb_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// hostileCrawler is the smallest crawler that survives the hostile web:
// one request at a time, robots.txt first (every host allows all here),
// a timeout on every request including its body, at most 10 MiB read,
// redirects followed as new URLs, Retry-After obeyed per host (1s when a
// 429 or 503 has none), the charset of a page found as browsers find it
// and its links resolved by the WHATWG URL standard, and only HTML parsed
// (sniffed when there is no Content-Type). While one host must wait it
// crawls the others.
type hostileCrawler struct {
	client  *http.Client // must not follow redirects
	delay   time.Duration
	timeout time.Duration

	hosts map[string]*hostileHost
	seen  map[string]bool
	queue []queued
}

type hostileHost struct {
	robots    bool
	notBefore time.Time
}

type queued struct {
	u     *url.URL
	tries int
}

func (c *hostileCrawler) crawl(t *testing.T, seeds []string) {
	c.hosts, c.seen = map[string]*hostileHost{}, map[string]bool{}
	for _, s := range seeds {
		c.add(mustParse(t, s))
	}
	for len(c.queue) > 0 {
		pick, earliest := -1, time.Time{}
		for i, q := range c.queue {
			h := c.host(q.u.Host)
			if !time.Now().Before(h.notBefore) {
				pick = i
				break
			}
			if earliest.IsZero() || h.notBefore.Before(earliest) {
				earliest = h.notBefore
			}
		}
		if pick < 0 {
			time.Sleep(time.Until(earliest))
			continue
		}
		q := c.queue[pick]
		c.queue = append(c.queue[:pick], c.queue[pick+1:]...)
		c.fetch(t, q)
	}
}

func (c *hostileCrawler) host(name string) *hostileHost {
	h := c.hosts[name]
	if h == nil {
		h = &hostileHost{}
		c.hosts[name] = h
	}
	return h
}

// add queues u unless seen. The server ignores queries but for the
// charset query targets, so the crawler drops them elsewhere.
func (c *hostileCrawler) add(u *url.URL) {
	if u.Scheme != "http" {
		return
	}
	v := *u
	v.Fragment, v.RawFragment = "", ""
	v.Host = strings.TrimSuffix(strings.ToLower(v.Host), ":80")
	if !strings.HasPrefix(v.Path, "/x/cs/") {
		v.RawQuery, v.ForceQuery = "", false
	}
	if k := v.String(); !c.seen[k] {
		c.seen[k] = true
		c.queue = append(c.queue, queued{u: &v})
	}
}

// get fetches u and reads at most 10 MiB of its body before the timeout.
func (c *hostileCrawler) get(t *testing.T, h *hostileHost, u string) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(t.Context(), c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		h.notBefore = time.Now().Add(c.delay)
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 10<<20)) // a timeout keeps what came
	h.notBefore = time.Now().Add(c.delay)
	return resp, body, nil
}

func (c *hostileCrawler) fetch(t *testing.T, q queued) {
	h := c.host(q.u.Host)
	if !h.robots {
		h.robots = true
		c.get(t, h, "http://"+q.u.Host+"/robots.txt")
		c.queue = append([]queued{q}, c.queue...)
		return
	}
	resp, body, err := c.get(t, h, q.u.String())
	if err != nil {
		return
	}
	switch s := resp.StatusCode; {
	case s >= 300 && s < 400:
		if loc, err := q.u.Parse(resp.Header.Get("Location")); err == nil {
			c.add(loc)
		}
	case s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable:
		wait := time.Second
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			if d, err := time.ParseDuration(ra + "s"); err == nil {
				wait = d
			} else if at, err := http.ParseTime(ra); err == nil {
				wait = time.Until(at)
			}
		}
		h.notBefore = time.Now().Add(max(wait, c.delay))
		if q.tries < 5 {
			q.tries++
			c.queue = append(c.queue, q)
		}
	case s == http.StatusOK:
		ct := resp.Header.Get("Content-Type")
		if ct == "" {
			ct = http.DetectContentType(body)
		}
		if !strings.HasPrefix(ct, "text/html") {
			return
		}
		enc, _, _ := charset.DetermineEncoding(body, ct)
		text, err := enc.NewDecoder().Bytes(body)
		if err != nil {
			return
		}
		base, links := pageLinksAndBase(text)
		b := q.u
		if base != "" {
			if u, ok := resolveWHATWG(q.u, base, enc); ok {
				b = u
			}
		}
		for _, href := range links {
			if u, ok := resolveWHATWG(b, href, enc); ok {
				c.add(u)
			}
		}
	}
}

// pageLinksAndBase returns the first <base href> of a page and the URLs
// of its <a>, <area>, <link rel=next>, <iframe> and <frame> elements.
func pageLinksAndBase(body []byte) (base string, links []string) {
	for name, attrs := range startTags(body) {
		switch name {
		case "base":
			if base == "" {
				base = attrs["href"]
			}
		case "a", "area":
			links = append(links, attrs["href"])
		case "link":
			if attrs["rel"] == "next" {
				links = append(links, attrs["href"])
			}
		case "iframe", "frame":
			links = append(links, attrs["src"])
		}
	}
	return base, links
}

// resolveWHATWG resolves href, decoded from a page in enc, against base:
// the path percent-encoded as UTF-8 (Go's URL does that), the query in
// the page's encoding.
func resolveWHATWG(base *url.URL, href string, enc encoding.Encoding) (*url.URL, bool) {
	href, _, _ = strings.Cut(href, "#")
	ref, query, hasQuery := strings.Cut(strings.TrimSpace(href), "?")
	u, err := base.Parse(ref)
	if err != nil {
		return nil, false
	}
	if hasQuery {
		b, err := enc.NewEncoder().String(query)
		if err != nil {
			return nil, false
		}
		u.RawQuery = whatwgQuery(b)
	}
	return u, true
}

// TestHostileCrawlIsOK crawls a hostile web, storm host included, as a
// crawler that survives it should: the judge must find nothing wrong,
// full coverage and every hostile resource exercised.
func TestHostileCrawlIsOK(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for Retry-After")
	}
	cfg := hostileConfig()
	cfg.HostileConfig.DripFor = time.Minute
	cfg.HostileConfig.StormHost, cfg.HostileConfig.StormFor = 2, 500*time.Millisecond
	tw := startWeb(t, cfg)
	c := &hostileCrawler{client: tw.proxy, delay: 5 * time.Millisecond, timeout: 500 * time.Millisecond}
	c.crawl(t, tw.web.Seeds())
	rep := tw.web.Report(fakeweb.Judge{Delay: c.delay})
	if !rep.OK() || rep.Coverage != 1 || rep.CharsetLinks != 3*8 || rep.CharsetLinksFetched != rep.CharsetLinks ||
		rep.RetryAfterSent != 3*2 || rep.Hostile["storm"] == 0 {
		t.Errorf("hostile crawl judged:\n%v", rep)
	}
	for name, n := range rep.Hostile {
		if want := name != "big-tail"; (n > 0) != want {
			t.Errorf("%d requests for %s", n, name)
		}
	}
}
