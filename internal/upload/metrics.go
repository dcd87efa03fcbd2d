package upload

import "github.com/prometheus/client_golang/prometheus"

// RegisterMetrics registers the Uploader's counters and gauges on reg:
// files and bytes uploaded, failed uploads, conflicts and files found
// already uploaded, the spool's pending files and bytes, and whether it is
// full.
func (u *Uploader) RegisterMetrics(reg prometheus.Registerer) error {
	counter := func(name, help string, v func(Stats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return v(u.Stats()) })
	}
	gauge := func(name, help string, v func(Stats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return v(u.Stats()) })
	}
	for _, c := range []prometheus.Collector{
		counter("godwit_store_uploaded_files_total", "WARC and index files uploaded to the object store by this process.", func(s Stats) float64 { return float64(s.Uploaded) }),
		counter("godwit_store_uploaded_bytes_total", "Bytes uploaded to the object store by this process.", func(s Stats) float64 { return float64(s.UploadedBytes) }),
		counter("godwit_store_upload_failures_total", "Uploads that failed and will be retried.", func(s Stats) float64 { return float64(s.Failures) }),
		counter("godwit_store_upload_conflicts_total", "Files not uploaded because their key held another object with other bytes (not replaced; the files stay in the spool).", func(s Stats) float64 { return float64(s.Conflicts) }),
		counter("godwit_store_upload_existing_total", "Files whose key already held their bytes (an earlier upload), recorded without a write.", func(s Stats) float64 { return float64(s.Existing) }),
		gauge("godwit_store_pending_files", "Complete files in the spool waiting for upload.", func(s Stats) float64 { return float64(s.Pending) }),
		gauge("godwit_store_pending_bytes", "Bytes of complete files in the spool waiting for upload.", func(s Stats) float64 { return float64(s.PendingBytes) }),
		gauge("godwit_store_spool_full", "1 while the spool is over its limit and the crawl is paused.", func(s Stats) float64 {
			if s.Full {
				return 1
			}
			return 0
		}),
	} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
