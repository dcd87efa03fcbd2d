package wacz

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
	"time"

	"github.com/godwit-crawler/godwit/internal/atomicfile"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// Version is the version of the WACZ specification written
// (https://specs.webrecorder.net/wacz/1.1.1/).
const Version = "1.1.1"

// Options describe a package.
type Options struct {
	// Title is the collection's title ("" for none).
	Title string
	// Created is when the package was made.
	Created time.Time
	// Software names the program that made it ("godwit v1.2.3").
	Software string
}

// resource is one entry of datapackage.json's resources.
type resource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"`
	Bytes int64  `json:"bytes"`
}

// datapackage is datapackage.json (a Frictionless Data Package).
type datapackage struct {
	Profile      string     `json:"profile"`
	WACZVersion  string     `json:"wacz_version"`
	Title        string     `json:"title,omitempty"`
	Created      string     `json:"created"`
	Software     string     `json:"software"`
	MainPageURL  string     `json:"mainPageURL,omitempty"`
	MainPageDate string     `json:"mainPageDate,omitempty"`
	Resources    []resource `json:"resources"`
}

// page is a line of pages/pages.jsonl after its header.
type page struct {
	URL   string `json:"url"`
	TS    string `json:"ts"`
	Title string `json:"title,omitempty"`
}

// WriteFile writes the WACZ of the WARC files at paths to out, whole or
// not at all (atomicfile), readable like the WARC files (0644 less the
// umask).
func WriteFile(out string, paths []string, o Options) error {
	return atomicfile.WriteWith(out, atomicfile.Options{Perm: 0o644}, func(w io.Writer) error { return Write(w, paths, o) })
}

// Write writes the WACZ package of the WARC files at paths to w: the WARC
// files under archive/ (stored, not compressed again, so that a replay
// tool can read a record at its offset), their CDXJ index at
// indexes/index.cdxj, the HTML pages answered 200 at pages/pages.jsonl,
// datapackage.json and datapackage-digest.json. The files' base names
// must differ (the index names files by them).
func Write(w io.Writer, paths []string, o Options) error {
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
	pages, first, err := pagesList(paths)
	if err != nil {
		return err
	}

	zw := zip.NewWriter(w)
	pkg := datapackage{Profile: "data-package", WACZVersion: Version, Title: o.Title,
		Created: o.Created.UTC().Format(time.RFC3339), Software: o.Software}
	if first != nil {
		pkg.MainPageURL, pkg.MainPageDate = first.URL, first.TS
	}
	for _, p := range paths {
		r, err := addFile(zw, "archive/"+filepath.Base(p), p)
		if err != nil {
			return err
		}
		pkg.Resources = append(pkg.Resources, r)
	}
	r, err := add(zw, "indexes/index.cdxj", index.Bytes(), zip.Deflate)
	if err != nil {
		return err
	}
	pkg.Resources = append(pkg.Resources, r)
	r, err = add(zw, "pages/pages.jsonl", pages, zip.Deflate)
	if err != nil {
		return err
	}
	pkg.Resources = append(pkg.Resources, r)

	dp, err := json.MarshalIndent(pkg, "", "  ")
	if err != nil {
		return err
	}
	r, err = add(zw, "datapackage.json", dp, zip.Deflate)
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
	if _, err := add(zw, "datapackage-digest.json", digest, zip.Deflate); err != nil {
		return err
	}
	return zw.Close()
}

// pagesList is pages/pages.jsonl, a line each (ending in "\n"): the
// header, then every response record of an HTML page answered 200, in
// file order, with the title godwit's metadata record gave it; and the
// first of those pages (nil for none).
func pagesList(paths []string) ([]byte, *page, error) {
	header, _ := json.Marshal(map[string]string{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"})
	buf := bytes.NewBuffer(append(header, '\n'))
	var first *page
	for _, path := range paths {
		err := Pages(path, func(pl PageLine) error {
			if pl.Status != 200 || pl.Revisit != "" || pl.MIME != "text/html" && pl.MIME != "application/xhtml+xml" {
				return nil
			}
			p := page{URL: pl.URL, TS: pl.FetchTime, Title: pl.Title}
			b, err := json.Marshal(p)
			if err != nil {
				return err
			}
			if first == nil {
				first = &p
			}
			buf.Write(b)
			buf.WriteByte('\n')
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return buf.Bytes(), first, nil
}

// add adds a file of the package whose content is b.
func add(zw *zip.Writer, name string, b []byte, method uint16) (resource, error) {
	f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: time.Now()})
	if err != nil {
		return resource{}, err
	}
	if _, err := f.Write(b); err != nil {
		return resource{}, err
	}
	sum := sha256.Sum256(b)
	return resource{Name: filepath.Base(name), Path: name, Hash: "sha256:" + hex.EncodeToString(sum[:]), Bytes: int64(len(b))}, nil
}

// addFile adds the file at path, stored (a WARC file is gzip members
// already, and a replay tool reads its records by offset).
func addFile(zw *zip.Writer, name, path string) (resource, error) {
	src, err := os.Open(path)
	if err != nil {
		return resource{}, err
	}
	defer src.Close() // read only
	fi, err := src.Stat()
	if err != nil {
		return resource{}, err
	}
	f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: fi.ModTime()})
	if err != nil {
		return resource{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), src)
	if err != nil {
		return resource{}, fmt.Errorf("%s: %w", path, err)
	}
	return resource{Name: filepath.Base(name), Path: name, Hash: "sha256:" + hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
}
