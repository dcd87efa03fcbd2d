package crawl

import (
	"testing"
	"time"
)

func TestActivity(t *testing.T) {
	var a activity
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	// 10 minutes ago (out of the window), 5 minutes ago, and in the last minute.
	a.record(t0.Add(-11*time.Minute), "old.test", true)
	for range 30 {
		a.record(t0.Add(-5*time.Minute), "b.test", true)
	}
	for range 60 {
		a.record(t0.Add(-20*time.Second), "a.test", true)
	}
	a.record(t0.Add(-20*time.Second), "a.test", false) // robots.txt: a request, not a page
	got := a.snapshot(t0, t0.Add(-time.Hour))
	if len(got.Rate) != numBuckets {
		t.Fatalf("%d rate points, want %d", len(got.Rate), numBuckets)
	}
	var pages int64
	for _, p := range got.Rate {
		pages += p.Pages
	}
	if pages != 90 {
		t.Errorf("pages in the window = %d, want 90 (the 11-minute-old one is out)", pages)
	}
	if got.Pages1m < 0.9 || got.Pages1m > 1.2 { // 60 pages over the last minute
		t.Errorf("Pages1m = %v, want ≈1", got.Pages1m)
	}
	if got.Pages10m < 0.14 || got.Pages10m > 0.16 { // 90 pages over 10 minutes
		t.Errorf("Pages10m = %v, want ≈0.15", got.Pages10m)
	}
	if len(got.TopHosts) != 2 || got.TopHosts[0] != (HostRequests{"a.test", 61}) || got.TopHosts[1] != (HostRequests{"b.test", 30}) {
		t.Errorf("TopHosts = %+v", got.TopHosts)
	}
	// A young crawl: rates over its age, not the whole window.
	young := a.snapshot(t0, t0.Add(-30*time.Second))
	if young.Pages10m < 2.9 { // 90 pages in 30 s
		t.Errorf("Pages10m of a 30 s old crawl = %v, want ≈3", young.Pages10m)
	}
}
