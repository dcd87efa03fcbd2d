package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/cluster/jetstream"
)

// readClusterStatus reads a cluster crawl's status across its nodes
// from its shared state: the nodes' reports (nodeStats, in their member
// keys), the assignment, the leader, the seeds, whether it is over, and
// the size of its logs. self is the node asking ("" for none).
func readClusterStatus(ctx context.Context, jn *jetstream.Node, self string) (admin.ClusterStatus, error) {
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
		var ns nodeStats
		_ = json.Unmarshal(m.Stats, &ns) // a node that has not reported yet shows zeros
		n := admin.ClusterNode{
			ID: m.ID, AssignedShards: assigned[m.ID], OwnedShards: ns.Shards,
			Pages: ns.Pages, Requests: ns.Requests, PagesPerSecond: ns.PagesPerSecond,
			Queued: ns.Queued, InFlight: ns.InFlight, Admin: ns.Admin, Started: ns.Started, Updated: m.Updated,
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
		var nt nodeTally
		if json.Unmarshal(b, &nt) == nil {
			st.Totals.Pages += nt.Pages
			st.Totals.Requests += nt.Requests
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

// Cluster is GET /api/cluster: admin.ErrNotFound (404) for a single-node
// crawl.
func (b *backend) Cluster(ctx context.Context) (admin.ClusterStatus, error) {
	if b.cluster == nil {
		return admin.ClusterStatus{}, admin.ErrNotFound
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return readClusterStatus(ctx, b.cluster.js, b.cluster.js.Name())
}

// observeCluster reads the status of crawl over the NATS servers at url,
// for `godwit status --cluster`.
func observeCluster(ctx context.Context, url, crawl string) (admin.ClusterStatus, error) {
	nc, err := nats.Connect(url, nats.Name("godwit status "+crawl), nats.Timeout(5*time.Second))
	if err != nil {
		return admin.ClusterStatus{}, fmt.Errorf("--cluster %s: %w", url, err)
	}
	defer nc.Close()
	jn, err := jetstream.Observe(ctx, nc, crawl, 5*time.Second)
	if err != nil {
		return admin.ClusterStatus{}, err
	}
	defer jn.Close()
	return readClusterStatus(ctx, jn, "")
}

func printClusterStatus(out io.Writer, st admin.ClusterStatus) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	state := "running"
	if st.Done != nil {
		state = fmt.Sprintf("over (found so by %s at %s)", st.Done.By, st.Done.At.Local().Format("2006-01-02 15:04:05 MST"))
	}
	fmt.Fprintf(tw, "cluster crawl\t%s: %s; leader %s\n", st.Crawl, state, orDash(st.Leader))
	t := st.Totals
	fmt.Fprintf(tw, "fetched\t%s pages (%.1f/s over the last minute), %s requests in all, by %d nodes\n",
		humanCount(t.Pages), t.PagesPerSecond, humanCount(t.Requests), t.Nodes)
	fmt.Fprintf(tw, "queue\t%s queued, %d in flight; %d seeds\n", humanCount(int64(t.Queued)), t.InFlight, st.Seeds)
	unowned := ""
	if st.UnownedShards > 0 {
		unowned = fmt.Sprintf(", %d without an owner", st.UnownedShards)
	}
	fmt.Fprintf(tw, "shards\t%d on %d live nodes%s\n", st.Shards, len(st.Nodes), unowned)
	fmt.Fprintf(tw, "log\t%s events kept of %s appended (snapshots cut the rest), %s in %d streams\n",
		humanCount(int64(st.Log.Messages)), humanCount(int64(st.Log.Appended)), humanBytes(int64(st.Log.Bytes)), st.Log.Streams)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tSHARDS\tPAGES\tPAGES/S\tQUEUED\tIN FLIGHT\tADMIN\tREPORTED")
	for _, n := range st.Nodes {
		shards := fmt.Sprint(n.OwnedShards)
		if n.OwnedShards != n.AssignedShards {
			shards = fmt.Sprintf("%d of %d", n.OwnedShards, n.AssignedShards)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%s\t%d\t%s\t%s ago\n", n.ID, shards, humanCount(n.Pages), n.PagesPerSecond,
			humanCount(int64(n.Queued)), n.InFlight, orDash(n.Admin), humanDuration(time.Since(n.Updated).Round(100*time.Millisecond)))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// clusterCollector exports the cluster's status on a node's /metrics,
// read at each scrape: the crawl-wide totals and each node's figures.
type clusterCollector struct {
	jn *jetstream.Node

	nodes, unowned, done, logMessages, logBytes, logAppended *prometheus.Desc
	pages, requests, rate, shards, queued                    *prometheus.Desc
}

func newClusterCollector(jn *jetstream.Node) *clusterCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("godwit_cluster_"+name, help, labels, nil)
	}
	return &clusterCollector{
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

func (c *clusterCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.nodes, c.unowned, c.done, c.logMessages, c.logBytes, c.logAppended,
		c.pages, c.requests, c.rate, c.shards, c.queued} {
		ch <- d
	}
}

func (c *clusterCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := readClusterStatus(ctx, c.jn, c.jn.Name())
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
