package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The data directory: DIR/state holds the crawl state (the frontier's
// store, the seen-set snapshot, the seeds), DIR/warc the WARC files. See
// docs/formats.md.
const (
	stateDir  = "state"
	warcDir   = "warc"
	seedsFile = "seeds.txt"
)

// dataDir is a crawl's data directory.
type dataDir string

func (d dataDir) state() string { return filepath.Join(string(d), stateDir) }
func (d dataDir) warc() string  { return filepath.Join(string(d), warcDir) }

// prepare makes the directory ready for a crawl and reports whether it
// holds a crawl to resume. A directory with other content is refused, so
// that a mistyped --data never mixes a crawl into unrelated files; fresh
// deletes a previous crawl's state and WARC files, and nothing else.
func (d dataDir) prepare(fresh bool) (resume bool, err error) {
	entries, err := os.ReadDir(string(d))
	if errors.Is(err, fs.ErrNotExist) {
		return false, os.MkdirAll(string(d), 0o755)
	}
	if err != nil {
		return false, fmt.Errorf("--data: %w", err)
	}
	var foreign []string
	for _, e := range entries {
		if n := e.Name(); n != stateDir && n != warcDir {
			foreign = append(foreign, n)
		}
	}
	if len(foreign) > 0 {
		return false, fmt.Errorf("--data %s is not a godwit data directory (it holds %s); use an empty or new directory",
			d, strings.Join(foreign[:min(len(foreign), 3)], ", "))
	}
	hasState := slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == stateDir })
	hasWARC := slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == warcDir })
	switch {
	case fresh:
		for _, p := range []string{d.state(), d.warc()} {
			if err := os.RemoveAll(p); err != nil {
				return false, fmt.Errorf("--fresh: %w", err)
			}
		}
		return false, nil
	case hasState:
		return true, nil
	case hasWARC:
		return false, fmt.Errorf("--data %s holds WARC files but no crawl state to resume; use --fresh to start a new crawl there (it deletes them) or another directory", d)
	}
	return false, nil
}

// hasState reports whether the directory holds a crawl to resume.
func (d dataDir) hasState() bool {
	fi, err := os.Stat(d.state())
	return err == nil && fi.IsDir()
}

// loadSeeds returns the seeds recorded by earlier runs of this crawl.
func (d dataDir) loadSeeds() ([]string, error) {
	f, err := os.Open(filepath.Join(d.state(), seedsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var seeds []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			seeds = append(seeds, s)
		}
	}
	return seeds, sc.Err()
}

// saveSeeds records the crawl's seeds (they define its scope on resume),
// atomically: write a temporary file, fsync, rename.
func (d dataDir) saveSeeds(seeds []string) error {
	if err := os.MkdirAll(d.state(), 0o755); err != nil {
		return err
	}
	path := filepath.Join(d.state(), seedsFile)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strings.Join(seeds, "\n") + "\n")
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// union returns a followed by the elements of b not in a.
func union(a, b []string) []string {
	seen := make(map[string]struct{}, len(a))
	out := make([]string, 0, len(a)+len(b))
	for _, s := range append(slices.Clone(a), b...) {
		if _, ok := seen[s]; !ok {
			seen[s] = struct{}{}
			out = append(out, s)
		}
	}
	return out
}
