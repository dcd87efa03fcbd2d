package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

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
		fromFile, err := readSeedsFile(s.SeedsFile)
		if err != nil {
			return nil, err
		}
		all = append(all, fromFile...)
	}
	var seeds []string
	for _, sd := range all {
		if _, err := urlnorm.Parse(sd.url); err != nil {
			msg := fmt.Sprintf("%s: bad seed URL %q: %v", sd.where, sd.url, err)
			if !s.SkipBadSeeds {
				return nil, errors.New(msg + " (use --skip-bad-seeds to go on without it)")
			}
			warn(msg + "; skipped")
			continue
		}
		seeds = append(seeds, sd.url)
	}
	if len(seeds) == 0 && !resume {
		return nil, errNoSeeds
	}
	return seeds, nil
}

// readSeedsFile reads one URL per line; blank lines and # comments are ignored.
func readSeedsFile(path string) ([]seedSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("seeds: %w", err)
	}
	defer f.Close()
	var out []seedSource
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			line = line[:i] // a comment; a '#' inside a URL is a fragment
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		out = append(out, seedSource{url: line, where: fmt.Sprintf("%s:%d", path, n)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("seeds %s: %w", path, err)
	}
	return out, nil
}
