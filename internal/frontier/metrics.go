package frontier

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/godwit-crawler/godwit/internal/politeness"
)

// RegisterMetrics registers the frontier's gauges on reg: queue depth,
// hosts by state, URLs seen, the seen-set filter's false-positive rate and
// the hosts in each circuit-breaker state. They are read at scrape time;
// labels are bounded (states, never hosts).
func (f *Frontier) RegisterMetrics(reg prometheus.Registerer) error {
	gauge := func(name, help string, labels prometheus.Labels, v func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels}, v)
	}
	cs := []prometheus.Collector{
		gauge("godwit_queue_urls", "URLs waiting in the frontier.", nil, func() float64 { return float64(f.Stats().Queued) }),
		gauge("godwit_in_flight", "Leases outstanding: requests being made.", nil, func() float64 { return float64(f.Stats().InFlight) }),
		gauge("godwit_seen_urls", "Distinct URL keys ever added.", nil, func() float64 { return float64(f.Stats().Seen) }),
		gauge("godwit_seen_filter_false_positive_rate", "Measured false-positive rate of the seen-set Bloom filter.", nil,
			func() float64 { return f.Stats().BloomFPRate }),
	}
	for _, st := range []struct {
		state string
		v     func(s hostCounts) int
	}{
		{"known", func(s hostCounts) int { return s.known }},
		{"active", func(s hostCounts) int { return s.active }},
		{"ready", func(s hostCounts) int { return s.ready }},
		{"waiting", func(s hostCounts) int { return s.waiting }},
		{"blocked", func(s hostCounts) int { return s.blocked }},
	} {
		cs = append(cs, gauge("godwit_hosts", "Hosts by state.", prometheus.Labels{"state": st.state},
			func() float64 { return float64(st.v(f.hostCounts())) }))
	}
	for _, b := range []politeness.Breaker{politeness.BreakerClosed, politeness.BreakerOpen, politeness.BreakerHalfOpen} {
		cs = append(cs, gauge("godwit_host_breakers", "Active hosts by circuit-breaker state.", prometheus.Labels{"state": b.String()},
			func() float64 { return float64(f.breakers()[b]) }))
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

type hostCounts struct{ known, active, ready, waiting, blocked int }

func (f *Frontier) hostCounts() hostCounts {
	s := f.Stats()
	return hostCounts{known: s.Hosts, active: s.Active, ready: s.Ready, waiting: s.Waiting, blocked: s.Blocked}
}

// breakers counts the active hosts in each breaker state.
func (f *Frontier) breakers() map[politeness.Breaker]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := map[politeness.Breaker]int{}
	for _, h := range f.hosts {
		m[h.rec.pol.Breaker]++
	}
	return m
}
