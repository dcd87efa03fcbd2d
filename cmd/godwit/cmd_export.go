package main

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/wacz"
)

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export what a crawl archived",
	}
	cmd.AddCommand(newExportPagesCmd(), newExportWACZCmd())
	return cmd
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
	flagExportData.stringVar(cmd.Flags(), &data, defaultSettings().Data)
	return cmd
}

// exportPages writes the pages of the WARC file at path as JSON lines;
// an error is a failure.
func exportPages(w io.Writer, path string) error {
	if err := wacz.WritePages(w, path); err != nil {
		return failure{err}
	}
	return nil
}
