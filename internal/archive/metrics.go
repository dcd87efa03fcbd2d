package archive

import "github.com/prometheus/client_golang/prometheus"

// RegisterMetrics registers the archive's counters on reg: records by
// kind and WARC bytes written.
func (a *Archive) RegisterMetrics(reg prometheus.Registerer) error {
	counter := func(name, help string, labels prometheus.Labels, v func(Stats) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels},
			func() float64 { return float64(v(a.Stats())) })
	}
	for _, c := range []prometheus.Collector{
		counter("godwit_archive_records_total", "Captures archived, by kind.", prometheus.Labels{"kind": "response"}, func(s Stats) int64 { return s.Responses }),
		counter("godwit_archive_records_total", "Captures archived, by kind.", prometheus.Labels{"kind": "revisit-identical"}, func(s Stats) int64 { return s.Revisits }),
		counter("godwit_archive_records_total", "Captures archived, by kind.", prometheus.Labels{"kind": "revisit-not-modified"}, func(s Stats) int64 { return s.NotModified }),
		counter("godwit_dedup_saved_bytes_total", "Payload bytes not stored again thanks to identical-payload revisits.", nil, func(s Stats) int64 { return s.RevisitBytes }),
		counter("godwit_near_duplicates_total", "Pages whose text was near an earlier page's.", nil, func(s Stats) int64 { return s.NearDuplicates }),
		counter("godwit_warc_bytes_total", "Bytes written to WARC files by this process.", nil, func(s Stats) int64 { return s.WARCBytes }),
	} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
