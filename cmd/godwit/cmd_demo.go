package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

func newDemoCmd() *cobra.Command {
	var (
		data    string
		delay   time.Duration
		hosts   int
		pages   int
		workers int
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Crawl a built-in simulated web, offline, and show how it went",
		Long: `Start the simulated web (see 'godwit fakeweb') on loopback, crawl it through
its proxy exactly as 'godwit crawl' would, print the crawl's summary, and
then the simulated web's own judgment of the crawler: politeness violations,
robots.txt obedience, duplicate fetches and coverage. Needs no network.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runDemo(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), demoOptions{
				data: data, delay: delay, hosts: hosts, pages: pages, workers: workers,
			})
		},
	}
	fs := cmd.Flags()
	flagDemoData.stringVar(fs, &data, "")
	flagDemoDelay.durationVar(fs, &delay, 100*time.Millisecond)
	flagDemoHosts.intVar(fs, &hosts, 12)
	flagWebPages.intVar(fs, &pages, 40)
	flagDemoWorkers.intVar(fs, &workers, 8)
	return cmd
}

type demoOptions struct {
	data         string
	delay        time.Duration
	hosts, pages int
	workers      int
}

func runDemo(ctx context.Context, stdout, stderr io.Writer, o demoOptions) error {
	cfg := fakeweb.Config{
		Hosts:        o.hosts,
		PagesPerHost: o.pages,
		Seed:         1,
		CrawlDelay:   250 * time.Millisecond,
		// Every robots.txt situation a polite crawler must handle, sitemaps
		// listing pages nothing links to, and page-level robots signals.
		Robots:      fakeweb.RobotsKinds(),
		Sitemaps:    true,
		PageSignals: true,
	}
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return err
	}
	web, err := fakeweb.New(cfg)
	if err != nil {
		return err
	}
	data := o.data
	if data == "" {
		dir, err := os.MkdirTemp("", "godwit-demo-")
		if err != nil {
			return failure{err}
		}
		defer os.RemoveAll(dir)
		data = dir
	}

	webCtx, stopWeb := context.WithCancel(context.WithoutCancel(ctx))
	addr, served, err := serveFakeweb(webCtx, web)
	if err != nil {
		stopWeb()
		return failure{err}
	}
	defer func() {
		stopWeb()
		<-served
	}()
	fmt.Fprintf(stdout, "godwit demo: a simulated web of %d hosts × %d pages on %s (offline)\n", cfg.Hosts, cfg.PagesPerHost, addr)

	s := defaultSettings()
	s.Data = data
	s.Proxy = "http://" + addr
	s.Delay = o.delay
	s.Workers = o.workers
	s.Timeout = 2 * time.Second // the "hang" host's robots.txt never answers
	s.Robots.Retries = 4        // the flaky robots.txt answers 503 twice before it recovers
	s.Robots.Backoff = 500 * time.Millisecond
	s.Adapt.Backoff = 500 * time.Millisecond // seconds, not minutes: a demo should end while watched
	s.Admin = "off"
	s.LogLevel = "warn"
	term := newTerminal(stderr)
	log, err := newLogger(term, s.LogLevel)
	if err != nil {
		return err
	}
	res, err := runCrawl(ctx, s, web.Seeds(), log, term)
	if err != nil {
		return err
	}
	printSummary(stdout, res)
	if o.data == "" {
		fmt.Fprintln(stdout, "  (temporary; use --data DIR to keep the WARC files)")
	}
	printJudgment(stdout, web.Report(fakeweb.Judge{Delay: s.Delay}))
	return nil
}

// printJudgment prints what the simulated web saw of the crawler.
func printJudgment(w io.Writer, r fakeweb.Report) {
	verdict := "polite"
	if !r.OK() {
		verdict = "NOT polite"
	}
	fmt.Fprintf(w, "the simulated web judged the crawl from the server side: %s\n", verdict)
	fmt.Fprintf(w, "  requests    %d (%d robots.txt, %d pages)\n", r.Requests, r.RobotsRequests, r.PageRequests)
	fmt.Fprintf(w, "  politeness  %d concurrent requests to one host, %d gaps shorter than required\n",
		r.ConcurrencyViolations, r.GapViolations)
	fmt.Fprintf(w, "  robots.txt  %d disallowed fetches, %d requests before robots.txt, %d requests to hosts with robots.txt 5xx/hanging\n",
		r.DisallowedRequests, r.BeforeRobots, r.UnavailableHostRequests)
	fmt.Fprintf(w, "  duplicates  %d pages fetched twice\n", r.Duplicates)
	fmt.Fprintf(w, "  sitemaps    %d of %d pages only sitemaps lead to were fetched\n", r.SitemapOnlyCovered, r.SitemapOnly)
	fmt.Fprintf(w, "  nofollow    %d pages fetched that only nofollow links lead to\n", r.NofollowOnlyFetched)
	fmt.Fprintf(w, "  coverage    %.3f (%d of %d reachable allowed pages)\n", r.Coverage, r.Covered, r.Reachable)
}
