package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/admin"
)

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
that host: politeness, robots.txt, breaker, budget, the operator's
override, and what the crawl learnt of it (URL alias rules, trap state).
godwit hosts ips lists the IP groups: the hosts that share an address
and its IP budget.`,
		Example: `  godwit hosts --sort errors --limit 20
  godwit hosts example.com
  godwit hosts ips
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
	flagHostsSort.stringVar(cmd.Flags(), &sortBy, "queued")
	flagHostsLimit.intVar(cmd.Flags(), &limit, 50)
	cmd.AddCommand(
		newHostActionCmd("block", "Stop all requests to a host (its URLs stay queued)", "blocked"),
		newHostActionCmd("unblock", "Let a blocked host's requests go again", "unblocked"),
		newHostPolicyCmd(),
		newHostsIPsCmd(),
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
			setDelay, setMax := cmd.Flags().Changed(flagPolicyDelay.name), cmd.Flags().Changed(flagPolicyMaxPages.name)
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
	flagPolicyDelay.durationVar(cmd.Flags(), &delay, 0)
	flagPolicyMaxPages.int64Var(cmd.Flags(), &maxPages, 0)
	flagPolicyClear.boolVar(cmd.Flags(), &clear, false)
	flagPolicyForce.boolVar(cmd.Flags(), &force, false)
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

func newHostsIPsCmd() *cobra.Command {
	var (
		f     adminFlags
		limit int
	)
	cmd := &cobra.Command{
		Use:   "ips",
		Short: "List the IP groups: hosts sharing an address, its requests in flight and the hosts waiting for it",
		Long: `List the crawl's IP groups: the hosts whose names resolve to one address
(IPv6: one /64) share its IP budget (--ip-concurrency requests in flight,
--ip-delay between starts). Per address: its hosts, requests in flight,
how many may be in flight now, hosts ready but waiting for the address,
how often one waited, and when its next request may start; the groups
holding most hosts back come first. In a cluster crawl, the groups of the
node asked, with the slots of each address every node holds and the
nodes asking for more.`,
		Example: `  godwit hosts ips
  godwit hosts ips --limit 200 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 || limit > 1000 {
				return fmt.Errorf("--limit %d: want 1 to 1000", limit)
			}
			c, err := f.client()
			if err != nil {
				return err
			}
			var g admin.IPGroups
			if printed, err := c.get(cmd, &f, "/api/ip-groups", url.Values{"limit": {fmt.Sprint(limit)}}, &g); err != nil || printed {
				return err
			}
			printIPGroups(cmd.OutOrStdout(), g, time.Now())
			return nil
		},
	}
	f.register(cmd)
	flagIPGroupsLimit.intVar(cmd.Flags(), &limit, 50)
	return cmd
}
