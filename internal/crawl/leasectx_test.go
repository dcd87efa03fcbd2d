package crawl_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/crawltest"
)

// leaseRecorder is a Frontier that notes, for each link added, the lease
// its Add's context was marked with (crawl.WithLease).
type leaseRecorder struct {
	crawl.Frontier
	mu     sync.Mutex
	leases map[uint64]string // lease ID → its URL, as Next handed it out
	by     map[string]string // link URL → the URL of the lease it was added under
}

func (r *leaseRecorder) Next(ctx context.Context) (crawl.Lease, error) {
	l, err := r.Frontier.Next(ctx)
	if err == nil {
		r.mu.Lock()
		r.leases[l.ID] = l.Task.URL
		r.mu.Unlock()
	}
	return l, err
}

func (r *leaseRecorder) Add(ctx context.Context, links []crawl.Link) (int, error) {
	r.mu.Lock()
	if id, host, ok := crawl.LeaseOf(ctx); ok {
		for _, l := range links {
			if u := r.leases[id]; host != "" && u != "" {
				r.by[l.URL] = u
			}
		}
	}
	r.mu.Unlock()
	return r.Frontier.Add(ctx, links)
}

// TestAddUnderItsLease: the crawler adds a page's links under a context
// marked with the page's lease (cluster mode keeps them with it and puts
// them in the page's outcome event); seeds are added under none.
func TestAddUnderItsLease(t *testing.T) {
	pages := site{
		"http://a.test/robots.txt": crawltest.Status(404),
		"http://a.test/":           crawltest.HTML(`<a href="/b">b</a>`),
		"http://a.test/b":          crawltest.HTML(`<a href="/c">c</a>`),
		"http://a.test/c":          crawltest.HTML(""),
	}
	cfg := crawl.Config{}
	cfg.Politeness = quickPolicy()
	cfg.Politeness.Default()
	rec := &leaseRecorder{Frontier: openFrontier(t, cfg.Politeness), leases: map[uint64]string{}, by: map[string]string{}}
	c, err := crawl.New(cfg, crawl.Deps{Frontier: rec, Fetcher: crawltest.NewFetcher(pages), Archive: &crawltest.Archive{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddSeeds(t.Context(), []string{"http://a.test/"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for link, page := range map[string]string{"http://a.test/b": "http://a.test/", "http://a.test/c": "http://a.test/b"} {
		if got := rec.by[link]; got != page {
			t.Errorf("%s added under the lease of %q, want %s's", link, got, page)
		}
	}
	if got, ok := rec.by["http://a.test/"]; ok {
		t.Errorf("the seed was added under the lease of %s, want none", got)
	}
}
