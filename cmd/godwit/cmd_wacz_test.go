package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// TestExportWACZ crawls a small web with page requisites into several
// WARC files, packages it with `godwit export wacz`, and checks the
// package from the outside, as a replay tool reads it: the WACZ 1.1.1
// layout; WARC files stored, not deflated; every resource's SHA-256 and
// size as datapackage.json states them, and datapackage.json's as
// datapackage-digest.json states it; every index line pointing at a WARC
// record of its URL in the archive; a page entry for every HTML page the
// web served, each in the index; and the pages' requisites archived.
func TestExportWACZ(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 2, PagesPerHost: 8, Seed: 5, Requisites: true})
	s := testSettings(t, addr)
	s.WARC.MaxSize = 16 << 10 // several files
	crawlInProcess(t, s, web.Seeds())

	out := filepath.Join(t.TempDir(), "crawl.wacz")
	said, errOut, code := runCmd(t, "", "export", "wacz", "-o", out, "--data", s.Data)
	if code != 0 {
		t.Fatalf("export wacz: exit %d: %s", code, errOut)
	}
	warcFiles, _ := filepath.Glob(filepath.Join(s.Data, "warc", "*.warc.gz"))
	if want := fmt.Sprintf("godwit: wrote %s: %d WARC file(s), ", out, len(warcFiles)); !strings.HasPrefix(said, want) {
		t.Errorf("export wacz says %q, want a line starting %q", said, want)
	}
	// Written readable like the WARC files it packages (0644 less the
	// umask, the same for both), and so are the CDXJ indexes.
	warcInfo, err := os.Stat(warcFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	idxFiles, _ := filepath.Glob(filepath.Join(s.Data, "warc", "*.cdxj"))
	for _, p := range append([]string{out}, idxFiles...) {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != warcInfo.Mode().Perm() {
			t.Errorf("%s: mode %v (%v), want the WARC files' %v", p, fi.Mode().Perm(), err, warcInfo.Mode().Perm())
		}
	}
	if len(idxFiles) == 0 {
		t.Error("no CDXJ index beside the WARC files")
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string][]byte{}
	var warcs []string
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "archive/") {
			warcs = append(warcs, f.Name)
			if f.Method != zip.Store {
				t.Errorf("%s is compressed (method %d); WARC files must be stored", f.Name, f.Method)
			}
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc) // also checks the entry's CRC
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		files[f.Name] = b
	}
	for _, name := range []string{"datapackage.json", "datapackage-digest.json", "indexes/index.cdxj", "pages/pages.jsonl"} {
		if _, ok := files[name]; !ok {
			t.Fatalf("no %s in the package; it has %v", name, slices.Sorted(func(yield func(string) bool) {
				for k := range files {
					if !yield(k) {
						return
					}
				}
			}))
		}
	}
	if len(warcs) < 2 {
		t.Fatalf("%d WARC files in archive/, want the crawl's several", len(warcs))
	}
	sha := func(b []byte) string { s := sha256.Sum256(b); return "sha256:" + hex.EncodeToString(s[:]) }

	var pkg struct {
		Profile     string `json:"profile"`
		WACZVersion string `json:"wacz_version"`
		Resources   []struct {
			Name, Path, Hash string
			Bytes            int64
		} `json:"resources"`
	}
	if err := json.Unmarshal(files["datapackage.json"], &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.Profile != "data-package" || pkg.WACZVersion != "1.1.1" {
		t.Errorf("datapackage.json: profile %q, wacz_version %q", pkg.Profile, pkg.WACZVersion)
	}
	listed := map[string]bool{}
	for _, r := range pkg.Resources {
		b, ok := files[r.Path]
		switch {
		case !ok:
			t.Errorf("resource %s not in the package", r.Path)
		case int64(len(b)) != r.Bytes || sha(b) != r.Hash || r.Name != filepath.Base(r.Path):
			t.Errorf("resource %+v: the file has %d bytes, %s", r, len(b), sha(b))
		}
		listed[r.Path] = true
	}
	for name := range files {
		if !listed[name] && name != "datapackage.json" && name != "datapackage-digest.json" {
			t.Errorf("%s is not listed in datapackage.json", name)
		}
	}
	var digest struct{ Path, Hash string }
	if err := json.Unmarshal(files["datapackage-digest.json"], &digest); err != nil {
		t.Fatal(err)
	}
	if digest.Path != "datapackage.json" || digest.Hash != sha(files["datapackage.json"]) {
		t.Errorf("datapackage-digest.json = %+v, want the hash of datapackage.json, %s", digest, sha(files["datapackage.json"]))
	}

	// The index: sorted, each line at a record of its URL.
	indexed := map[string]bool{}
	lines := strings.Split(strings.TrimSuffix(string(files["indexes/index.cdxj"]), "\n"), "\n")
	if !slices.IsSorted(lines) {
		t.Error("indexes/index.cdxj is not sorted")
	}
	for _, l := range lines {
		parts := strings.SplitN(l, " ", 3)
		var f struct {
			URL, Filename  string
			Offset, Length int64 `json:",string"`
		}
		if len(parts) != 3 || json.Unmarshal([]byte(parts[2]), &f) != nil {
			t.Fatalf("index line %q", l)
		}
		w, ok := files["archive/"+f.Filename]
		if !ok || f.Offset < 0 || f.Offset+f.Length > int64(len(w)) {
			t.Fatalf("index line %q points outside the archive", l)
		}
		rd, err := warc.NewReader(bytes.NewReader(w[f.Offset : f.Offset+f.Length]))
		if err != nil {
			t.Fatalf("index line %q: %v", l, err)
		}
		rec, err := rd.Next()
		if err != nil || warc.TargetURI(rec) != f.URL {
			t.Fatalf("index line %q: the record there is %v (err %v)", l, rec, err)
		}
		indexed[f.URL] = true
	}

	// Pages: the HTML pages the web answered 200, each replayable.
	served := map[string]bool{}
	requisites := 0
	for _, q := range web.Requests() {
		switch {
		case q.Status != 200:
		case q.Path == "/" || strings.HasPrefix(q.Path, "/p/"):
			served[q.RawURL] = true
		case strings.HasPrefix(q.Path, "/a/"):
			requisites++
			if !indexed[q.RawURL] {
				t.Errorf("requisite %s served, not in the index", q.RawURL)
			}
		}
	}
	pl := strings.Split(strings.TrimSuffix(string(files["pages/pages.jsonl"]), "\n"), "\n")
	var header struct{ Format, ID string }
	if err := json.Unmarshal([]byte(pl[0]), &header); err != nil || header.Format != "json-pages-1.0" || header.ID != "pages" {
		t.Errorf("pages.jsonl header %q", pl[0])
	}
	for _, l := range pl[1:] {
		var p struct{ URL, TS, Title string }
		if err := json.Unmarshal([]byte(l), &p); err != nil || p.TS == "" || p.Title == "" {
			t.Errorf("page line %q", l)
		}
		if !served[p.URL] || !indexed[p.URL] {
			t.Errorf("page %s: served %v, indexed %v", p.URL, served[p.URL], indexed[p.URL])
		}
	}
	if len(pl)-1 != len(served) || requisites == 0 {
		t.Errorf("%d pages in pages.jsonl, %d served; %d requisites served", len(pl)-1, len(served), requisites)
	}
}
