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
	if h.Node != "" {
		fmt.Fprintf(tw, "node\t%s (schedules the host: its shard's owner)\n", h.Node)
	}
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
		fmt.Fprintf(tw, "IP group\t%s (its IP budget is shared with the other hosts on it: godwit hosts ips)\n", h.IPGroup)
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

// printIPGroups writes godwit hosts ips: the budget, then one line per
// address; the slot columns only in a cluster crawl.
func printIPGroups(out io.Writer, g admin.IPGroups, now time.Time) {
	if !g.Enabled {
		fmt.Fprintln(out, "no IP groups: this crawl fetches through a proxy (the addresses are the proxy's)")
		return
	}
	conc := "no bound on requests in flight per address"
	if g.Concurrency > 0 {
		conc = fmt.Sprintf("%d in flight per address", g.Concurrency)
	}
	where := ""
	if g.Node != "" {
		where = " on node " + g.Node
	}
	fmt.Fprintf(out, "IP budget: %s (IPv6: per /64), %s between starts; %d groups%s, %d full, %d hosts waiting for their address now, %s waits so far\n",
		conc, humanDuration(time.Duration(g.DelayMS)*time.Millisecond), g.Total, where, g.Full, g.Waiting, humanCount(g.Waits))
	if len(g.Groups) == 0 {
		return
	}
	cluster := false
	for _, x := range g.Groups {
		cluster = cluster || len(x.Slots) > 0 || len(x.WantedBy) > 0 || x.Starter != ""
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	head := "ADDRESS\tHOSTS\tIN FLIGHT\tLIMIT\tWAITING\tWAITS\tNEXT START"
	if cluster {
		head += "\tSLOTS BY NODE\tWANTED BY\tSTARTS (QUEUED)"
	}
	fmt.Fprintln(tw, head)
	for _, x := range g.Groups {
		limit := "-"
		if x.Limit > 0 || g.Node != "" {
			limit = fmt.Sprint(x.Limit)
		}
		if x.Full {
			limit += " (full)"
		}
		line := fmt.Sprintf("%s\t%d\t%d\t%s\t%d\t%s\t%s", x.Address, x.Hosts, x.InFlight, limit, x.Waiting,
			humanCount(x.Waits), untilString(x.NextStart, now))
		if cluster {
			var slots []string
			for _, s := range x.Slots {
				slots = append(slots, fmt.Sprintf("%s:%d", s.Node, s.Slots))
			}
			starts := dash(x.Starter)
			if len(x.StartQueue) > 0 {
				starts += " (" + strings.Join(x.StartQueue, " ") + ")"
			}
			line += "\t" + dash(strings.Join(slots, " ")) + "\t" + dash(strings.Join(x.WantedBy, " ")) + "\t" + starts
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	if g.Total > len(g.Groups) {
		fmt.Fprintf(out, "(%d of %d groups; --limit for more)\n", len(g.Groups), g.Total)
	}
}
