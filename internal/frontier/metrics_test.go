package frontier

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/godwit-crawler/godwit/internal/crawl"
)

// TestMetrics: the frontier's gauges read its state at scrape time.
func TestMetrics(t *testing.T) {
	f := newTestFrontier(t, 0)
	reg := prometheus.NewPedanticRegistry()
	if err := f.RegisterMetrics(reg); err != nil {
		t.Fatal(err)
	}
	f.Add(t.Context(), []crawl.Link{link("a", 1), link("a", 2), link("b", 1)})
	f.Control(t.Context(), crawl.Control{Op: crawl.BlockHost, Host: "b"})
	want := `
# HELP godwit_hosts Hosts by state.
# TYPE godwit_hosts gauge
godwit_hosts{state="active"} 2
godwit_hosts{state="blocked"} 1
godwit_hosts{state="known"} 2
godwit_hosts{state="ready"} 1
godwit_hosts{state="waiting"} 0
godwit_hosts{state="waiting_ip"} 0
# HELP godwit_queue_urls URLs waiting in the frontier.
# TYPE godwit_queue_urls gauge
godwit_queue_urls 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "godwit_hosts", "godwit_queue_urls"); err != nil {
		t.Error(err)
	}
}
