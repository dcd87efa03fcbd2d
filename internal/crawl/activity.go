package crawl

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Activity windows: what happened in the last ActivityWindow, in buckets
// of ActivityBucket.
const (
	ActivityBucket = 10 * time.Second
	ActivityWindow = 10 * time.Minute
	numBuckets     = int(ActivityWindow / ActivityBucket)
)

// activity counts pages and requests per host over the last ten minutes,
// for rates and the hosts contacted most (the first sign of a politeness
// problem). Memory is bounded by the requests made in the window.
type activity struct {
	mu      sync.Mutex
	buckets [numBuckets]bucket
}

type bucket struct {
	start    time.Time // zero: unused
	pages    int64
	requests map[string]int32 // by host
}

// record notes one request to host at t; page says it fetched a page
// (not robots.txt or a sitemap).
func (a *activity) record(t time.Time, host string, page bool) {
	start := t.Truncate(ActivityBucket)
	i := int(start.UnixNano()/int64(ActivityBucket)) % numBuckets
	a.mu.Lock()
	defer a.mu.Unlock()
	b := &a.buckets[i]
	if !b.start.Equal(start) {
		*b = bucket{start: start, requests: make(map[string]int32)}
	}
	if page {
		b.pages++
	}
	b.requests[host]++
}

// RatePoint is the pages fetched in one ActivityBucket.
type RatePoint struct {
	Start time.Time
	Pages int64
}

// HostRequests is a host and its requests over the activity window.
type HostRequests struct {
	Host     string
	Requests int64
}

// Activity is the last ActivityWindow of a crawl.
type Activity struct {
	// Rate holds one point per bucket, oldest first, ending with the
	// current (partial) bucket.
	Rate []RatePoint
	// Pages1m and Pages10m are pages per second over the last 1 and 10
	// minutes (or the time since started, when shorter).
	Pages1m, Pages10m float64
	// TopHosts are the hosts with the most requests in the window, most
	// first, at most 10.
	TopHosts []HostRequests
	// RequestsByHost counts requests per host in the window.
	RequestsByHost map[string]int64
}

func (a *activity) snapshot(now, started time.Time) Activity {
	cur := now.Truncate(ActivityBucket)
	out := Activity{RequestsByHost: map[string]int64{}}
	var pages1m, pages10m int64
	a.mu.Lock()
	for k := numBuckets - 1; k >= 0; k-- {
		start := cur.Add(-time.Duration(k) * ActivityBucket)
		i := int(start.UnixNano()/int64(ActivityBucket)) % numBuckets
		b := &a.buckets[i]
		p := RatePoint{Start: start}
		if b.start.Equal(start) {
			p.Pages = b.pages
			for h, n := range b.requests {
				out.RequestsByHost[h] += int64(n)
			}
		}
		out.Rate = append(out.Rate, p)
		pages10m += p.Pages
		if k < int(time.Minute/ActivityBucket) {
			pages1m += p.Pages
		}
	}
	a.mu.Unlock()
	span := func(w time.Duration) float64 {
		if !started.IsZero() && now.Sub(started) < w {
			w = now.Sub(started)
		}
		return max(w.Seconds(), 1)
	}
	// The current bucket is partial: the windows end now.
	out.Pages1m = float64(pages1m) / span(time.Minute-ActivityBucket+now.Sub(cur))
	out.Pages10m = float64(pages10m) / span(ActivityWindow-ActivityBucket+now.Sub(cur))
	for h, n := range out.RequestsByHost {
		out.TopHosts = append(out.TopHosts, HostRequests{h, n})
	}
	slices.SortFunc(out.TopHosts, func(x, y HostRequests) int {
		if c := cmp.Compare(y.Requests, x.Requests); c != 0 {
			return c
		}
		return cmp.Compare(x.Host, y.Host)
	})
	if len(out.TopHosts) > 10 {
		out.TopHosts = out.TopHosts[:10]
	}
	return out
}
