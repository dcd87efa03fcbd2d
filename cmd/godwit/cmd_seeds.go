package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/admin"
)

func newSeedsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "seeds",
		Short: "Add seeds to a running crawl",
	}
	var (
		f        adminFlags
		priority int
	)
	add := &cobra.Command{
		Use:   "add URL...",
		Short: "Queue URLs as seeds of a running crawl",
		Long: `Queue URLs as seeds of a running crawl, through its admin server. Each URL
is queued or rejected (already seen, out of scope, invalid); the rejected
ones are listed with the reason. Without arguments, read URLs from
standard input, one per line ('#' starts a comment).`,
		Example: `  godwit seeds add https://example.com/ https://example.org/news/
  godwit seeds add --priority 0 < urgent.txt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if priority < 0 {
				return fmt.Errorf("--priority %d: must not be negative", priority)
			}
			urls := args
			if len(urls) == 0 {
				if err := eachLine(cmd.InOrStdin(), func(s string) { urls = append(urls, s) }); err != nil {
					return err
				}
			}
			if len(urls) == 0 {
				return errors.New("no URLs to add")
			}
			c, err := f.client()
			if err != nil {
				return err
			}
			data, err := c.call(cmd.Context(), http.MethodPost, "/api/seeds", nil, admin.SeedsRequest{URLs: urls, Priority: priority})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if f.json {
				_, err := out.Write(data)
				return err
			}
			var res admin.SeedsResult
			if err := json.Unmarshal(data, &res); err != nil {
				return failure{fmt.Errorf("admin API: /api/seeds: bad answer: %w", err)}
			}
			fmt.Fprintf(out, "queued %d of %d URLs\n", res.Queued, len(urls))
			if len(res.Rejected) > 0 {
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				for _, r := range res.Rejected {
					detail := r.Reason
					if r.Detail != "" {
						detail += ": " + r.Detail
					}
					fmt.Fprintf(tw, "  %s\t%s\n", r.URL, detail)
				}
				tw.Flush()
			}
			return nil
		},
	}
	f.register(add)
	flagSeedsPriority.intVar(add.Flags(), &priority, 0)
	cmd.AddCommand(add)
	return cmd
}
