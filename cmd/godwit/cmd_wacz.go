package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/warc"
)

// waczVersion is the version of the WACZ specification written
// (https://specs.webrecorder.net/wacz/1.1.1/).
const waczVersion = "1.1.1"

func newExportWACZCmd() *cobra.Command {
	var data, out, title string
	cmd := &cobra.Command{
		Use:   "wacz -o FILE [WARC...]",
		Short: "Package the crawl as a WACZ file, for ReplayWeb.page and other replay tools",
		Long: `Write a WACZ 1.1.1 package (Web Archive Collection Zipped): a ZIP file
holding the WARC files under archive/ (stored, not compressed again, so
that a replay tool can read a record at its offset), one CDXJ index of all
of them at indexes/index.cdxj, the HTML pages answered 200 at
pages/pages.jsonl (url, ts, title), datapackage.json listing every file
with its SHA-256 and size, and datapackage-digest.json with the hash of
datapackage.json. Open the file in ReplayWeb.page (https://replayweb.page),
or serve it with godwit replay, to browse the crawl.

With no WARC arguments, packages every complete WARC file of the crawl in
--data.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return errors.New("-o FILE is required")
			}
			paths := args
			if len(paths) == 0 {
				var err error
				if paths, err = crawlWARCs(data); err != nil {
					return err
				}
			}
			if err := checkFiles(paths); err != nil {
				return err
			}
			if title == "" {
				title = filepath.Base(strings.TrimSuffix(out, ".wacz"))
			}
			if err := writeWACZFile(out, paths, title, time.Now()); err != nil {
				return err
			}
			fi, err := os.Stat(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "godwit: wrote %s: %d WARC file(s), %s; open it at https://replayweb.page or with godwit replay %s\n",
				out, len(paths), humanBytes(fi.Size()), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&data, "data", defaultSettings().Data, "the crawl's data directory (when no WARC files are given)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "the WACZ file to write (replaced whole, or not at all)")
	cmd.Flags().StringVar(&title, "title", "", "the collection's title (default: the file's base name)")
	return cmd
}

// waczResource is one entry of datapackage.json's resources.
type waczResource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"`
	Bytes int64  `json:"bytes"`
}

// waczPackage is datapackage.json (a Frictionless Data Package).
type waczPackage struct {
	Profile      string         `json:"profile"`
	WACZVersion  string         `json:"wacz_version"`
	Title        string         `json:"title,omitempty"`
	Created      string         `json:"created"`
	Software     string         `json:"software"`
	MainPageURL  string         `json:"mainPageURL,omitempty"`
	MainPageDate string         `json:"mainPageDate,omitempty"`
	Resources    []waczResource `json:"resources"`
}

// waczPage is a line of pages/pages.jsonl after its header.
type waczPage struct {
	URL   string `json:"url"`
	TS    string `json:"ts"`
	Title string `json:"title,omitempty"`
}

// writeWACZFile writes the WACZ of the WARC files at paths to out: to a
// temporary file beside it, synced and renamed, so out is whole or absent.
func writeWACZFile(out string, paths []string, title string, now time.Time) error {
	tmp, err := createTemp(filepath.Dir(out), ".wacz-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if err := writeWACZ(tmp, paths, title, now); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}

// writeWACZ writes the package to w.
func writeWACZ(w io.Writer, paths []string, title string, now time.Time) error {
	names := map[string]bool{}
	for _, p := range paths {
		b := filepath.Base(p)
		if names[b] {
			return fmt.Errorf("two WARC files named %s: the index names files by base name", b)
		}
		names[b] = true
	}
	var index bytes.Buffer
	if err := warc.WriteCDXJ(&index, paths...); err != nil {
		return err
	}
	pages, err := waczPages(paths)
	if err != nil {
		return err
	}

	zw := zip.NewWriter(w)
	pkg := waczPackage{Profile: "data-package", WACZVersion: waczVersion, Title: title,
		Created: now.UTC().Format(time.RFC3339), Software: "godwit " + godwitVersion()}
	if len(pages) > 1 {
		var first waczPage
		if json.Unmarshal(pages[1], &first) == nil {
			pkg.MainPageURL, pkg.MainPageDate = first.URL, first.TS
		}
	}
	for _, p := range paths {
		r, err := waczAddFile(zw, "archive/"+filepath.Base(p), p)
		if err != nil {
			return err
		}
		pkg.Resources = append(pkg.Resources, r)
	}
	r, err := waczAdd(zw, "indexes/index.cdxj", index.Bytes(), zip.Deflate)
	if err != nil {
		return err
	}
	pkg.Resources = append(pkg.Resources, r)
	r, err = waczAdd(zw, "pages/pages.jsonl", bytes.Join(pages, nil), zip.Deflate)
	if err != nil {
		return err
	}
	pkg.Resources = append(pkg.Resources, r)

	dp, err := json.MarshalIndent(pkg, "", "  ")
	if err != nil {
		return err
	}
	r, err = waczAdd(zw, "datapackage.json", dp, zip.Deflate)
	if err != nil {
		return err
	}
	digest, err := json.MarshalIndent(struct {
		Path string `json:"path"`
		Hash string `json:"hash"`
	}{r.Path, r.Hash}, "", "  ")
	if err != nil {
		return err
	}
	if _, err := waczAdd(zw, "datapackage-digest.json", digest, zip.Deflate); err != nil {
		return err
	}
	return zw.Close()
}

// waczPages is pages/pages.jsonl, a line each (ending in "\n"): the
// header, then every response record of an HTML page answered 200, in
// file order, with the title godwit's metadata record gave it.
func waczPages(paths []string) ([][]byte, error) {
	header, _ := json.Marshal(map[string]string{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"})
	lines := [][]byte{append(header, '\n')}
	for _, p := range paths {
		var buf bytes.Buffer
		if err := exportPages(&buf, p); err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(&buf)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var pl pageLine
			if err := json.Unmarshal(sc.Bytes(), &pl); err != nil {
				return nil, err
			}
			if pl.Status != 200 || pl.Revisit != "" || pl.MIME != "text/html" && pl.MIME != "application/xhtml+xml" {
				continue
			}
			b, err := json.Marshal(waczPage{URL: pl.URL, TS: pl.FetchTime, Title: pl.Title})
			if err != nil {
				return nil, err
			}
			lines = append(lines, append(b, '\n'))
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return lines, nil
}

// waczAdd adds a file of the package whose content is b.
func waczAdd(zw *zip.Writer, name string, b []byte, method uint16) (waczResource, error) {
	f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: time.Now()})
	if err != nil {
		return waczResource{}, err
	}
	if _, err := f.Write(b); err != nil {
		return waczResource{}, err
	}
	sum := sha256.Sum256(b)
	return waczResource{Name: filepath.Base(name), Path: name, Hash: "sha256:" + hex.EncodeToString(sum[:]), Bytes: int64(len(b))}, nil
}

// waczAddFile adds the file at path, stored (a WARC file is gzip members
// already, and a replay tool reads its records by offset).
func waczAddFile(zw *zip.Writer, name, path string) (waczResource, error) {
	src, err := os.Open(path)
	if err != nil {
		return waczResource{}, err
	}
	defer src.Close() // read only
	fi, err := src.Stat()
	if err != nil {
		return waczResource{}, err
	}
	f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: fi.ModTime()})
	if err != nil {
		return waczResource{}, err
	}
	var h hash.Hash = sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), src)
	if err != nil {
		return waczResource{}, fmt.Errorf("%s: %w", path, err)
	}
	return waczResource{Name: filepath.Base(name), Path: name, Hash: "sha256:" + hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
}

// createTemp creates a new file in dir named prefix and a random suffix,
// like os.CreateTemp, but with the mode of a WARC file (0644 less the
// umask) rather than 0600: it is renamed to a file others read.
func createTemp(dir, prefix string) (*os.File, error) {
	for range 1000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("cannot create a temporary file in %s", dir)
}
