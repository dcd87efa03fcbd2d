package main

import (
	"fmt"
	"io"
	"math"
	"net/url"
	"strings"
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
is in the WARC files; and, in continuous crawls, how often it is estimated
to change (and the visits the estimate rests on), when it is due again and
how important it is (OPIC importance, 1 being the average URL).`,
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
			return printURL(cmd.OutOrStdout(), u)
		},
	}
	f.register(cmd)
	return cmd
}

// printURL writes u as godwit urls show does; lines without data (a URL
// never revisited, with no estimate) are left out.
func printURL(out io.Writer, u admin.URLInfo) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(w, "%s\t%s\n", k, v) }
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	row("url", u.URL)
	row("key", u.Key)
	row("host", u.Host)
	row("state", fmt.Sprintf("%s, depth %d", u.State, u.Depth))
	if !u.FetchedAt.IsZero() {
		row("fetched", fmt.Sprintf("%d at %s", u.Status, stamp(u.FetchedAt)))
	}
	if u.ETag != "" || u.LastMod != "" {
		row("validators", fmt.Sprintf("ETag %s, Last-Modified %s", dash(u.ETag), dash(u.LastMod)))
	}
	if u.WARC != nil {
		row("warc", fmt.Sprintf("%s offset %d length %d %s", u.WARC.File, u.WARC.Offset, u.WARC.Length, u.WARC.RecordID))
	}

	var changes []string
	if u.ChangeRate > 0 {
		c := "about every " + humanDuration(seconds(1/u.ChangeRate))
		if u.RateError > 0 {
			c += fmt.Sprintf(" (±%.0f%%)", u.RateError*100)
		}
		changes = append(changes, c)
	}
	if u.Visits > 0 {
		changes = append(changes, fmt.Sprintf("%d of %d visits saw a change", u.Changed, u.Visits))
	}
	if !u.LastChange.IsZero() {
		changes = append(changes, "last change "+stamp(u.LastChange))
	}
	if len(changes) > 0 {
		row("changes", strings.Join(changes, ", "))
	}

	// A URL the recrawl schedules says how often and when; any other keeps
	// the plain "next visit" line.
	if u.IntervalSeconds > 0 || u.Revisit {
		var parts []string
		if u.IntervalSeconds > 0 {
			parts = append(parts, "every "+humanDuration(seconds(u.IntervalSeconds)))
		}
		if !u.NextVisit.IsZero() {
			parts = append(parts, "next "+stamp(u.NextVisit))
		}
		r := strings.Join(parts, ", ")
		if u.Revisit {
			r = strings.TrimSpace(r + " (queued as revisit)")
		}
		row("revisit", r)
	} else {
		next := "not scheduled"
		if !u.NextVisit.IsZero() {
			next = stamp(u.NextVisit)
		}
		row("next visit", next)
	}

	if u.Importance > 0 {
		row("importance", fmt.Sprintf("%s× average (cash %s, history %s), band %d", short(u.Importance), short(u.Cash), short(u.History), u.Band))
	} else if u.Band > 0 {
		row("importance", fmt.Sprintf("band %d", u.Band))
	}
	return w.Flush()
}

// seconds converts a count of seconds from the API to a Duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// short is v to two or three significant digits: 2.3, 0.41, 12.5, 340.
func short(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2g", v)
}
