package datadir

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Seed is one seed URL read from a seeds file, with where it came from,
// for error messages.
type Seed struct {
	URL   string
	Where string // "seeds.txt:14"
}

// ReadSeedsFile reads a seeds file (godwit crawl --seeds): one URL per
// line; blank lines and # comments are ignored, a '#' inside a URL being
// its fragment. Its errors name the file in words a user reads.
func ReadSeedsFile(path string) ([]Seed, error) {
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("seeds file %s does not exist", path)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("seeds file %s: permission denied", path)
	case err != nil:
		return nil, fmt.Errorf("seeds file %s: %w", path, err)
	}
	defer f.Close()
	var out []Seed
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		line = stripComment(line)
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		out = append(out, Seed{URL: line, Where: fmt.Sprintf("%s:%d", path, n)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("seeds file %s: %w", path, err)
	}
	return out, nil
}

// stripComment cuts line at its comment: the first '#' that starts the
// line or follows a space or tab. A '#' inside a URL is its fragment, so
// "https://a.example/#top  # note" keeps the fragment and loses the note.
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}

// LoadSeeds returns the seeds recorded in the data directory dir by
// earlier runs of its crawl (DIR/state/seeds.txt); none if there are none.
func LoadSeeds(dir string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, StateDir, SeedsFile))
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

// SaveSeeds records the crawl's seeds in the data directory dir (they
// define its scope on resume), whole or not at all.
func SaveSeeds(dir string, seeds []string) error {
	state := filepath.Join(dir, StateDir)
	if err := os.MkdirAll(state, 0o755); err != nil {
		return err
	}
	return WriteFile(filepath.Join(state, SeedsFile), []byte(strings.Join(seeds, "\n")+"\n"))
}
