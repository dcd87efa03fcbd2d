package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/admin"
)

// The admin commands are clients of a running crawl's admin API
// (internal/admin): status, seeds add, hosts, pause, resume; and recrawl
// share (cmd_recrawl.go).

// adminFlags are the flags every admin client command takes.
type adminFlags struct {
	addr  string
	token string
	json  bool
}

func (f *adminFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.addr, "admin", defaultAdmin, "address of the crawl's admin server (host:port or http://host:port)")
	cmd.Flags().StringVar(&f.token, "admin-token", "", "the admin server's token (default $GODWIT_ADMIN_TOKEN)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the API's JSON as is")
}

// adminClient talks to one admin server (admin.Client), its errors
// failures (exit 1).
type adminClient struct{ c *admin.Client }

func (f *adminFlags) client() (*adminClient, error) {
	raw := f.addr
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("--admin %q: want host:port or http://host:port", f.addr)
	}
	if u.Port() == "" {
		return nil, fmt.Errorf("--admin %q: no port", f.addr)
	}
	token := f.token
	if token == "" {
		token = os.Getenv("GODWIT_ADMIN_TOKEN")
	}
	return &adminClient{admin.NewClient(u, token)}, nil
}

// call sends one request; body, when not nil, is sent as JSON. It returns
// the answer's body on success, and a failure (exit 1) when the server is
// unreachable or answers an error.
func (c *adminClient) call(ctx context.Context, method, path string, query url.Values, body any) ([]byte, error) {
	data, err := c.c.Do(ctx, method, path, query, body)
	if err != nil {
		var ae *admin.APIError
		if errors.As(err, &ae) && ae.Message != "" && ae.StatusCode == http.StatusUnauthorized {
			err = fmt.Errorf("%w (set --admin-token or GODWIT_ADMIN_TOKEN)", err)
		}
		return nil, failure{err}
	}
	return data, nil
}

// get decodes the answer of a GET into v, or prints it as is with --json.
func (c *adminClient) get(cmd *cobra.Command, f *adminFlags, path string, query url.Values, v any) (printed bool, err error) {
	data, err := c.call(cmd.Context(), http.MethodGet, path, query, nil)
	if err != nil {
		return false, err
	}
	if f.json {
		_, err := cmd.OutOrStdout().Write(data)
		return true, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, failure{fmt.Errorf("admin API: %s: bad answer: %w", path, err)}
	}
	return false, nil
}

// action POSTs (or PUTs, DELETEs) and prints done unless --json.
func (c *adminClient) action(cmd *cobra.Command, f *adminFlags, method, path string, body any, done string) error {
	data, err := c.call(cmd.Context(), method, path, nil, body)
	if err != nil {
		return err
	}
	if f.json {
		_, err := cmd.OutOrStdout().Write(data)
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), done)
	return nil
}

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
			if cmd.Flags().Changed("data") {
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
	cmd.Flags().StringVar(&data, "data", "", "a crawl's data directory: show what it says, no running crawl needed")
	cmd.Flags().StringVar(&natsURL, "cluster", "", "a cluster crawl's NATS servers (with --crawl): show the crawl across its nodes, no admin API needed")
	cmd.Flags().StringVar(&crawlName, "crawl", "", "with --cluster: the crawl's name")
	return cmd
}

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
	add.Flags().IntVar(&priority, "priority", 0, "queue band of the seeds (0 = first)")
	cmd.AddCommand(add)
	return cmd
}

func newHostsCmd() *cobra.Command {
	var (
		f      adminFlags
		sortBy string
		limit  int
	)
	cmd := &cobra.Command{
		Use:   "hosts [HOST]",
		Short: "List a running crawl's hosts, or show one; block, unblock, set policy",
		Long: `Without HOST, list the crawl's hosts, most queued (or fetched, or erring)
first: queue, fetched pages, delay and its reason, when the next request
may go and why it waits. With HOST, show everything the crawl knows about
that host: politeness, robots.txt, breaker, budget and the operator's
override.`,
		Example: `  godwit hosts --sort errors --limit 20
  godwit hosts example.com
  godwit hosts block example.com
  godwit hosts policy example.com --delay 5s --max-pages 1000`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.client()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				host, err := hostArg(args[0])
				if err != nil {
					return err
				}
				var h admin.Host
				if printed, err := c.get(cmd, &f, "/api/hosts/"+url.PathEscape(host), nil, &h); err != nil || printed {
					return err
				}
				printHost(cmd.OutOrStdout(), h, time.Now())
				return nil
			}
			switch sortBy {
			case "queued", "fetched", "errors":
			default:
				return fmt.Errorf("--sort %q: want queued, fetched or errors", sortBy)
			}
			if limit < 1 || limit > 1000 {
				return fmt.Errorf("--limit %d: want 1 to 1000", limit)
			}
			var hosts []admin.Host
			q := url.Values{"sort": {sortBy}, "limit": {fmt.Sprint(limit)}}
			if printed, err := c.get(cmd, &f, "/api/hosts", q, &hosts); err != nil || printed {
				return err
			}
			printHosts(cmd.OutOrStdout(), hosts, time.Now())
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&sortBy, "sort", "queued", "order: queued, fetched or errors (most first)")
	cmd.Flags().IntVar(&limit, "limit", 50, "hosts to list at most (1 to 1000)")
	cmd.AddCommand(
		newHostActionCmd("block", "Stop all requests to a host (its URLs stay queued)", "blocked"),
		newHostActionCmd("unblock", "Let a blocked host's requests go again", "unblocked"),
		newHostPolicyCmd(),
	)
	return cmd
}

func newHostActionCmd(action, short, done string) *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   action + " HOST",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			host, err := hostArg(args[0])
			if err != nil {
				return err
			}
			c, err := f.client()
			if err != nil {
				return err
			}
			return c.action(cmd, &f, http.MethodPost, "/api/hosts/"+url.PathEscape(host)+"/"+action, nil, done+" "+host)
		},
	}
	f.register(cmd)
	return cmd
}

func newHostPolicyCmd() *cobra.Command {
	var (
		f        adminFlags
		delay    time.Duration
		maxPages int64
		clear    bool
		force    bool
	)
	cmd := &cobra.Command{
		Use:   "policy HOST",
		Short: "Override a host's politeness (--delay, --max-pages), or --clear the override",
		Long: `Override a host's politeness in a running crawl: --delay replaces the gap
between requests (robots.txt Crawl-delay still applies when larger),
--max-pages caps the pages fetched from the host. --clear removes the
override. Overrides are durable: they survive a restart.

A delay below the crawl's own --delay (its floor) is refused unless
--force is given: an override should not make the crawl less polite by
accident.`,
		Example: `  godwit hosts policy example.com --delay 10s
  godwit hosts policy example.com --max-pages 500
  godwit hosts policy example.com --clear`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			host, err := hostArg(args[0])
			if err != nil {
				return err
			}
			setDelay, setMax := cmd.Flags().Changed("delay"), cmd.Flags().Changed("max-pages")
			switch {
			case clear && (setDelay || setMax):
				return errors.New("--clear cannot be combined with --delay or --max-pages")
			case !clear && !setDelay && !setMax:
				return errors.New("give --delay, --max-pages or --clear")
			case delay < 0:
				return fmt.Errorf("--delay %s: must not be negative", delay)
			case maxPages < 0:
				return fmt.Errorf("--max-pages %d: must not be negative", maxPages)
			}
			c, err := f.client()
			if err != nil {
				return err
			}
			path := "/api/hosts/" + url.PathEscape(host) + "/policy"
			if clear {
				return c.action(cmd, &f, http.MethodDelete, path, nil, "cleared the policy of "+host)
			}
			p := admin.HostPolicy{Force: force}
			var parts []string
			if setDelay {
				ms := delay.Milliseconds()
				p.DelayMS = &ms
				parts = append(parts, "delay "+humanDuration(delay))
			}
			if setMax {
				p.MaxPages = &maxPages
				parts = append(parts, fmt.Sprintf("at most %d pages", maxPages))
			}
			return c.action(cmd, &f, http.MethodPut, path, p, "set the policy of "+host+": "+strings.Join(parts, ", "))
		},
	}
	f.register(cmd)
	cmd.Flags().DurationVar(&delay, "delay", 0, "gap between requests to the host")
	cmd.Flags().Int64Var(&maxPages, "max-pages", 0, "pages to fetch from the host at most")
	cmd.Flags().BoolVar(&clear, "clear", false, "remove the override")
	cmd.Flags().BoolVar(&force, "force", false, "allow a --delay below the crawl's own --delay")
	return cmd
}

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

// hostArg checks a HOST argument: a host name, with a port perhaps, not
// a URL.
func hostArg(s string) (string, error) {
	h := strings.ToLower(strings.TrimSpace(s))
	if h == "" || strings.ContainsAny(h, "/?#@ \t") {
		return "", fmt.Errorf("%q is not a host name (give example.com, not a URL)", s)
	}
	if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
		if _, _, err := net.SplitHostPort(h); err != nil {
			return "", fmt.Errorf("%q is not a host name", s)
		}
	}
	return h, nil
}

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

// humanDuration is d rounded to what a person reads: 850ms, 12s, 3m05s,
// 2h14m, 3d04h.
func humanDuration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		s := d.Seconds()
		if s < 10 && d%time.Second != 0 {
			return fmt.Sprintf("%.1fs", s)
		}
		return fmt.Sprintf("%ds", int(s))
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	case d < 24*time.Hour:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	d = d.Round(time.Hour)
	return fmt.Sprintf("%dd%02dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// untilString says when t comes: "now", "in 3s", "2m05s ago", "-".
func untilString(t, now time.Time) string {
	switch {
	case t.IsZero():
		return "-"
	case !t.After(now):
		return "now"
	}
	return "in " + humanDuration(t.Sub(now))
}

// humanCount writes n with thousands separators: 12,345.
func humanCount(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// adminBytes is n in binary units: 1.2 GiB.
func adminBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTPE"[i])
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}
