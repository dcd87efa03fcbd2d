package extract

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/simhash"
)

// pyDocsDir is Debian's python3.11-doc, ~530 real pages of ~100 KiB with
// ~180 links each, written by a tool no one here wrote.
const pyDocsDir = "/usr/share/doc/python3.11/html"

// pyDocsGolden holds, for every page of pyDocsDir, what HTML extracted
// from it with the golang.org/x/net/html tokenizer (the code before
// internal/htmltok): a hash of the page, then counts and a hash of its
// links, embeds, title, robots directives, signals and SimHash.
const pyDocsGolden = "testdata/pydocs-golden.txt"

var updatePyDocs = flag.Bool("update-pydocs", false, "rewrite "+pyDocsGolden+" from this tree's extract.HTML")

// pyDocsLine is one page's line of pyDocsGolden.
func pyDocsLine(t *testing.T, rel string, body []byte) string {
	page, err := url.Parse("http://127.0.0.1:18090/" + filepath.ToSlash(rel))
	if err != nil {
		t.Fatal(err)
	}
	text := simhash.NewTextFingerprint()
	d, err := HTML(page, body, &Options{Text: text, Embeds: true, Signals: true, Agents: []string{"godwit"}})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, l := range d.Links {
		fmt.Fprintf(h, "L %s %s %s %q\n", l.URL, l.Tag, l.Attr, l.Rel)
	}
	for _, l := range d.Embeds {
		fmt.Fprintf(h, "E %s %s %s\n", l.URL, l.Tag, l.Attr)
	}
	fp, ok := text.Fingerprint()
	fmt.Fprintf(h, "T %q %v %+v %s %s %v %+v %x %v", d.Title, d.Truncated, d.Robots, d.Encoding, d.EncodingSource, ok, d.Signals, fp, ok)
	page0 := sha256.Sum256(body)
	return fmt.Sprintf("%s %x %d %d %x", filepath.ToSlash(rel), page0[:8], len(d.Links), len(d.Embeds), h.Sum(nil)[:12])
}

// TestPythonDocsAsBefore extracts every page of the Python documentation
// and compares what it finds with what the code before our own tokenizer
// found (pyDocsGolden): the same links, embeds, title, robots, signals
// and SimHash on every page. Pages whose bytes changed (another version
// of the package) are skipped and counted. Skipped without the package.
func TestPythonDocsAsBefore(t *testing.T) {
	if _, err := os.Stat(pyDocsDir); err != nil {
		t.Skipf("%s: %v (apt-get install python3.11-doc)", pyDocsDir, err)
	}
	want := map[string]string{}
	if !*updatePyDocs {
		f, err := os.Open(pyDocsGolden)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if path, _, ok := strings.Cut(line, " "); ok && !strings.HasPrefix(line, "#") {
				want[path] = line
			}
		}
		f.Close()
	}
	var out bytes.Buffer
	out.WriteString("# page sha256[:8] links embeds sha256(links, embeds, title, robots, signals, simhash)[:12]\n")
	pages, links, changed := 0, 0, 0
	err := filepath.WalkDir(pyDocsDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(pyDocsDir, path)
		got := pyDocsLine(t, rel, body)
		out.WriteString(got + "\n")
		pages++
		var n int
		fmt.Sscanf(strings.Fields(got)[2], "%d", &n)
		links += n
		if *updatePyDocs {
			return nil
		}
		w, ok := want[filepath.ToSlash(rel)]
		switch {
		case !ok || strings.Fields(w)[1] != strings.Fields(got)[1]:
			changed++
		case w != got:
			t.Errorf("%s: extracted\n%s\nbefore\n%s", rel, got, w)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if *updatePyDocs {
		if err := os.WriteFile(pyDocsGolden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d pages, %d links; %d pages not in the golden file or changed", pages, links, changed)
	if changed == pages {
		t.Skipf("no page of %s is the one the golden file was made from", pyDocsDir)
	}
}
