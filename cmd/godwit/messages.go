package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError is every command's flag error: an unknown flag names the
// nearest known one ("unknown flag: --max-dpeth; did you mean
// --max-depth?").
func flagError(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	if near := nearestFlag(cmd, name); near != "" {
		return fmt.Errorf("%w; did you mean --%s? (godwit %s --help lists them)", err, near, cmd.Name())
	}
	return fmt.Errorf("%w (godwit %s --help lists the flags)", err, cmd.Name())
}

// nearestFlag is the flag of cmd (its own and those it inherits) whose
// name is fewest edits from name: at most a third of its length (one
// edit, at least); "" when none is that near.
func nearestFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", max(1, len(name)/3)+1
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := editDistance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return best
}

// editDistance is the Damerau–Levenshtein distance of a and b (optimal
// string alignment: a swap of two neighbours is one edit, as in "dpeth").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// userMessage is err as a user reads it at the end of a command: without
// the package prefixes errors carry for logs ("urlnorm: ", "jetstream: ")
// and with the commonest Go and library texts put in words.
func userMessage(err error) string {
	msg := packagePrefix.ReplaceAllString(err.Error(), "$1")
	for _, r := range plainWords {
		msg = r.re.ReplaceAllString(msg, r.with)
	}
	return msg
}

// packagePrefix is an internal package's name opening a message or one
// of its parts.
var packagePrefix = regexp.MustCompile(`(^|: |; |\n\s*)(?:admin|archive|blob|crawl|datadir|dedup|extract|fetch|freshness|frontier|jetstream|kv|politeness|process|robots|simhash|sitemap|upload|urlnorm|warc): `)

var plainWords = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`nats: no servers available for connection`), "no NATS server answers there"},
	{regexp.MustCompile(`dial tcp (\S+): connect: connection refused`), "nothing answers at $1 (connection refused)"},
	{regexp.MustCompile(`(?:open|stat|lstat) (\S+): no such file or directory`), "$1 does not exist"},
	{regexp.MustCompile(`(?:open|stat|lstat|mkdir) (\S+): permission denied`), "$1: permission denied"},
	{regexp.MustCompile(`context deadline exceeded`), "timed out"},
}
