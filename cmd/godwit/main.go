// Command godwit is a polite, archival-quality web crawler.
//
// Subcommands: crawl, demo, export, fakeweb, nats, replay, robots, url,
// version, warc; and the clients of a running crawl's admin server:
// status, seeds, hosts, urls, recrawl, pause, resume. See README.md.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	stop := startCPUProfile(os.Getenv("GODWIT_CPUPROFILE"))
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// startCPUProfile writes a CPU profile of the whole process to path
// ("%p" in it replaced by the process ID, for the nodes of a cluster
// benchmark) until the returned function is called. An empty path
// profiles nothing. For measurement only (docs/benchmarks.md): a
// profile that cannot be started is said once and skipped.
func startCPUProfile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	path = strings.ReplaceAll(path, "%p", strconv.Itoa(os.Getpid()))
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "godwit: GODWIT_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// Exit statuses (README.md, "Exit statuses").
const (
	exitFailure   = 1 // a failure while running
	exitBadInput  = 2 // flags, config, seeds
	exitNoFetches = 3 // a crawl that could fetch none of its seeds
)

// run executes one godwit command line and returns its exit status: 0
// success, else one of the exit constants.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "godwit: %s\n", userMessage(err)) // messages.go
	var (
		fe failure
		nf nothingFetched
	)
	switch {
	case errors.As(err, &nf):
		return exitNoFetches
	case errors.As(err, &fe):
		return exitFailure
	}
	return exitBadInput
}

// nothingFetched is a crawl that ran and could fetch none of its seeds;
// it maps to exit status 3.
type nothingFetched struct{ error }

func (n nothingFetched) Unwrap() error { return n.error }

// failure marks an error that happened while running, as opposed to bad
// input; it maps to exit status 1. Everything else a command returns
// (flag errors, config errors, bad seeds) is bad input: exit status 2.
type failure struct{ error }

func (f failure) Unwrap() error { return f.error }

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "godwit",
		Short:         "A polite, archival-quality web crawler",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.Version = godwitVersion() // godwit --version, as godwit version
	root.SetVersionTemplate("godwit {{.Version}}\n")
	root.SetFlagErrorFunc(flagError) // messages.go
	root.AddCommand(
		newCrawlCmd(),
		newDemoCmd(),
		newExportCmd(),
		newFakewebCmd(),
		newHostsCmd(),
		newNATSCmd(),
		newPauseCmd(),
		newRecrawlCmd(),
		newReplayCmd(),
		newResumeCmd(),
		newRobotsCmd(),
		newSeedsCmd(),
		newStatusCmd(),
		newURLCmd(),
		newURLsCmd(),
		newVersionCmd(),
		newWARCCmd(),
	)
	return root
}
