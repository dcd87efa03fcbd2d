package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// fakeBackend records the calls it gets; hosts named "missing…" are
// unknown, "invalid…" invalid, "broken…" fail. With recrawl set it is a
// continuous crawl; SetRevisitShare answers shareErr.
type fakeBackend struct {
	mu       sync.Mutex
	calls    []string
	paused   bool
	recrawl  *RecrawlStatus
	shareErr error
}

var _ Backend = (*fakeBackend)(nil)

func (f *fakeBackend) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeBackend) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func hostErr(name string) error {
	switch {
	case strings.HasPrefix(name, "missing"):
		return fmt.Errorf("host %s: %w", name, ErrNotFound)
	case strings.HasPrefix(name, "invalid"):
		return fmt.Errorf("host %s: %w", name, ErrInvalid)
	case strings.HasPrefix(name, "broken"):
		return errors.New("store: disk on fire")
	}
	return nil
}

func (f *fakeBackend) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := Status{Paused: f.paused, PagesFetched: 42, QueueDepth: 7, Hosts: HostCounts{Known: 3}}
	if f.recrawl != nil {
		rc := *f.recrawl
		st.Recrawl = &rc
	}
	return st
}

func (f *fakeBackend) AddSeeds(ctx context.Context, urls []string, priority int) (SeedsResult, error) {
	f.record("AddSeeds %v %d", urls, priority)
	var r SeedsResult
	for _, u := range urls {
		if strings.HasPrefix(u, "http") {
			r.Queued++
		} else {
			r.Rejected = append(r.Rejected, Rejection{URL: u, Reason: "invalid"})
		}
	}
	return r, nil
}

func (f *fakeBackend) Hosts(ctx context.Context, sort string, limit int) ([]Host, error) {
	f.record("Hosts %s %d", sort, limit)
	return []Host{{Name: "a.example", Queued: 10}, {Name: "b.example", Queued: 5}}, nil
}

func (f *fakeBackend) Host(ctx context.Context, name string) (Host, error) {
	f.record("Host %s", name)
	if err := hostErr(name); err != nil {
		return Host{}, err
	}
	return Host{Name: name, Queued: 3, Breaker: "closed"}, nil
}

func (f *fakeBackend) SetHostPolicy(ctx context.Context, host string, p HostPolicy) error {
	var d, m string
	if p.DelayMS != nil {
		d = fmt.Sprint(*p.DelayMS)
	}
	if p.MaxPages != nil {
		m = fmt.Sprint(*p.MaxPages)
	}
	f.record("SetHostPolicy %s delay=%s max=%s", host, d, m)
	return hostErr(host)
}

func (f *fakeBackend) ClearHostPolicy(ctx context.Context, host string) error {
	f.record("ClearHostPolicy %s", host)
	return hostErr(host)
}

func (f *fakeBackend) Block(ctx context.Context, host string) error {
	f.record("Block %s", host)
	return hostErr(host)
}

func (f *fakeBackend) Unblock(ctx context.Context, host string) error {
	f.record("Unblock %s", host)
	return hostErr(host)
}

func (f *fakeBackend) URL(ctx context.Context, rawURL string) (URLInfo, error) {
	f.record("URL %s", rawURL)
	switch {
	case strings.Contains(rawURL, "missing"):
		return URLInfo{}, ErrNotFound
	case strings.Contains(rawURL, "changing"):
		// Changes about every 2 minutes, as an estimate on 9 visits.
		return URLInfo{URL: rawURL, Key: rawURL, State: "queued", Revisit: true, ChangeRate: 1.0 / 120, RateError: 0.14,
			Visits: 9, Changed: 6, LastChange: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), IntervalSeconds: 90,
			Importance: 2.3, Cash: 0.41, History: 3.2, Band: 5}, nil
	}
	return URLInfo{URL: rawURL, Key: rawURL, State: "queued"}, nil
}

func (f *fakeBackend) SetRevisitShare(ctx context.Context, share float64) error {
	f.record("SetRevisitShare %g", share)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shareErr != nil {
		return f.shareErr
	}
	if f.recrawl != nil {
		f.recrawl.Share = share
	}
	return nil
}

func (f *fakeBackend) Pause() {
	f.record("Pause")
	f.mu.Lock()
	f.paused = true
	f.mu.Unlock()
}

func (f *fakeBackend) Resume() {
	f.record("Resume")
	f.mu.Lock()
	f.paused = false
	f.mu.Unlock()
}
