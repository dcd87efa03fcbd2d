package fetch

import "github.com/prometheus/client_golang/prometheus"

// RegisterMetrics registers the client's DNS cache counters on reg.
func (c *Client) RegisterMetrics(reg prometheus.Registerer) error {
	for _, m := range []struct {
		result string
		v      func(DNSStats) uint64
	}{
		{"hit", func(s DNSStats) uint64 { return s.Hits }},
		{"negative-hit", func(s DNSStats) uint64 { return s.NegativeHits }},
		{"miss", func(s DNSStats) uint64 { return s.Misses }},
		{"joined", func(s DNSStats) uint64 { return s.Joins }},
	} {
		err := reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "godwit_dns_lookups_total",
			Help:        "Host name lookups by result in the DNS cache: hit, negative-hit, miss (asked the resolver), joined (waited for a lookup in flight).",
			ConstLabels: prometheus.Labels{"result": m.result},
		}, func() float64 { return float64(m.v(c.DNSStats())) }))
		if err != nil {
			return err
		}
	}
	return reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "godwit_dns_cache_entries", Help: "Names in the DNS cache.",
	}, func() float64 { return float64(c.DNSStats().Entries) }))
}
