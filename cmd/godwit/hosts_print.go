package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/godwit-crawler/godwit/internal/admin"
)

// The output of godwit hosts: the host list and one host's details.

func printHosts(out io.Writer, hosts []admin.Host, now time.Time) {
	if len(hosts) == 0 {
		fmt.Fprintln(out, "no hosts")
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tQUEUED\tFETCHED\tDELAY\tNEXT\tWAITING\tIP\tERRORS\tIN A ROW\tBREAKER\tROBOTS")
	for _, h := range hosts {
		name := h.Name
		if h.Blocked {
			name += " (blocked)"
		}
		if h.Policy != nil {
			name += " *"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", name, humanCount(h.Queued), humanCount(h.Fetched),
			humanDuration(time.Duration(h.DelayMS)*time.Millisecond)+" "+paren(h.DelayReason),
			untilString(h.NextAllowed, now), dash(h.Waiting), dash(h.IPGroup), humanCount(h.Errors), h.ErrorStreak, dash(h.Breaker), dash(h.Robots))
	}
	tw.Flush()
	for _, h := range hosts {
		if h.Policy != nil {
			fmt.Fprintln(out, "* operator policy override")
			break
		}
	}
}

func printHost(out io.Writer, h admin.Host, now time.Time) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "host\t%s\n", h.Name)
	state := "active"
	switch {
	case h.Blocked:
		state = "blocked by the operator"
	case h.Leased:
		state = "fetching now"
	case h.Queued == 0:
		state = "idle"
	}
	fmt.Fprintf(tw, "state\t%s\n", state)
	fmt.Fprintf(tw, "queued\t%s URLs\n", humanCount(h.Queued))
	budget := "no limit"
	if h.BudgetMax > 0 {
		budget = fmt.Sprintf("%s of %s pages", humanCount(h.BudgetUsed), humanCount(h.BudgetMax))
	}
	fmt.Fprintf(tw, "fetched\t%s pages (budget: %s), %s requests in the last 10m\n", humanCount(h.Fetched), budget, humanCount(h.Requests10m))
	fmt.Fprintf(tw, "delay\t%s %s\n", humanDuration(time.Duration(h.DelayMS)*time.Millisecond), paren(h.DelayReason))
	next := untilString(h.NextAllowed, now)
	if h.Waiting != "" {
		next += " (" + h.Waiting + ")"
	}
	fmt.Fprintf(tw, "next request\t%s\n", next)
	if h.IPGroup != "" {
		fmt.Fprintf(tw, "IP group\t%s (its IP budget is shared with the other hosts on it)\n", h.IPGroup)
	}
	fmt.Fprintf(tw, "latency\t%s\n", humanDuration(time.Duration(h.LatencyMS)*time.Millisecond))
	fmt.Fprintf(tw, "errors\t%s in all, %d in a row, breaker %s\n", humanCount(h.Errors), h.ErrorStreak, dash(h.Breaker))
	robots := dash(h.Robots)
	if !h.RobotsFetchedAt.IsZero() {
		robots += ", fetched " + humanDuration(time.Duration(h.RobotsAgeSeconds*float64(time.Second))) + " ago"
	}
	fmt.Fprintf(tw, "robots.txt\t%s\n", robots)
	policy := "none"
	if p := h.Policy; p != nil {
		var parts []string
		if p.DelayMS != nil {
			parts = append(parts, "delay "+humanDuration(time.Duration(*p.DelayMS)*time.Millisecond))
		}
		if p.MaxPages != nil {
			parts = append(parts, fmt.Sprintf("at most %d pages", *p.MaxPages))
		}
		policy = strings.Join(parts, ", ")
	}
	fmt.Fprintf(tw, "override\t%s\n", policy)
	if r := h.Render; r != nil {
		why := ""
		if len(r.LastReasons) > 0 {
			why = ", last picked for " + strings.Join(r.LastReasons, ", ")
		}
		fmt.Fprintf(tw, "rendering\t%s (mode %s): %d pages rendered, %d found more, %d found nothing, %d links only rendering found%s\n",
			r.Verdict, r.Mode, r.Rendered, r.Found, r.FoundNothing, r.NewLinks, why)
	}
	if tr := h.Traps; tr != nil {
		line := humanCount(tr.PagesCounted) + " pages counted"
		if tr.Demoted {
			line += fmt.Sprintf(", demoted (at most %s pages)", humanCount(tr.PageBudget))
		}
		if len(tr.Templates) > 0 {
			var ts []string
			for _, x := range tr.Templates {
				shape := "open"
				if !x.Open {
					shape = "closed"
				}
				ts = append(ts, fmt.Sprintf("%d/%d %s", x.Pages, x.Barren, shape))
			}
			line += fmt.Sprintf("; %d URL templates (pages/barren in a row): %s", len(ts), strings.Join(ts, ", "))
		}
		if n := len(tr.Calendars); n > 0 {
			line += fmt.Sprintf("; %d calendars, up to %d steps", n, tr.Calendars[0].Steps)
		}
		fmt.Fprintf(tw, "traps\t%s\n", line)
	}
	for i, a := range h.Aliases {
		label := ""
		if i == 0 {
			label = "URL aliases"
		}
		state := "learning"
		switch {
		case a.Adopted:
			state = "adopted"
		case a.Contradicted:
			state = "contradicted"
		}
		fmt.Fprintf(tw, "%s\t%s: %s, %d confirmations\n", label, a.Rule, state, a.Confirmations)
	}
	tw.Flush()
}
