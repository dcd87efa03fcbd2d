package crawl

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the crawler's instruments that are not read from Stats.
type metrics struct {
	fetchDuration *prometheus.HistogramVec // by status class
	robots        *prometheus.CounterVec   // by outcome
}

// RegisterMetrics registers the crawler's metrics on reg. Labels are
// bounded: status classes, error classes and robots outcomes, never a host
// or a URL. Call it before Run.
func (c *Crawler) RegisterMetrics(reg prometheus.Registerer) error {
	m := &metrics{
		fetchDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "godwit_fetch_duration_seconds",
			Help:    "Time from writing a request to the end of its response (or failure), by status class.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"status"}),
		robots: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "godwit_robots_outcomes_total",
			Help: "robots.txt fetches by what they taught: ok, missing (4xx), unavailable (5xx, timeouts), gave-up, redirect, not-modified.",
		}, []string{"outcome"}),
	}
	counter := func(name, help string, f func(Stats) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(f(c.stats.snapshot())) })
	}
	cs := []prometheus.Collector{
		m.fetchDuration, m.robots,
		counter("godwit_pages_total", "Page responses received (any status), robots.txt, sitemaps, redirects and requisites excluded.", func(s Stats) int64 { return s.Pages }),
		counter("godwit_received_bytes_total", "Raw body bytes received, robots.txt and sitemaps included.", func(s Stats) int64 { return s.Bytes }),
		counter("godwit_requisites_total", "Page requisite responses received (any status): images, stylesheets, scripts, fonts, media.", func(s Stats) int64 { return s.Requisites }),
		counter("godwit_requisites_found_total", "Page requisites considered (embeds of pages and stylesheets).", func(s Stats) int64 { return s.RequisitesFound }),
		counter("godwit_robots_fetches_total", "robots.txt requests sent.", func(s Stats) int64 { return s.RobotsFetches }),
		counter("godwit_redirects_total", "3xx responses to page requests (not 304).", func(s Stats) int64 { return s.Redirects }),
		counter("godwit_sitemap_fetches_total", "Responses to sitemap requests (any status).", func(s Stats) int64 { return s.SitemapFetches }),
		counter("godwit_retries_total", "Tasks put back for another attempt after a transient failure.", func(s Stats) int64 { return s.Retries }),
		counter("godwit_not_modified_total", "304 answers to conditional requests.", func(s Stats) int64 { return s.NotModified }),
		counter("godwit_throttled_total", "429 and 503 answers.", func(s Stats) int64 { return s.Throttled }),
		counter("godwit_truncated_total", "Bodies cut at the size cap or the timeout.", func(s Stats) int64 { return s.Truncated }),
		counter("godwit_discovered_links_total", "Outlinks and redirect targets considered.", func(s Stats) int64 { return s.Discovered }),
		counter("godwit_queued_urls_total", "New URLs queued.", func(s Stats) int64 { return s.Queued }),
		counter("godwit_sitemaps_total", "Sitemap files read.", func(s Stats) int64 { return s.Sitemaps }),
	}
	rcounter := func(name, help string, f func(RenderStats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return f(c.RenderStats()) })
	}
	cs = append(cs,
		rcounter("godwit_render_pages_total", "Pages rendered in the browser.", func(s RenderStats) float64 { return float64(s.Pages) }),
		rcounter("godwit_render_found_total", "Renders that found links or text the plain fetch missed.", func(s RenderStats) float64 { return float64(s.Found) }),
		rcounter("godwit_render_failed_total", "Renders given up after retries (the plain fetch was kept).", func(s RenderStats) float64 { return float64(s.Failed) }),
		rcounter("godwit_render_subrequests_total", "Browser requests fetched through the crawler.", func(s RenderStats) float64 { return float64(s.SubRequests) }),
		rcounter("godwit_render_cached_total", "Browser requests answered from requisites the crawl fetched already (no request).", func(s RenderStats) float64 { return float64(s.Cached) }),
		rcounter("godwit_render_reused_total", "Queued requisites a render had fetched already, not fetched again (no request).", func(s RenderStats) float64 { return float64(s.Reused) }),
		rcounter("godwit_render_disallowed_total", "Browser requests robots.txt disallows, failed to the browser and never sent.", func(s RenderStats) float64 { return float64(s.Disallowed) }),
		rcounter("godwit_render_not_owned_total", "Browser requests to hosts another cluster node schedules, failed to the browser.", func(s RenderStats) float64 { return float64(s.NotOwned) }),
		rcounter("godwit_render_refused_total", "Other browser requests failed to the browser (not GET, excluded, unreachable, robots.txt unavailable).", func(s RenderStats) float64 { return float64(s.Refused) }),
		rcounter("godwit_render_seconds_total", "Wall time spent rendering pages.", func(s RenderStats) float64 { return float64(s.Nanos) / 1e9 }),
	)
	for _, class := range []Class{ClassTransient, ClassPermanent, ClassPolicy} {
		cs = append(cs, prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "godwit_failures_total",
			Help:        "URLs given up or skipped, by class: transient, permanent, policy.",
			ConstLabels: prometheus.Labels{"class": class.String()},
		}, func() float64 {
			s := c.stats.snapshot()
			switch class {
			case ClassTransient:
				return float64(s.Transient)
			case ClassPermanent:
				return float64(s.Permanent)
			}
			return float64(s.Policy)
		}))
	}
	for _, col := range cs {
		if err := reg.Register(col); err != nil {
			return err
		}
	}
	c.metrics = m
	return nil
}

// observeFetch records one request's duration under its status class.
func (c *Crawler) observeFetch(out Outcome) {
	if c.metrics == nil || !out.Requested || out.Start.IsZero() || out.End.Before(out.Start) {
		return
	}
	class := "error"
	if out.Status > 0 {
		class = strconv.Itoa(out.Status/100) + "xx"
	}
	c.metrics.fetchDuration.WithLabelValues(class).Observe(out.End.Sub(out.Start).Seconds())
}

// observeRobots counts one robots.txt outcome.
func (c *Crawler) observeRobots(outcome string) {
	if c.metrics != nil {
		c.metrics.robots.WithLabelValues(outcome).Inc()
	}
}
