package coord

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/cluster/jetstream"
)

// ReadStatus reads a cluster crawl's status across its nodes from its
// shared state: the nodes' reports (Report, in their member keys), the
// assignment, the leader, the seeds, whether it is over, and the size of
// its logs. self is the node asking ("" for none).
func ReadStatus(ctx context.Context, jn *jetstream.Node, self string) (admin.ClusterStatus, error) {
	st := admin.ClusterStatus{Crawl: jn.Crawl(), Node: self, Shards: jn.Shards()}
	members, err := jn.Members(ctx)
	if err != nil {
		return st, err
	}
	a, err := jn.ReadAssignment(ctx)
	if err != nil {
		return st, err
	}
	assigned := a.Counts()
	st.UnownedShards = st.Shards
	for _, n := range assigned {
		st.UnownedShards -= n
	}
	if st.Leader, err = jn.Leader(ctx); err != nil {
		return st, err
	}
	seeds, err := jn.Seeds(ctx)
	if err != nil {
		return st, err
	}
	st.Seeds = len(seeds)
	done, err := jn.Done(ctx)
	if err != nil {
		return st, err
	}
	if done != nil {
		st.Done = &admin.ClusterDone{At: done.At, By: done.By}
	}
	infos, err := jn.StreamsInfo(ctx)
	if err != nil {
		return st, err
	}
	st.Log.Streams = len(infos)
	for _, si := range infos {
		st.Log.Messages += si.State.Msgs
		st.Log.Bytes += si.State.Bytes
		st.Log.Appended += si.State.LastSeq
	}
	st.Nodes = make([]admin.ClusterNode, 0, len(members))
	for _, m := range members {
		var r Report
		_ = json.Unmarshal(m.Stats, &r) // a node that has not reported yet shows zeros
		n := admin.ClusterNode{
			ID: m.ID, AssignedShards: assigned[m.ID], OwnedShards: r.Shards,
			Pages: r.Pages, Requests: r.Requests, PagesPerSecond: r.PagesPerSecond,
			Queued: r.Queued, InFlight: r.InFlight, Admin: r.Admin, Started: r.Started, Updated: m.Updated,
		}
		st.Nodes = append(st.Nodes, n)
		t := &st.Totals
		t.PagesPerSecond += n.PagesPerSecond
		t.Queued += n.Queued
		t.InFlight += n.InFlight
	}
	// Pages and requests are the crawl's: every node's tally, over all
	// its runs, whether it is still there or not; a live node that has
	// written none yet counts its report.
	tallies, err := jn.Tallies(ctx)
	if err != nil {
		return st, err
	}
	for _, b := range tallies {
		var t Tally
		if json.Unmarshal(b, &t) == nil {
			st.Totals.Pages += t.Pages
			st.Totals.Requests += t.Requests
		}
	}
	st.Totals.Nodes = len(tallies)
	for _, n := range st.Nodes {
		if _, ok := tallies[n.ID]; !ok {
			st.Totals.Pages += n.Pages
			st.Totals.Requests += n.Requests
			st.Totals.Nodes++
		}
	}
	return st, nil
}

// Observe reads the status of crawl over nc without joining it (for
// `godwit status --cluster`).
func Observe(ctx context.Context, nc *nats.Conn, crawl string) (admin.ClusterStatus, error) {
	jn, err := jetstream.Observe(ctx, nc, crawl, 5*time.Second)
	if err != nil {
		return admin.ClusterStatus{}, err
	}
	defer jn.Close()
	return ReadStatus(ctx, jn, "")
}

// collector exports the cluster's status on a node's /metrics, read at
// each scrape: the crawl-wide totals and each node's figures.
type collector struct {
	jn *jetstream.Node

	nodes, unowned, done, logMessages, logBytes, logAppended *prometheus.Desc
	pages, requests, rate, shards, queued                    *prometheus.Desc
}

// Collector exports the status of jn's crawl (ReadStatus, as jn's node)
// as godwit_cluster_* metrics, read at each scrape.
func Collector(jn *jetstream.Node) prometheus.Collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("godwit_cluster_"+name, help, labels, nil)
	}
	return &collector{
		jn:          jn,
		nodes:       d("nodes", "Live nodes of the cluster crawl."),
		unowned:     d("unowned_shards", "Shards the assignment gives no node."),
		done:        d("done", "1 once the cluster crawl is over (every node idle), else 0."),
		logMessages: d("log_messages", "Events in the crawl's shard logs (all streams)."),
		logBytes:    d("log_bytes", "Bytes of the crawl's shard logs (all streams)."),
		logAppended: d("log_appended", "Events ever appended to the crawl's shard logs (snapshots cut them)."),
		pages:       d("node_pages", "Pages fetched by a node in its current run.", "node"),
		requests:    d("node_requests", "Requests answered to a node in its current run (pages, redirects, robots.txt, sitemaps, requisites).", "node"),
		rate:        d("node_pages_per_second", "A node's pages per second over the last minute.", "node"),
		shards:      d("node_shards", "Shards a node has taken over and fetches from.", "node"),
		queued:      d("node_queued", "URLs queued in a node's shards.", "node"),
	}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.nodes, c.unowned, c.done, c.logMessages, c.logBytes, c.logAppended,
		c.pages, c.requests, c.rate, c.shards, c.queued} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := ReadStatus(ctx, c.jn, c.jn.Name())
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.nodes, err)
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(c.nodes, float64(len(st.Nodes)))
	gauge(c.unowned, float64(st.UnownedShards))
	done := 0.0
	if st.Done != nil {
		done = 1
	}
	gauge(c.done, done)
	gauge(c.logMessages, float64(st.Log.Messages))
	gauge(c.logBytes, float64(st.Log.Bytes))
	gauge(c.logAppended, float64(st.Log.Appended))
	for _, n := range st.Nodes {
		gauge(c.pages, float64(n.Pages), n.ID)
		gauge(c.requests, float64(n.Requests), n.ID)
		gauge(c.rate, n.PagesPerSecond, n.ID)
		gauge(c.shards, float64(n.OwnedShards), n.ID)
		gauge(c.queued, float64(n.Queued), n.ID)
	}
}
