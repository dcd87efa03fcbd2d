package crawltest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fetch"
)

var (
	_ crawl.Fetcher         = (*Fetcher)(nil)
	_ crawl.Archive         = (*Archive)(nil)
	_ crawl.FailureRecorder = (*Archive)(nil)
)

// Page is a canned answer.
type Page struct {
	Status   int
	Header   http.Header
	Body     string
	Err      error // returned instead of a response
	Location string
}

// HTML returns a 200 text/html page with the given body.
func HTML(body string) Page {
	return Page{Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: body}
}

// Redirect returns a 301 to loc.
func Redirect(loc string) Page { return Page{Status: 301, Location: loc} }

// Status returns an empty response with the given status.
func Status(code int) Page { return Page{Status: code} }

// Fetcher serves Pages by URL; unknown URLs get 404.
type Fetcher struct {
	mu       sync.Mutex
	pages    map[string]Page
	requests []string
}

// NewFetcher returns a Fetcher serving pages (keyed by absolute URL).
func NewFetcher(pages map[string]Page) *Fetcher {
	return &Fetcher{pages: pages}
}

// Fetch records the request and returns the canned answer.
func (f *Fetcher) Fetch(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	f.mu.Lock()
	f.requests = append(f.requests, req.URL)
	p, ok := f.pages[req.URL]
	f.mu.Unlock()
	if !ok {
		p = Status(404)
	}
	if p.Err != nil {
		return nil, p.Err
	}
	h := p.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if p.Location != "" {
		h.Set("Location", p.Location)
	}
	raw := fmt.Sprintf("HTTP/1.1 %d %s\r\n", p.Status, http.StatusText(p.Status))
	for k, vs := range h {
		for _, v := range vs {
			raw += k + ": " + v + "\r\n"
		}
	}
	return &fetch.Response{
		URL:        req.URL,
		Status:     p.Status,
		Proto:      "HTTP/1.1",
		Header:     h,
		Body:       []byte(p.Body),
		Start:      start,
		End:        time.Now(),
		RawRequest: []byte("GET " + pathOf(req.URL) + " HTTP/1.1\r\n\r\n"),
		RawHeader:  []byte(raw + "\r\n"),
	}, nil
}

// Decode returns the body unchanged (the fake never encodes).
func (f *Fetcher) Decode(r *fetch.Response) ([]byte, error) { return r.Body, nil }

// Requests returns the URLs requested so far, in order.
func (f *Fetcher) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "/"
	}
	return u.RequestURI()
}

// Archive keeps the responses it is given in memory.
type Archive struct {
	mu        sync.Mutex
	responses []*fetch.Response
	decisions map[string]crawl.Decision
	failures  []crawl.Failure
	loads     int
	Err       error // returned by Record and RecordFailure when set
}

// Record remembers resp; its Capture's Offset is its index.
func (a *Archive) Record(_ context.Context, _ crawl.Task, resp *fetch.Response, d crawl.Decision) (crawl.Capture, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.Err != nil {
		return crawl.Capture{}, a.Err
	}
	a.responses = append(a.responses, resp)
	if a.decisions == nil {
		a.decisions = map[string]crawl.Decision{}
	}
	a.decisions[resp.URL] = d
	return crawl.Capture{File: "memory", Offset: int64(len(a.responses) - 1)}, nil
}

// RecordFailure remembers f.
func (a *Archive) RecordFailure(_ context.Context, f crawl.Failure) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.Err != nil {
		return a.Err
	}
	a.failures = append(a.failures, f)
	return nil
}

// Failures returns the failures recorded, in order.
func (a *Archive) Failures() []crawl.Failure {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]crawl.Failure(nil), a.failures...)
}

// Load returns a recorded response.
func (a *Archive) Load(_ context.Context, c crawl.Capture) (*fetch.Response, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c.File != "memory" || c.Offset < 0 || c.Offset >= int64(len(a.responses)) {
		return nil, fmt.Errorf("crawltest: no capture %+v", c)
	}
	a.loads++
	return a.responses[c.Offset], nil
}

// Decision returns the decision the response for url was recorded with.
func (a *Archive) Decision(url string) crawl.Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.decisions[url]
}

// Loads is how many times Load succeeded.
func (a *Archive) Loads() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.loads
}

// URLs returns the recorded response URLs in order.
func (a *Archive) URLs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	urls := make([]string, len(a.responses))
	for i, r := range a.responses {
		urls[i] = r.URL
	}
	return urls
}
