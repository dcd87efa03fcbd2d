package main

import (
	"net/http"

	"github.com/spf13/cobra"
)

func newPauseCmd() *cobra.Command {
	return newCrawlActionCmd("pause", "Stop a running crawl handing out new fetches (in-flight ones finish)", "paused")
}
func newResumeCmd() *cobra.Command {
	return newCrawlActionCmd("resume", "Let a paused crawl fetch again", "resumed")
}

func newCrawlActionCmd(action, short, done string) *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   action,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.client()
			if err != nil {
				return err
			}
			return c.action(cmd, &f, http.MethodPost, "/api/"+action, nil, done)
		},
	}
	f.register(cmd)
	return cmd
}
