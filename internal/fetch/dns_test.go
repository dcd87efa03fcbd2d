package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeResolver answers from a table and counts the questions.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][]netip.Addr
	errs    map[string]error
	ttl     time.Duration // reported when ttl > 0 (as a TTLResolver would)
	calls   map[string]int
	entered chan string   // if set, told each query's host
	release chan struct{} // if set, each query waits for it
}

func newFakeResolver(answers map[string]string) *fakeResolver {
	r := &fakeResolver{answers: map[string][]netip.Addr{}, errs: map[string]error{}, calls: map[string]int{}}
	for host, list := range answers {
		for _, a := range strings.Fields(list) {
			r.answers[host] = append(r.answers[host], netip.MustParseAddr(a))
		}
	}
	return r
}

func (r *fakeResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	r.calls[host]++
	addrs, err := r.answers[host], r.errs[host]
	entered, release := r.entered, r.release
	r.mu.Unlock()
	if entered != nil {
		entered <- host
	}
	if release != nil {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, err
	}
	if addrs == nil {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return addrs, nil
}

func (r *fakeResolver) count(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}

// ttlResolver is a fakeResolver that reports its TTL.
type ttlResolver struct{ *fakeResolver }

func (r ttlResolver) LookupNetIPTTL(ctx context.Context, network, host string) ([]netip.Addr, time.Duration, error) {
	addrs, err := r.LookupNetIP(ctx, network, host)
	return addrs, r.ttl, err
}

var _ TTLResolver = ttlResolver{}

// fakeClock is a settable clock for the cache's TTLs.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func testCache(r Resolver, clock *fakeClock, cfg Config) *dnsCache {
	cfg.UserAgent = testAgent
	cfg.Resolver = r
	cfg.Default()
	return newDNSCache(cfg, clock.now)
}

func TestFetchRefusesResolvedForbidden(t *testing.T) {
	r := newFakeResolver(map[string]string{
		"loop.test":   "127.0.0.1",
		"ten.test":    "10.1.2.3",
		"meta.test":   "169.254.169.254",
		"v6.test":     "::1",
		"mixed.test":  "93.184.216.34 2606:4700::1 10.0.0.7",
		"mapped.test": "::ffff:192.168.0.1",
	})
	tests := []struct{ host, addr string }{
		{"loop.test", "127.0.0.1"},
		{"ten.test", "10.1.2.3"},
		{"meta.test", "169.254.169.254"},
		{"v6.test", "::1"},
		{"mixed.test", "10.0.0.7"},
		{"mapped.test", "::ffff:192.168.0.1"},
	}
	c := newTestClient(t, Config{Resolver: r, Timeout: 2 * time.Second})
	for _, tt := range tests {
		url := "http://" + tt.host + "/page"
		_, err := c.Fetch(context.Background(), Request{URL: url})
		if !errors.Is(err, ErrForbiddenAddress) || Classify(err) != Policy {
			t.Errorf("Fetch(%s) = %v (%v), want ErrForbiddenAddress, policy", url, err, Classify(err))
			continue
		}
		want := fmt.Sprintf("fetch: get %s: forbidden address: %s resolves to %s", url, tt.host, tt.addr)
		if err.Error() != want {
			t.Errorf("Fetch(%s) error = %q, want %q", url, err, want)
		}
	}
}

func TestDialRefusesLiteralForbidden(t *testing.T) {
	r := newFakeResolver(nil)
	c := newTestClient(t, Config{Resolver: r})
	for _, addr := range []string{"127.0.0.1:80", "10.0.0.1:80", "169.254.1.1:80", "[::1]:80", "[::ffff:127.0.0.1]:443"} {
		conn, err := c.dial(context.Background(), "tcp", addr)
		if conn != nil {
			conn.Close()
		}
		if !errors.Is(err, ErrForbiddenAddress) || Classify(err) != Policy {
			t.Errorf("dial(%s) = %v, want ErrForbiddenAddress", addr, err)
		}
	}
	if s := c.DNSStats(); s.Misses+s.Hits != 0 {
		t.Errorf("literal addresses went through the resolver: %+v", s)
	}
}

func TestFetchThroughDNSCache(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hi "+r.Host) })
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	// A dead address first: dialing goes on to the next one.
	r := newFakeResolver(map[string]string{"site.test": "::1 127.0.0.1"})
	c := newTestClient(t, Config{Resolver: r, AllowPrivate: true})
	url := "http://site.test:" + port + "/"
	for i := range 3 {
		resp, err := c.Fetch(context.Background(), Request{URL: url})
		if err != nil {
			t.Fatalf("Fetch(%s) #%d: %v", url, i, err)
		}
		if string(resp.Body) != "hi site.test:"+port || resp.IP != "127.0.0.1" {
			t.Errorf("Fetch(%s) = %q from %s", url, resp.Body, resp.IP)
		}
		c.transport.CloseIdleConnections() // the next Fetch dials again
	}
	if n := r.count("site.test"); n != 1 {
		t.Errorf("resolver asked %d times, want 1", n)
	}
	if s := c.DNSStats(); s.Misses != 1 || s.Hits != 2 || s.Entries != 1 {
		t.Errorf("DNSStats() = %+v, want 1 miss, 2 hits, 1 entry", s)
	}

	// Not found is permanent.
	_, err := c.Fetch(context.Background(), Request{URL: "http://nx.test/"})
	if Classify(err) != Permanent {
		t.Errorf("Fetch(nx.test) = %v (%v), want a permanent DNS error", err, Classify(err))
	}
}

func TestDNSCacheTTL(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := newFakeResolver(map[string]string{"a.test": "93.184.216.34"})
	c := testCache(r, clock, Config{})
	ctx := context.Background()
	lookup := func() {
		t.Helper()
		addrs, err := c.lookup(ctx, "A.test")
		if err != nil || len(addrs) != 1 {
			t.Fatalf("lookup(a.test) = %v, %v", addrs, err)
		}
	}
	lookup()
	clock.advance(4 * time.Minute)
	lookup()
	if n := r.count("a.test"); n != 1 {
		t.Errorf("resolver asked %d times within the TTL, want 1", n)
	}
	clock.advance(time.Minute + time.Second) // past the default 5 min
	lookup()
	if n := r.count("a.test"); n != 2 {
		t.Errorf("resolver asked %d times after the TTL, want 2", n)
	}
	if s := c.snapshot(); s.Hits != 1 || s.Misses != 2 {
		t.Errorf("stats = %+v, want 1 hit, 2 misses", s)
	}
}

func TestDNSCacheReportedTTLClamped(t *testing.T) {
	tests := []struct {
		reported, kept time.Duration
	}{
		{time.Second, 30 * time.Second},
		{10 * time.Minute, 10 * time.Minute},
		{48 * time.Hour, time.Hour},
	}
	for _, tt := range tests {
		clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		r := newFakeResolver(map[string]string{"a.test": "93.184.216.34"})
		r.ttl = tt.reported
		c := testCache(ttlResolver{r}, clock, Config{})
		c.lookup(context.Background(), "a.test")
		clock.advance(tt.kept - time.Millisecond)
		c.lookup(context.Background(), "a.test")
		clock.advance(2 * time.Millisecond)
		c.lookup(context.Background(), "a.test")
		if n := r.count("a.test"); n != 2 {
			t.Errorf("TTL %v: resolver asked %d times, want 2 (kept %v)", tt.reported, n, tt.kept)
		}
	}
}

func TestDNSCacheNegative(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := newFakeResolver(nil)
	r.errs["flaky.test"] = &net.DNSError{Err: "server misbehaving", Name: "flaky.test", IsTemporary: true}
	c := testCache(r, clock, Config{})
	ctx := context.Background()

	for range 3 {
		_, err := c.lookup(ctx, "nx.test")
		if !isNotFound(err) {
			t.Fatalf("lookup(nx.test) = %v, want not found", err)
		}
	}
	if n := r.count("nx.test"); n != 1 {
		t.Errorf("NXDOMAIN asked %d times, want 1 (cached)", n)
	}
	clock.advance(time.Minute + time.Second)
	c.lookup(ctx, "nx.test")
	if n := r.count("nx.test"); n != 2 {
		t.Errorf("NXDOMAIN asked %d times after the negative TTL, want 2", n)
	}

	for range 3 {
		if _, err := c.lookup(ctx, "flaky.test"); err == nil {
			t.Fatal("lookup(flaky.test) = nil error")
		}
	}
	if n := r.count("flaky.test"); n != 3 {
		t.Errorf("temporary failure asked %d times, want 3 (not cached)", n)
	}
	if s := c.snapshot(); s.NegativeHits != 2 {
		t.Errorf("stats = %+v, want 2 negative hits", s)
	}
}

func TestDNSCacheSingleflight(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := newFakeResolver(map[string]string{"a.test": "93.184.216.34"})
	r.entered = make(chan string, 1)
	r.release = make(chan struct{})
	c := testCache(r, clock, Config{})

	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	lookup := func() {
		addrs, err := c.lookup(context.Background(), "a.test")
		if err == nil && len(addrs) != 1 {
			err = fmt.Errorf("got %v", addrs)
		}
		errs <- err
	}
	wg.Go(lookup)
	<-r.entered // the leader is querying
	for range n - 1 {
		wg.Go(lookup)
	}
	for c.snapshot().Joins != n-1 {
		time.Sleep(time.Millisecond)
	}
	close(r.release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("lookup: %v", err)
		}
	}
	if got := r.count("a.test"); got != 1 {
		t.Errorf("resolver asked %d times for %d concurrent lookups, want 1", got, n)
	}
}

// TestDNSCacheLeaderGivesUp: a waiter whose leader's context ends asks
// again itself instead of failing.
func TestDNSCacheLeaderGivesUp(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := newFakeResolver(map[string]string{"a.test": "93.184.216.34"})
	r.entered = make(chan string, 2)
	r.release = make(chan struct{})
	c := testCache(r, clock, Config{})

	leaderCtx, cancelLeader := context.WithCancel(context.Background())
	leaderErr := make(chan error, 1)
	go func() {
		_, err := c.lookup(leaderCtx, "a.test")
		leaderErr <- err
	}()
	<-r.entered
	waiterErr := make(chan error, 1)
	go func() {
		_, err := c.lookup(context.Background(), "a.test")
		waiterErr <- err
	}()
	for c.snapshot().Joins != 1 {
		time.Sleep(time.Millisecond)
	}
	cancelLeader()
	if err := <-leaderErr; !errors.Is(err, context.Canceled) {
		t.Errorf("leader's lookup = %v, want context.Canceled", err)
	}
	<-r.entered // the waiter asks again
	close(r.release)
	if err := <-waiterErr; err != nil {
		t.Errorf("waiter's lookup = %v, want the addresses", err)
	}
}

func TestDNSCacheBounded(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := newFakeResolver(map[string]string{"a.test": "1.1.1.1", "b.test": "1.1.1.2", "c.test": "1.1.1.3"})
	c := testCache(r, clock, Config{DNSCacheSize: 2})
	ctx := context.Background()
	for _, h := range []string{"a.test", "b.test", "c.test", "b.test", "c.test", "a.test"} {
		if _, err := c.lookup(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	if got := [3]int{r.count("a.test"), r.count("b.test"), r.count("c.test")}; got != [3]int{2, 1, 1} {
		t.Errorf("resolver calls for a, b, c = %v, want [2 1 1] (a evicted by c)", got)
	}
	if s := c.snapshot(); s.Entries != 2 || s.Evictions != 2 {
		t.Errorf("stats = %+v, want 2 entries, 2 evictions", s)
	}
}
