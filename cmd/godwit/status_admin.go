package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
)

// The output of godwit status for a running crawl, from its admin API
// (status_data.go: a data directory's; status_cluster.go: a cluster's).

func printStatus(out io.Writer, st admin.Status) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	state := "running"
	if st.Paused {
		state = "paused"
	}
	fmt.Fprintf(tw, "state\t%s, up %s\n", state, humanDuration(time.Duration(st.UptimeSeconds*float64(time.Second))))
	// The rates are over the last 1 and 10 minutes, or the crawl's age
	// while it is younger: say which.
	up := time.Duration(st.UptimeSeconds * float64(time.Second))
	window := func(w time.Duration) string {
		if up > 0 && up < w {
			return humanDuration(up.Round(time.Second))
		}
		return fmt.Sprintf("%dm", int(w.Minutes()))
	}
	fmt.Fprintf(tw, "fetched\t%s pages (%.1f/s over %s, %.1f/s over %s); %s redirects, %s robots.txt, %s sitemaps\n",
		humanCount(st.PagesFetched), st.PagesPerSecond1m, window(time.Minute), st.PagesPerSecond10m, window(10*time.Minute),
		humanCount(st.Redirects), humanCount(st.RobotsFetches), humanCount(st.SitemapFetches))
	fmt.Fprintf(tw, "queue\t%s URLs, %d in flight\n", humanCount(st.QueueDepth), st.InFlight)
	h := st.Hosts
	forIP := ""
	if h.WaitingIP > 0 {
		forIP = ", " + humanCount(h.WaitingIP) + " for their IP"
	}
	fmt.Fprintf(tw, "hosts\t%s known, %s active (%s ready, %s waiting%s, %s blocked)\n",
		humanCount(h.Known), humanCount(h.Active), humanCount(h.Ready), humanCount(h.Waiting), forIP, humanCount(h.Blocked))
	classes := make([]string, 0, len(st.Errors))
	for k := range st.Errors {
		classes = append(classes, k)
	}
	sort.Strings(classes)
	var errs []string
	for _, k := range classes {
		errs = append(errs, fmt.Sprintf("%s %s", humanCount(st.Errors[k]), k))
	}
	if len(errs) == 0 {
		errs = []string{"none"}
	}
	fmt.Fprintf(tw, "errors\t%s (%.2f%% of fetches)\n", strings.Join(errs, ", "), st.ErrorRate*100)
	if len(st.TLSErrors) > 0 {
		fmt.Fprintf(tw, "TLS\tfailed: %s\n", tlsKindsLine(st.TLSErrors))
	}
	d := st.Dedup
	fmt.Fprintf(tw, "dedup\t%s revisits, %s not modified, %s near-duplicates, %s URLs seen\n",
		humanCount(d.Revisits), humanCount(d.NotModified), humanCount(d.NearDuplicates), humanCount(d.SeenURLs))
	fmt.Fprintf(tw, "WARC\t%s\n", adminBytes(st.WARCBytes))
	if st.Recrawl != nil {
		printRecrawl(tw, st.Recrawl)
	}
	for _, p := range st.Processors {
		switch {
		case p.Broken:
			fmt.Fprintf(tw, "processor	%s: broken (%s); %s pages went on without it\n", p.Name, p.Why, humanCount(p.Skipped))
		case p.Skipped > 0:
			fmt.Fprintf(tw, "processor	%s: answering; %s pages went on without it while it was broken\n", p.Name, humanCount(p.Skipped))
		default:
			fmt.Fprintf(tw, "processor	%s: answering\n", p.Name)
		}
	}
	tw.Flush()
	if len(st.TopHosts) > 0 {
		fmt.Fprintln(out, "\nbusiest hosts (requests in the last 10 minutes):")
		tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		for _, t := range st.TopHosts {
			fmt.Fprintf(tw, "  %s\t%s\n", t.Host, humanCount(t.Requests))
		}
		tw.Flush()
	}
}
