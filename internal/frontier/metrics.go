package frontier

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/godwit-crawler/godwit/internal/politeness"
)

// RegisterMetrics registers the frontier's gauges on reg: queue depth,
// hosts by state, URLs seen, the seen-set filter's false-positive rate and
// the hosts in each circuit-breaker state, and the IP groups (hosts in
// state "waiting_ip" are held back by their address's IP budget; the
// groups at their limit; the times hosts were held back). They are read at scrape time,
// from one snapshot per scrape (Stats and the breaker count each walk the
// active hosts under the lock); labels are bounded (states, never hosts).
func (f *Frontier) RegisterMetrics(reg prometheus.Registerer) error {
	return reg.Register(collector{f})
}

var (
	descQueue    = prometheus.NewDesc("godwit_queue_urls", "URLs waiting in the frontier.", nil, nil)
	descInFlight = prometheus.NewDesc("godwit_in_flight", "Leases outstanding: requests being made.", nil, nil)
	descSeen     = prometheus.NewDesc("godwit_seen_urls", "Distinct URL keys ever added.", nil, nil)
	descBloomFP  = prometheus.NewDesc("godwit_seen_filter_false_positive_rate",
		"Measured false-positive rate of the seen-set Bloom filter.", nil, nil)
	descHosts    = prometheus.NewDesc("godwit_hosts", "Hosts by state.", []string{"state"}, nil)
	descBreakers = prometheus.NewDesc("godwit_host_breakers", "Active hosts by circuit-breaker state.", []string{"state"}, nil)
	descIPGroups = prometheus.NewDesc("godwit_ip_groups", "IP addresses (IPv6: /64 prefixes) the active hosts resolved to, each with its IP budget.", nil, nil)
	descIPFull   = prometheus.NewDesc("godwit_ip_groups_full",
		"IP groups with as many requests in flight as their IP budget allows (cluster mode: as this node's slots of the address allow).", nil, nil)
	descIPWaits = prometheus.NewDesc("godwit_ip_waits_total",
		"Times a host ready by its own rules was held back by its IP address's budget.", nil, nil)
)

// collector exports a Frontier's metrics.
type collector struct{ f *Frontier }

func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descQueue, descInFlight, descSeen, descBloomFP, descHosts, descBreakers, descIPGroups, descIPFull, descIPWaits} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s := c.f.Stats()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descQueue, float64(s.Queued))
	gauge(descInFlight, float64(s.InFlight))
	gauge(descSeen, float64(s.Seen))
	gauge(descBloomFP, s.BloomFPRate)
	for _, h := range []struct {
		state string
		n     int
	}{{"known", s.Hosts}, {"active", s.Active}, {"ready", s.Ready}, {"waiting", s.Waiting}, {"waiting_ip", s.WaitingIP}, {"blocked", s.Blocked}} {
		gauge(descHosts, float64(h.n), h.state)
	}
	gauge(descIPGroups, float64(s.IPGroups))
	ip := c.f.IPSummary()
	gauge(descIPFull, float64(ip.Full))
	ch <- prometheus.MustNewConstMetric(descIPWaits, prometheus.CounterValue, float64(ip.Waits))
	br := c.f.breakers()
	for _, b := range []politeness.Breaker{politeness.BreakerClosed, politeness.BreakerOpen, politeness.BreakerHalfOpen} {
		gauge(descBreakers, float64(br[b]), b.String())
	}
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
