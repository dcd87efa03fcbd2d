package main

import (
	"fmt"
	"net/url"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/admin"
)

func newURLsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "urls",
		Short: "Ask a running crawl about its URLs",
	}
	cmd.AddCommand(newURLsShowCmd())
	return cmd
}

func newURLsShowCmd() *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   "show URL",
		Short: "Show what a running crawl knows of one URL",
		Long: `Show what a running crawl knows of one URL, from its admin server: its
canonical key, whether it is queued or done, its depth, the status and time
of its last fetch, its validators (ETag, Last-Modified), where its capture
is in the WARC files, and when it is due again (continuous crawls).`,
		Example: `  godwit urls show https://example.com/news/
  godwit urls show --json https://example.com/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.client()
			if err != nil {
				return err
			}
			var u admin.URLInfo
			printed, err := c.get(cmd, &f, "/api/urls", url.Values{"url": {args[0]}}, &u)
			if err != nil || printed {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			row := func(k, v string) { fmt.Fprintf(w, "%s\t%s\n", k, v) }
			row("url", u.URL)
			row("key", u.Key)
			row("host", u.Host)
			row("state", fmt.Sprintf("%s, depth %d", u.State, u.Depth))
			if !u.FetchedAt.IsZero() {
				row("fetched", fmt.Sprintf("%d at %s", u.Status, u.FetchedAt.UTC().Format(time.RFC3339)))
			}
			if u.ETag != "" || u.LastMod != "" {
				row("validators", fmt.Sprintf("ETag %s, Last-Modified %s", dash(u.ETag), dash(u.LastMod)))
			}
			if u.WARC != nil {
				row("warc", fmt.Sprintf("%s offset %d length %d %s", u.WARC.File, u.WARC.Offset, u.WARC.Length, u.WARC.RecordID))
			}
			next := "not scheduled"
			if !u.NextVisit.IsZero() {
				next = u.NextVisit.UTC().Format(time.RFC3339)
			}
			row("next visit", next)
			return w.Flush()
		},
	}
	f.register(cmd)
	return cmd
}
