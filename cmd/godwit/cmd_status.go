package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/admin"
)

func newStatusCmd() *cobra.Command {
	var f adminFlags
	var data, natsURL, crawlName string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show a running crawl's status, or a data directory's (--data)",
		Long: `Show a running crawl's status, from its admin server: fetch rates, queue,
hosts by state, errors, deduplication, revisits (continuous crawls) and the
busiest hosts.

With --data DIR, show what the data directory says about its crawl, with no
crawl running needed: whether one runs there now, its last run, its stored
settings, its progress (URLs seen, queued and fetched, hosts; read from its
store when no crawl runs) and its WARC files (status_data.go).

A node of a cluster crawl adds the whole cluster's status: its nodes, the
shards each owns, their pages and rates, the crawl-wide totals, and whether
the crawl is over. With --cluster and --crawl, show that from the NATS
servers, with no node's admin API needed.`,
		Example: `  godwit status
  godwit status --admin 10.0.0.5:7070 --admin-token "$TOKEN" --json
  godwit status --data ./godwit-data
  godwit status --cluster nats://127.0.0.1:4222 --crawl news`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed(flagStatusData.name) {
				st, err := dataStatus(data)
				if err != nil {
					return err
				}
				return printDataStatus(cmd, st, f.json)
			}
			if natsURL != "" || crawlName != "" {
				if natsURL == "" || crawlName == "" {
					return errors.New("--cluster and --crawl go together")
				}
				st, err := observeCluster(cmd.Context(), natsURL, crawlName)
				if err != nil {
					return failure{err}
				}
				if f.json {
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					return enc.Encode(st)
				}
				return printClusterStatus(cmd.OutOrStdout(), st)
			}
			c, err := f.client()
			if err != nil {
				return err
			}
			var st admin.Status
			if printed, err := c.get(cmd, &f, "/api/status", nil, &st); err != nil || printed {
				return err
			}
			printStatus(cmd.OutOrStdout(), st)
			// A cluster node's status goes on with the whole cluster's.
			var cs admin.ClusterStatus
			if data, err := c.call(cmd.Context(), http.MethodGet, "/api/cluster", nil, nil); err == nil && json.Unmarshal(data, &cs) == nil {
				fmt.Fprintln(cmd.OutOrStdout())
				return printClusterStatus(cmd.OutOrStdout(), cs)
			}
			return nil
		},
	}
	f.register(cmd)
	flagStatusData.stringVar(cmd.Flags(), &data, "")
	flagStatusCluster.stringVar(cmd.Flags(), &natsURL, "")
	flagStatusCrawl.stringVar(cmd.Flags(), &crawlName, "")
	return cmd
}
