package freshness_test

import (
	"fmt"
	"time"

	"github.com/godwit-crawler/godwit/internal/freshness"
)

// A page visited three times: the estimate moves from the sitemap's
// "daily" towards what the visits saw, and the scheduler turns it into
// the next visit.
func Example() {
	var p freshness.Policy
	p.Default()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	s := p.NewState("daily")
	s = p.Observe(s, freshness.Observation{At: start})
	s = p.Observe(s, freshness.Observation{At: start.Add(2 * time.Hour), Changed: true})
	s = p.Observe(s, freshness.Observation{At: start.Add(3 * time.Hour), Changed: true})
	fmt.Printf("about one change every %v\n", time.Duration(float64(time.Second)/p.Rate(s)).Round(time.Minute))

	// The scheduler calibrates mu on a sample of the collection's rates
	// for its revisit budget, here 1 fetch a minute for 100 pages.
	rates := make([]float64, 100)
	for i := range rates {
		rates[i] = 1 / (float64(i+1) * 3600)
	}
	mu := p.CalibrateMu(rates, nil, 1/60.0)
	fmt.Println("next visit:", p.Next(s, 1, mu).Format(time.DateTime))

	// OPIC: a seed (cash 1) with 3 outlinks is fetched.
	spent, each := freshness.Distribute(1, 3)
	fmt.Printf("history +%g, each outlink +%g, band of the seed %d\n", spent, each,
		freshness.Band(freshness.Importance(spent, 0, spent+3*each, 4), 0, 0, false))
	// Output:
	// about one change every 8h29m0s
	// next visit: 2026-01-01 04:00:00
	// history +2, each outlink +0.5, band of the seed 6
}
