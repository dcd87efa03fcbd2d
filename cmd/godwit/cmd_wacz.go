package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/wacz"
)

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
			if err := writeWACZFile(out, paths, title); err != nil {
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
	flagExportData.stringVar(cmd.Flags(), &data, defaultSettings().Data)
	flagWACZOutput.stringVar(cmd.Flags(), &out, "")
	flagWACZTitle.stringVar(cmd.Flags(), &title, "")
	return cmd
}

// writeWACZFile writes the WACZ of the WARC files at paths to out, whole
// or not at all.
func writeWACZFile(out string, paths []string, title string) error {
	return wacz.WriteFile(out, paths, wacz.Options{Title: title, Created: time.Now(), Software: "godwit " + godwitVersion()})
}
