package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/warc"
)

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export what a crawl archived",
	}
	cmd.AddCommand(newExportPagesCmd(), newExportWACZCmd())
	return cmd
}

// pageLine is one line of `godwit export pages`.
type pageLine struct {
	URL       string `json:"url"`
	Status    int    `json:"status"`
	FetchTime string `json:"fetch_time"` // WARC-Date of the capture
	Title     string `json:"title,omitempty"`
	MIME      string `json:"mime,omitempty"`
	Digest    string `json:"digest,omitempty"` // WARC-Payload-Digest
	SimHash   string `json:"simhash,omitempty"`
	Outlinks  int    `json:"outlinks"`
	Revisit   string `json:"revisit,omitempty"` // the revisit profile, for a revisit
	// NearDuplicateOf is the earlier page whose text this page's is near.
	NearDuplicateOf string `json:"near_duplicate_of,omitempty"`
	Truncated       string `json:"truncated,omitempty"`
	WARC            struct {
		File   string `json:"file"`
		Offset int64  `json:"offset"`
		Length int64  `json:"length"`
	} `json:"warc"`
}

func newExportPagesCmd() *cobra.Command {
	var data string
	cmd := &cobra.Command{
		Use:   "pages [WARC...]",
		Short: "Write one JSON line per archived page: url, status, time, title, digest, simhash, outlinks, WARC location",
		Long: `Write one JSON object per line for every response and revisit record (robots.txt
and sitemaps included): url, status, fetch_time, title, mime, digest,
simhash, outlinks (count), revisit (profile), near_duplicate_of, truncated,
and warc {file, offset, length}. Titles, fingerprints and outlinks come
from godwit's metadata records; other producers' files give the rest.

With no WARC arguments, reads every WARC file of the crawl in --data.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			paths := args
			if len(paths) == 0 {
				var err error
				if paths, err = filepath.Glob(filepath.Join(dataDir(data).warc(), "*.warc.gz")); err != nil {
					return err
				}
				if len(paths) == 0 {
					return fmt.Errorf("no WARC files in %s", dataDir(data).warc())
				}
				sort.Strings(paths)
			}
			if err := checkFiles(paths); err != nil {
				return err
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			for _, p := range paths {
				if err := exportPages(w, p); err != nil {
					return err
				}
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVar(&data, "data", defaultSettings().Data, "the crawl's data directory (when no WARC files are given)")
	return cmd
}

// exportPages writes the pages of one WARC file. A page's metadata record
// follows its response in the same group, so lines are written when the
// next page starts or the file ends.
func exportPages(w io.Writer, path string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var (
		pending *pageLine
		id      string
	)
	flush := func() error {
		if pending == nil {
			return nil
		}
		err := enc.Encode(pending)
		pending = nil
		return err
	}
	err := eachRecord(path, func(_ int, off, length int64, rec *warc.Record) bool {
		switch rec.Type {
		case warc.TypeResponse, warc.TypeRevisit:
			if flush() != nil {
				return false
			}
			p := &pageLine{
				URL:       rec.Header.Get(warc.FieldTargetURI),
				FetchTime: rec.Header.Get(warc.FieldDate),
				Digest:    rec.Header.Get(warc.FieldPayloadDigest),
				Truncated: rec.Header.Get(warc.FieldTruncated),
			}
			if rec.Type == warc.TypeRevisit {
				p.Revisit = rec.Header.Get(warc.FieldProfile)
			}
			if m, err := warc.ParseHTTP(rec.Block); err == nil {
				p.Status = m.Status
				p.MIME, _, _ = strings.Cut(m.Header.Get("Content-Type"), ";")
				p.MIME = strings.ToLower(strings.TrimSpace(p.MIME))
			}
			p.WARC.File, p.WARC.Offset, p.WARC.Length = filepath.Base(path), off, length
			pending, id = p, rec.Header.Get(warc.FieldRecordID)
		case warc.TypeMetadata:
			if pending == nil || rec.Header.Get(warc.FieldRefersTo) != id {
				return true
			}
			fields, err := warc.ParseFields(rec.Block)
			if err != nil {
				return true
			}
			for _, f := range fields {
				switch f.Name {
				case "title":
					pending.Title = f.Value
				case "simhash":
					pending.SimHash = f.Value
				case "outlink":
					pending.Outlinks++
				case "near-duplicate-of":
					pending.NearDuplicateOf = f.Value
				}
			}
		}
		return true
	})
	if ferr := flush(); err == nil {
		err = ferr
	}
	var fe failure
	if err != nil && !errors.As(err, &fe) {
		err = failure{err}
	}
	return err
}
