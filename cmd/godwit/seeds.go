package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/godwit-crawler/godwit/internal/datadir"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

var errNoSeeds = errors.New("no seeds: give URLs as arguments or --seeds FILE")

// seedSource is one seed with where it came from, for error messages.
type seedSource struct {
	url   string
	where string // "argument 2" or "seeds.txt:14"
}

// collectSeeds gathers the seeds from arguments and the seeds file and
// checks each. A bad seed is an error unless skipBad, in which case it is
// reported through warn and left out. No seeds at all is an error unless
// the crawl resumes (its seeds are in its state).
func collectSeeds(s crawlSettings, resume bool, warn func(string)) ([]string, error) {
	var all []seedSource
	for i, u := range s.Seeds {
		all = append(all, seedSource{url: u, where: fmt.Sprintf("seed %d", i+1)})
	}
	if s.SeedsFile != "" {
		fromFile, err := datadir.ReadSeedsFile(s.SeedsFile)
		if err != nil {
			return nil, err
		}
		for _, sd := range fromFile {
			all = append(all, seedSource{url: sd.URL, where: sd.Where})
		}
	}
	var seeds, bad []string
	for _, sd := range all {
		if _, err := urlnorm.Parse(sd.url); err != nil {
			msg := fmt.Sprintf("%s: bad seed URL %q: %s", sd.where, sd.url, urlProblem(sd.url, err))
			if s.SkipBadSeeds {
				warn(msg + "; skipped")
			}
			bad = append(bad, msg)
			continue
		}
		seeds = append(seeds, sd.url)
	}
	if len(bad) > 0 && !s.SkipBadSeeds {
		return nil, badSeeds(bad)
	}
	if len(seeds) == 0 && !resume {
		return nil, errNoSeeds
	}
	return seeds, nil
}

// badSeeds is the error naming every bad seed, one a line after the
// first (at most maxBadSeeds of them, then how many more).
func badSeeds(bad []string) error {
	if len(bad) == 1 {
		return errors.New(bad[0] + " (use --skip-bad-seeds to go on without it)")
	}
	const maxBadSeeds = 20
	var b strings.Builder
	fmt.Fprintf(&b, "%d bad seed URLs (use --skip-bad-seeds to go on without them):", len(bad))
	for i, msg := range bad {
		if i == maxBadSeeds {
			fmt.Fprintf(&b, "\n  and %d more", len(bad)-maxBadSeeds)
			break
		}
		b.WriteString("\n  " + msg)
	}
	return errors.New(b.String())
}

// urlProblem says in words what is wrong with the URL raw, which
// urlnorm.Parse refused with err: without the package's prefix and the
// URL the message already quotes.
func urlProblem(raw string, err error) string {
	msg := err.Error()
	for _, kind := range []error{urlnorm.ErrInvalid, urlnorm.ErrNotHTTP} {
		if errors.Is(err, kind) {
			msg = strings.TrimPrefix(msg, kind.Error())
			msg = strings.TrimPrefix(msg, " "+strconv.Quote(raw))
			msg = strings.TrimPrefix(msg, ": ")
			if errors.Is(err, urlnorm.ErrNotHTTP) {
				return "godwit crawls only http and https URLs (this one has " + msg + ")"
			}
		}
	}
	msg = strings.TrimPrefix(msg, "urlnorm: ")
	if msg == "not an absolute URL" {
		if u, err := urlnorm.Parse("https://" + raw); err == nil && !strings.HasPrefix(raw, "/") {
			return msg + "; did you mean " + u.String() + "?"
		}
		msg += ": it needs a scheme and a host, like https://example.com/"
	}
	return msg
}
