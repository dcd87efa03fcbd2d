package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/godwit-crawler/godwit/internal/atomicfile"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// The names of godwit's files in a data directory DIR (docs/formats.md).
// StoreDir and BloomFile are the frontier's (frontier.Open with
// Dir = DIR/state), which this leaf package cannot import; a test of the
// program checks that a real crawl leaves no file Inspect calls foreign.
const (
	LockFile     = "godwit.lock"   // DIR/godwit.lock
	StateDir     = "state"         // DIR/state: the crawl state
	WARCDir      = "warc"          // DIR/warc: WARC files and their CDXJ indexes
	StoreDir     = "store"         // DIR/state/store: the frontier's Pebble store
	BloomFile    = "seen.bloom"    // DIR/state/seen.bloom: the seen-set snapshot
	SeedsFile    = "seeds.txt"     // DIR/state/seeds.txt: the crawl's seeds
	SettingsFile = "settings.yaml" // DIR/state/settings.yaml: the crawl's settings
	UploadsFile  = "uploads.jsonl" // DIR/state/uploads.jsonl: with --store, the WARC files uploaded
)

// tmpSuffix marks a file being written whole (WriteFile; the frontier's
// seen-set snapshot): a crash can leave one behind.
const tmpSuffix = ".tmp"

var (
	// warcName is a WARC file as warc.FileName names it, complete or
	// still being written, or its CDXJ index.
	warcName = regexp.MustCompile(`^[A-Za-z0-9._-]+-[0-9]{17}-[0-9]{5}-[A-Za-z0-9._-]+(` +
		regexp.QuoteMeta(warc.Ext) + `|` + regexp.QuoteMeta(warc.Ext+warc.OpenSuffix) + `|\.cdxj)$`)
	// cdxjTemp is an index being written (archive: os.CreateTemp(dir, ".cdxj-*")).
	cdxjTemp = regexp.MustCompile(`^\.cdxj-[0-9]+$`)
	// pebbleName is a file Pebble keeps in its directory.
	pebbleName = regexp.MustCompile(`^(LOCK|CURRENT|(MANIFEST|OPTIONS)-[0-9]+|marker\..+|[0-9]+(-[0-9]+)?\.(log|sst|blob)|(temporary|CURRENT)\.[0-9]+\.dbtmp)$`)
)

// Contents is what Inspect found in a data directory. Paths are relative
// to it, with slashes.
type Contents struct {
	// Owned are godwit's files and directories, a directory after the
	// files in it; the lock file is not among them.
	Owned []string
	// Foreign are the files and directories godwit did not write, sorted.
	Foreign []string
	// Crawl: the directory holds a crawl's state (its store, seeds or
	// settings), a crawl to resume.
	Crawl bool
	// WARC: the directory holds WARC files.
	WARC bool
	// Settings: the crawl's settings file is there.
	Settings bool
}

// Inspect sorts the entries of the data directory dir into godwit's and
// foreign ones. A missing dir is empty.
func Inspect(dir string) (Contents, error) {
	var c Contents
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("datadir: %w", err)
	}
	for _, e := range entries {
		switch name := e.Name(); {
		case name == LockFile && e.Type().IsRegular():
		case name == StateDir && isDir(dir, e):
			if err := c.inspectState(dir); err != nil {
				return c, err
			}
			c.Owned = append(c.Owned, StateDir)
		case name == WARCDir && isDir(dir, e):
			if err := c.inspectDir(dir, WARCDir, func(e fs.DirEntry) bool {
				return e.Type().IsRegular() && (warcName.MatchString(e.Name()) || cdxjTemp.MatchString(e.Name()))
			}); err != nil {
				return c, err
			}
			c.Owned = append(c.Owned, WARCDir)
		default:
			c.Foreign = append(c.Foreign, name)
		}
	}
	slices.Sort(c.Foreign)
	for _, p := range c.Owned {
		if strings.HasPrefix(p, WARCDir+"/") && strings.Contains(p, warc.Ext) {
			c.WARC = true
		}
	}
	return c, nil
}

func (c *Contents) inspectState(dir string) error {
	files := []string{BloomFile, SeedsFile, SettingsFile, UploadsFile}
	err := c.inspectDir(dir, StateDir, func(e fs.DirEntry) bool {
		name := e.Name()
		if name == StoreDir {
			return e.IsDir()
		}
		return e.Type().IsRegular() && slices.Contains(files, strings.TrimSuffix(name, tmpSuffix))
	})
	if err != nil {
		return err
	}
	store := path.Join(StateDir, StoreDir)
	if i := slices.Index(c.Owned, store); i >= 0 {
		// The store is Pebble's: its files go before it.
		c.Owned = slices.Delete(c.Owned, i, i+1)
		if err := c.inspectDir(dir, store, func(e fs.DirEntry) bool {
			return e.Type().IsRegular() && pebbleName.MatchString(e.Name())
		}); err != nil {
			return err
		}
		c.Owned = append(c.Owned, store)
		c.Crawl = true
	}
	for _, f := range []string{SeedsFile, SettingsFile} {
		if slices.Contains(c.Owned, path.Join(StateDir, f)) {
			c.Crawl = true
		}
	}
	c.Settings = slices.Contains(c.Owned, path.Join(StateDir, SettingsFile))
	return nil
}

// inspectDir sorts the entries of dir/sub by owned.
func (c *Contents) inspectDir(dir, sub string, owned func(fs.DirEntry) bool) error {
	entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(sub)))
	if err != nil {
		return fmt.Errorf("datadir: %w", err)
	}
	for _, e := range entries {
		p := path.Join(sub, e.Name())
		if owned(e) {
			c.Owned = append(c.Owned, p)
		} else {
			c.Foreign = append(c.Foreign, p)
		}
	}
	return nil
}

// isDir reports whether e is a directory or a symbolic link to one (the
// state or WARC directory may live on another disk).
func isDir(dir string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	fi, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && fi.IsDir()
}

// RemoveOwned deletes godwit's files in dir as c lists them, and nothing
// else: it refuses when c has foreign files. Directories are removed only
// when empty; a directory that is a symbolic link stays (its godwit files
// are removed). The lock file stays.
func RemoveOwned(dir string, c Contents) error {
	if len(c.Foreign) > 0 {
		return fmt.Errorf("datadir: %s holds files godwit did not write", dir)
	}
	for _, p := range c.Owned {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if fi, err := os.Lstat(full); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			continue
		}
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("datadir: %w", err)
		}
	}
	return nil
}

// WriteFile writes data to path whole or not at all: a temporary file
// (path + ".tmp"), fsynced, renamed over path, and the directory fsynced
// (atomicfile).
func WriteFile(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data); err != nil {
		return fmt.Errorf("datadir: %w", err)
	}
	return nil
}
