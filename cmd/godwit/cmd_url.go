package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

func newURLCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "url",
		Short: "See how godwit identifies URLs",
	}
	cmd.AddCommand(newURLNormalizeCmd())
	return cmd
}

func newURLNormalizeCmd() *cobra.Command {
	var (
		surt   bool
		config string
	)
	cmd := &cobra.Command{
		Use:   "normalize [URL...]",
		Short: "Print the canonical crawl key of each URL (or its SURT)",
		Long: `Print, one line per URL, the canonical crawl key godwit gives it: the URL as
a browser parses it, normalized, with the query sorted and tracking and
session parameters removed. Two URLs with the same key are one page to
godwit. With --surt, print the SURT form used in CDXJ indexes instead.
Without arguments, read URLs from standard input, one per line.

A URL that does not parse is reported on standard error and the others are
still printed; the exit status is then 2.`,
		Example: `  godwit url normalize 'HTTP://Example.COM:80/a/./b?utm_source=x&b=2&a=1#top'
  godwit url normalize --surt https://www.example.com/Page/
  godwit url normalize --config crawl.yaml < urls.txt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts urlnorm.Options
			if config != "" {
				s := defaultSettings()
				if err := loadConfigFile(config, &s); err != nil {
					return err
				}
				opts = s.URL.options()
			}
			opts.Default()
			if err := opts.Validate(); err != nil {
				return err
			}
			c := urlnorm.NewCanonicalizer(opts)
			out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
			var n, bad int
			each := func(raw string) {
				n++
				line, err := normalizeLine(c, raw, surt)
				if err != nil {
					bad++
					fmt.Fprintf(errOut, "godwit: %s\n", userMessage(err))
					return
				}
				fmt.Fprintln(out, line)
			}
			if len(args) > 0 {
				for _, a := range args {
					each(a)
				}
			} else if err := eachLine(cmd.InOrStdin(), each); err != nil {
				return err
			}
			if bad > 0 {
				return fmt.Errorf("%d of %d URLs are not valid http(s) URLs", bad, n)
			}
			return nil
		},
	}
	flagURLSURT.boolVar(cmd.Flags(), &surt, false)
	flagURLConfig.stringVar(cmd.Flags(), &config, "")
	return cmd
}

// normalizeLine is the output line for one URL.
func normalizeLine(c *urlnorm.Canonicalizer, raw string, surt bool) (string, error) {
	u, err := urlnorm.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%q: %s", raw, urlProblem(raw, err))
	}
	if surt {
		return c.SURT(u), nil
	}
	return c.Key(u), nil
}

// eachLine calls f for every line of r that is not blank or a # comment.
func eachLine(r io.Reader, f func(string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f(line)
	}
	if err := sc.Err(); err != nil {
		return failure{fmt.Errorf("reading standard input: %w", err)}
	}
	return nil
}
