package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/archive"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fetch"
)

func newCrawlCmd() *cobra.Command {
	var flags crawlFlags
	cmd := &cobra.Command{
		Use:   "crawl [URL...]",
		Short: "Crawl politely from the given seeds and write WARC files",
		Long: `Crawl politely from the given seed URLs (and/or --seeds FILE), writing WARC
files under --data. The crawl ends by itself when nothing is left to fetch;
Ctrl-C stops it cleanly (in-flight fetches finish or are abandoned within a
few seconds, the WARC is flushed, exit status 0).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := flags.settings(cmd.Flags(), args)
			if err != nil {
				return err
			}
			term := newTerminal(cmd.ErrOrStderr())
			log, err := newLogger(term, s.LogLevel)
			if err != nil {
				return err
			}
			for _, w := range s.warnings {
				log.Warn(w)
			}
			// The data directory is locked before anything in it is read
			// or changed; a resumed crawl's stored settings are the base
			// of the config file and flags given now (settings.go).
			seeds, err := collectSeeds(s, true, func(msg string) { log.Warn(msg) })
			if err != nil {
				return err
			}
			_, statErr := os.Stat(s.Data)
			created := errors.Is(statErr, fs.ErrNotExist) // this run makes the directory
			if len(seeds) == 0 && s.Cluster.URL == "" && (s.Fresh || created) {
				if !created {
					// Another crawl's directory is refused as such,
					// seeds or not.
					if err := checkNotBusy(s.Data); err != nil {
						return err
					}
				}
				return errNoSeeds // nothing to resume: touch nothing
			}
			d, err := lockData(s.Data)
			if err != nil {
				return err
			}
			var discard bool // the new crawl fetched nothing: keep nothing of it
			defer func() {
				if err := d.close(); err != nil {
					log.Warn("closing the data directory", "err", err)
				}
				if discard {
					d.discard(created)
				}
			}()
			resume, err := d.prepare(s.Fresh)
			if err != nil {
				return err
			}
			if d.deleted != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "godwit: --fresh: deleted %s\n", d.deleted)
			}
			if resume {
				merge := func(base crawlSettings) (crawlSettings, error) { return flags.settingsOver(base, cmd.Flags(), args) }
				if s, err = d.resumeSettings(s, merge, log); err != nil {
					return err
				}
			} else if len(seeds) == 0 && s.Cluster.URL == "" {
				return errNoSeeds
			}
			s.proxyEnv = fetch.ProxyEnvFrom(os.Getenv)
			if s.AdminToken == "" {
				s.AdminToken = os.Getenv("GODWIT_ADMIN_TOKEN")
			}
			if s.MemoryLimit != "" {
				limit, _ := parseBytes(s.MemoryLimit) // validated
				debug.SetMemoryLimit(limit)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			finished := make(chan struct{})
			defer close(finished)
			go func() { // after the first signal, let a second one kill the process
				select {
				case <-ctx.Done():
					stop()
					log.Warn("stopping: no new fetches; in-flight fetches get the grace period; press Ctrl-C again to quit at once",
						"grace", s.Grace)
				case <-finished:
				}
			}()
			res, err := runLocked(ctx, d, s, resume, seeds, log, term)
			if err != nil {
				return err
			}
			printSummary(cmd.OutOrStdout(), res)
			if res.Processors != nil {
				return failure{fmt.Errorf("%w; the crawl stopped (--processor-errors stop): fix the processor, then run the same command to resume", res.Processors)}
			}
			if !res.Interrupted && res.Seeds.AllFailed() {
				msg := seedFailures(res.Seeds)
				if !resume && s.Cluster.URL == "" {
					// A first run that fetched nothing leaves nothing
					// behind: the same command again starts afresh.
					discard = true
					msg += fmt.Sprintf("; nothing was kept in %s", s.Data)
				}
				return nothingFetched{errors.New(msg)}
			}
			return nil
		},
	}
	flags.register(cmd.Flags())
	return cmd
}

// crawlResult is what a finished crawl reports.
type crawlResult struct {
	Stats       crawl.Stats
	WARCDir     string
	WARCFiles   []string // every WARC file of the crawl, earlier runs' included
	WARCBytes   int64
	WARCNew     int // of WARCFiles, those written in this run
	Interrupted bool
	Resumed     bool
	Dedup       archive.Stats
	Store       *storeResult // nil without --store
	Seeds       crawl.SeedReport
	// Processors is why the crawl stopped for a processor taken as
	// broken (--processor-errors stop); Broken lists those taken so.
	Processors error
	Broken     []string
	Data       string // the data directory
	// MaxPages is --max-pages; BudgetSpent says the run used all of it.
	MaxPages    int64
	BudgetSpent bool
	// Render is what rendering did; RenderMode "" when no page could be
	// rendered.
	Render     crawl.RenderStats
	RenderMode string
}
