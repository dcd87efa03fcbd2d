package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/godwit-crawler/godwit/internal/datadir"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// The data directory: DIR/godwit.lock, DIR/state (the crawl state: the
// frontier's store, the seen-set snapshot, the seeds, the settings),
// DIR/warc (the WARC files). internal/datadir owns the layout; see
// docs/formats.md.

// dataDir is a crawl's data directory.
type dataDir string

func (d dataDir) state() string { return filepath.Join(string(d), datadir.StateDir) }
func (d dataDir) warc() string  { return filepath.Join(string(d), datadir.WARCDir) }

// lockedDir is a data directory whose lock this process holds: nothing
// in it is read or changed before. close records the end of the run (if
// one started) and releases the lock.
type lockedDir struct {
	dataDir
	lock *datadir.Lock
	// run is the settings file of the run under way, nil until
	// saveSettings wrote it.
	run *settingsFile
	// deleted says what prepare deleted for --fresh ("" for nothing).
	deleted string
}

// checkNotBusy refuses dir when another process holds its lock, and
// leaves it as it was otherwise.
func checkNotBusy(dir string) error {
	l, err := datadir.Acquire(dir)
	if busy := (*datadir.BusyError)(nil); errors.As(err, &busy) {
		return inUse(dir, busy.PID)
	}
	if err != nil {
		return nil // not a directory, say: whoever locks it next says so
	}
	return l.Abandon()
}

// lockData takes the lock of the data directory dir, creating the
// directory. Another process holding it is bad input (exit status 2),
// with the message the README promises.
func lockData(dir string) (*lockedDir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	l, err := datadir.Acquire(dir)
	if busy := (*datadir.BusyError)(nil); errors.As(err, &busy) {
		return nil, inUse(dir, busy.PID)
	}
	if err != nil {
		return nil, failure{err}
	}
	return &lockedDir{dataDir: dataDir(dir), lock: l}, nil
}

// inUse is the refusal of a data directory another process holds.
func inUse(dir string, pid int) error {
	if pid == 0 {
		return fmt.Errorf("%s is in use by another godwit crawl (pid unknown); stop it first", dir)
	}
	return fmt.Errorf("%s is in use by another godwit crawl (pid %d); stop it first", dir, pid)
}

// close records the end of the run in the settings file, if a run
// started, and releases the lock.
func (d *lockedDir) close() error {
	var err error
	if d.run != nil {
		err = d.endRun()
	}
	if rerr := d.lock.Release(); err == nil {
		err = rerr
	}
	return err
}

// prepare makes the directory ready for a crawl and reports whether it
// holds a crawl to resume. godwit works only in a directory holding
// nothing but its own files (datadir.Inspect), so that a mistyped --data
// never mixes a crawl into unrelated files and --fresh deletes exactly
// what godwit wrote: anything else is refused, listed, and left alone.
func (d *lockedDir) prepare(fresh bool) (resume bool, err error) {
	c, err := datadir.Inspect(string(d.dataDir))
	if err != nil {
		return false, failure{err}
	}
	if len(c.Foreign) > 0 {
		list := listPaths(c.Foreign)
		switch {
		case !c.Crawl && !c.WARC:
			d.lock.Abandon() // leave a directory that is not godwit's as it was
			return false, fmt.Errorf("--data %s is not a godwit data directory (it holds %s); use an empty or new directory", d.dataDir, list)
		case fresh:
			return false, fmt.Errorf("--fresh: %s holds files godwit did not write (%s); nothing was deleted: move them elsewhere first", d.dataDir, list)
		}
		return false, fmt.Errorf("--data %s holds files godwit did not write (%s); move them elsewhere to resume the crawl there", d.dataDir, list)
	}
	switch {
	case fresh:
		what := describeOwned(string(d.dataDir), c)
		if err := datadir.RemoveOwned(string(d.dataDir), c); err != nil {
			return false, failure{fmt.Errorf("--fresh: %w", err)}
		}
		d.deleted = what
		return false, nil
	case c.Crawl:
		return true, nil
	case c.WARC:
		return false, fmt.Errorf("--data %s holds WARC files but no crawl state to resume; use --fresh to start a new crawl there (it deletes them) or another directory", d.dataDir)
	}
	return false, nil
}

// describeOwned says in a few words what of godwit's is in dir ("" for
// nothing): "the crawl in DIR (its state and 3 WARC files, 1.2 MiB)".
func describeOwned(dir string, c datadir.Contents) string {
	if len(c.Owned) == 0 {
		return ""
	}
	var files int
	var size int64
	for _, p := range c.Owned {
		if strings.HasSuffix(p, ".warc.gz") || strings.HasSuffix(p, ".warc.gz"+warc.OpenSuffix) {
			files++
			if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
				size += fi.Size()
			}
		}
	}
	var parts []string
	if c.Crawl {
		parts = append(parts, "its state")
	}
	if files > 0 {
		parts = append(parts, fmt.Sprintf("%d WARC file(s), %s", files, humanBytes(size)))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("godwit's files in %s", dir)
	}
	return fmt.Sprintf("the earlier crawl in %s (%s)", dir, strings.Join(parts, " and "))
}

// discard removes what a run that fetched nothing wrote in the data
// directory, after its lock was released, and the directory itself if
// the run created it: nothing of a crawl that never started is kept.
func (d *lockedDir) discard(created bool) {
	c, err := datadir.Inspect(string(d.dataDir))
	if err != nil || len(c.Foreign) > 0 {
		return
	}
	if datadir.RemoveOwned(string(d.dataDir), c) != nil || !created {
		return
	}
	os.Remove(filepath.Join(string(d.dataDir), datadir.LockFile))
	os.Remove(string(d.dataDir)) // only if empty
}

// listPaths names at most ten paths.
func listPaths(paths []string) string {
	if len(paths) <= 10 {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:10], ", "), len(paths)-10)
}

// loadSeeds returns the seeds recorded by earlier runs of this crawl.
func (d dataDir) loadSeeds() ([]string, error) { return datadir.LoadSeeds(string(d)) }

// saveSeeds records the crawl's seeds (they define its scope on resume),
// atomically.
func (d dataDir) saveSeeds(seeds []string) error { return datadir.SaveSeeds(string(d), seeds) }

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
