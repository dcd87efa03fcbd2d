package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/cluster/coord"
)

// Cluster is GET /api/cluster: admin.ErrNotFound (404) for a single-node
// crawl.
func (b *backend) Cluster(ctx context.Context) (admin.ClusterStatus, error) {
	if b.cluster == nil {
		return admin.ClusterStatus{}, admin.ErrNotFound
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return b.cluster.Status(ctx)
}

// observeCluster reads the status of crawl over the NATS servers at url,
// for `godwit status --cluster`.
func observeCluster(ctx context.Context, url, crawl string) (admin.ClusterStatus, error) {
	nc, err := nats.Connect(url, nats.Name("godwit status "+crawl), nats.Timeout(5*time.Second))
	if err != nil {
		return admin.ClusterStatus{}, fmt.Errorf("--cluster %s: %w", url, err)
	}
	defer nc.Close()
	return coord.Observe(ctx, nc, crawl)
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
