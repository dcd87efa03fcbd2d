package main

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/admin"
)

// The recrawl commands are clients of a continuous crawl's admin API:
// how revisits are doing (in godwit status) and the share of fetch
// capacity reserved for them.

func newRecrawlCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "recrawl",
		Short: "Steer a continuous crawl's revisits",
		Long: `Steer how a running continuous crawl revisits the pages it fetched before.
godwit status shows how revisits are doing: their share of recent fetches,
the backlog of due revisits, the estimated freshness of the collection and
how many revisits were answered 304 Not Modified.`,
	}
	cmd.AddCommand(newRecrawlShareCmd())
	return cmd
}

func newRecrawlShareCmd() *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   "share FRACTION",
		Short: "Reserve a share of fetch capacity for revisits (0.3 or 30%)",
		Long: `Reserve a share of a running crawl's fetch capacity for revisits while new
pages are waiting: 0 gives discovery every fetch it can use, 1 gives
revisits every fetch they need. FRACTION is a number from 0 to 1 or a
percentage. The setting is durable: it survives a restart (unless the crawl
is restarted with --revisit-share). The crawl must
be continuous (godwit crawl --continuous): a one-pass crawl has no
revisits to share capacity with.`,
		Example: `  godwit recrawl share 0.3
  godwit recrawl share 50% --admin 10.0.0.5:7070 --admin-token "$TOKEN"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			share, err := parseShare(args[0])
			if err != nil {
				return err
			}
			c, err := f.client()
			if err != nil {
				return err
			}
			return c.action(cmd, &f, http.MethodPut, "/api/recrawl", admin.RecrawlRequest{RevisitShare: &share},
				"reserved "+percent(share)+" of fetch capacity for revisits")
		},
	}
	f.register(cmd)
	return cmd
}

// parseShare reads a share as a fraction (0.3) or a percentage (30%).
func parseShare(s string) (float64, error) {
	t := strings.TrimSpace(s)
	num, pct := strings.CutSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err == nil && pct {
		v /= 100
	}
	if err != nil || !(v >= 0 && v <= 1) {
		return 0, fmt.Errorf("share %q: want a fraction from 0 to 1 (0.3) or a percentage (30%%)", s)
	}
	return v, nil
}

// percent is f (0 to 1) as a percentage, to a tenth where that matters:
// 31%, 30.5%.
func percent(f float64) string {
	v := f * 100
	if math.Abs(v-math.Round(v)) < 0.05 {
		return fmt.Sprintf("%.0f%%", v)
	}
	return fmt.Sprintf("%.1f%%", v)
}

// printRecrawl writes the revisits lines of godwit status to tw, a
// tabwriter of key and value columns.
func printRecrawl(tw io.Writer, r *admin.RecrawlStatus) {
	due := humanCount(r.DueBacklog) + " due"
	if r.LagSeconds > 0 {
		due += " (lag " + humanDuration(seconds(r.LagSeconds)) + ")"
	}
	notModified := "no revisits yet"
	if r.Revisits > 0 {
		notModified = fmt.Sprintf("304s %s of %s revisits", percent(r.NotModifiedShare), humanCount(r.Revisits))
	}
	changing := ""
	if r.ChangingPages > 0 {
		changing = fmt.Sprintf(" (pages seen to change ~%.2f)", r.FreshnessChanging)
	}
	fmt.Fprintf(tw, "revisits\tshare %s (reserved %s), %s, freshness ~%.2f%s, %s\n",
		percent(r.RevisitShare), percent(r.Share), due, r.Freshness, changing, notModified)
	fmt.Fprintf(tw, "\tbudget %.1f/s of %.1f/s capacity, %s scheduled, %s policy\n",
		r.BudgetPerSecond, r.CapacityPerSecond, humanCount(r.Scheduled), dash(r.Policy))
}
