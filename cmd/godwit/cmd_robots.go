package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/robots"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

func newRobotsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "robots",
		Short: "See what a robots.txt file lets godwit fetch",
	}
	cmd.AddCommand(newRobotsCheckCmd())
	return cmd
}

func newRobotsCheckCmd() *cobra.Command {
	var (
		file    string
		agent   string
		verbose bool
	)
	cmd := &cobra.Command{
		Use:   "check --file FILE [URL...]",
		Short: "Would godwit fetch these URLs? Check them against a robots.txt file",
		Long: `Check URLs against a robots.txt file exactly as a crawl would, and print one
line per URL: "allowed URL" or "disallowed URL". With -v each line also
names the rule that decided, its line in the file and its group:

  disallowed https://example.com/private/a  (Disallow: /private/ at line 7, group "*")
  allowed https://example.com/about  (no rule of group "*" matches)

Rules are matched as in a crawl (RFC 9309, see docs/robots.md): the URL is
parsed and normalized as godwit fetches it, its path and query are compared
with the patterns of the groups naming the agent (or else of the "*"
groups), the longest match wins and Allow wins ties. Patterns are shown
normalized, as they are compared ("/café" reads "/caf%C3%A9"). The host of
the URLs is not checked against the file: give the URLs of the site whose
robots.txt it is.

--file - reads the robots.txt file from standard input. Without URL
arguments, URLs are read from standard input, one per line (blank lines and
# comments are skipped).

The exit status is 0 whatever the verdicts. A URL that is not an absolute
http(s) URL, an --agent that is not a product token, or an unreadable file
is bad input: one line on standard error, nothing checked, exit status 2.`,
		Example: `  godwit robots check --file robots.txt https://example.com/private/a https://example.com/
  curl -s https://example.com/robots.txt | godwit robots check --file - -v https://example.com/cart
  godwit robots check --file robots.txt --agent otherbot < urls.txt`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !robots.ValidAgent(agent) {
				return fmt.Errorf("--agent %q: not a product token (letters, '-' and '_' only, such as godwit)", agent)
			}
			if file == "-" && len(args) == 0 {
				return errors.New("--file - reads robots.txt from standard input: give the URLs as arguments")
			}
			body, err := readRobotsFile(cmd.InOrStdin(), file)
			if err != nil {
				return err
			}
			if len(body) > robots.MaxSize {
				fmt.Fprintf(cmd.ErrOrStderr(), "godwit: %s is larger than %d KiB: only the first %d KiB are read, as in a crawl\n",
					file, robots.MaxSize>>10, robots.MaxSize>>10)
			}
			urls, err := checkURLs(cmd.InOrStdin(), args)
			if err != nil {
				return err
			}
			g := robots.Parse(body).Group(agent)
			out := bufio.NewWriter(cmd.OutOrStdout())
			for _, u := range urls {
				fmt.Fprintln(out, verdictLine(g, u, verbose))
			}
			if err := out.Flush(); err != nil {
				return failure{fmt.Errorf("writing the verdicts: %w", err)}
			}
			return nil
		},
	}
	flagRobotsFile.stringVar(cmd.Flags(), &file, "")
	flagRobotsAgent.stringVar(cmd.Flags(), &agent, "godwit")
	flagRobotsVerbose.boolVar(cmd.Flags(), &verbose, false)
	cmd.MarkFlagRequired("file")
	return cmd
}

// readRobotsFile reads robots.txt from path, or from stdin for "-": one
// byte more than robots.Parse reads, so that it can tell a file cut at
// the limit from one that ends there.
func readRobotsFile(stdin io.Reader, path string) ([]byte, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err // the *PathError names the file
		}
		defer f.Close()
		r = f
	}
	body, err := io.ReadAll(io.LimitReader(r, robots.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return body, nil
}

// checkURL is a URL to check: as given, and as godwit would fetch it.
type checkURL struct {
	raw string
	u   *url.URL
}

// checkURLs parses the URLs of args, or of stdin's lines when there are
// none. The first bad URL is an error, before anything is checked.
func checkURLs(stdin io.Reader, args []string) ([]checkURL, error) {
	var (
		urls []checkURL
		bad  error
	)
	add := func(raw, where string) {
		if bad != nil {
			return
		}
		u, err := urlnorm.Parse(raw)
		if err != nil {
			bad = fmt.Errorf("bad URL (%s) %q: %s", where, raw, urlProblem(raw, err))
			return
		}
		urls = append(urls, checkURL{raw: raw, u: u})
	}
	if len(args) > 0 {
		for i, a := range args {
			add(a, fmt.Sprintf("argument %d", i+1))
		}
	} else {
		n := 0
		if err := eachLine(stdin, func(line string) {
			n++
			add(line, fmt.Sprintf("URL %d of standard input", n))
		}); err != nil {
			return nil, err
		}
	}
	return urls, bad
}

// verdictLine is the output line for one URL.
func verdictLine(g *robots.Group, c checkURL, verbose bool) string {
	path := c.u.RequestURI()
	rule, ok := g.Match(path)
	verdict := "allowed"
	if ok && !rule.Allow {
		verdict = "disallowed"
	}
	if !verbose {
		return verdict + " " + c.raw
	}
	var why string
	switch {
	case ok:
		why = fmt.Sprintf("%s at line %d, group %q", rule, rule.Line, strings.Join(rule.Agents, ", "))
	case path == "/robots.txt":
		why = "/robots.txt is always allowed"
	case len(g.Agents()) == 0:
		why = "no group applies"
	default:
		why = fmt.Sprintf("no rule of group %q matches", strings.Join(g.Agents(), ", "))
	}
	return verdict + " " + c.raw + "  (" + why + ")"
}
