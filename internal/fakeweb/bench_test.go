package fakeweb_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// BenchmarkServePage measures the handler alone: routing, generating a
// default-sized page and logging the request.
func BenchmarkServePage(b *testing.B) {
	web, err := fakeweb.New(fakeweb.Config{Hosts: 1000, PagesPerHost: 1000})
	if err != nil {
		b.Fatal(err)
	}
	h := web.Handler()
	req := httptest.NewRequest(http.MethodGet, "http://h417.fake.test/p/733", nil)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
		b.SetBytes(int64(rec.Body.Len()))
		// Keep the log from growing with b.N.
		if i++; i%4096 == 0 {
			web.Reset()
		}
	}
}

// BenchmarkReport measures judging a crawl of a 1000 × 1000 web (the
// ground-truth walk dominates).
func BenchmarkReport(b *testing.B) {
	web, err := fakeweb.New(fakeweb.Config{Hosts: 1000, PagesPerHost: 1000})
	if err != nil {
		b.Fatal(err)
	}
	h := web.Handler()
	for _, u := range []string{"http://h1.fake.test/robots.txt", "http://h1.fake.test/", "http://h1.fake.test/p/1"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, u, nil))
	}
	b.ReportAllocs()
	for b.Loop() {
		if rep := web.Report(fakeweb.Judge{}); rep.Reachable != 1000*1000 {
			b.Fatalf("reachable %d", rep.Reachable)
		}
	}
}
