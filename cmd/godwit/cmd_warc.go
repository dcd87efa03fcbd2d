package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/atomicfile"
	"github.com/godwit-crawler/godwit/internal/warc"
)

func newWARCCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "warc",
		Short: "List, extract, verify and index WARC files",
		Long: `Work with WARC files, godwit's or any producer's (WARC/1.0 and 1.1,
uncompressed or gzip with one member per record). docs/warc-tool.md
describes the checks of verify and the CDXJ format of cdx byte by byte.

Exit status: 0 success, 1 a failure (a fault found, a file that cannot be
read to its end, a record not found), 2 bad input (flags, missing files).`,
	}
	cmd.AddCommand(newWARCLsCmd(), newWARCCatCmd(), newWARCVerifyCmd(), newWARCCdxCmd())
	return cmd
}

// checkFiles reports the first argument that is not a readable regular
// file: bad input, exit status 2.
func checkFiles(paths []string) error {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
	}
	return nil
}

// eachRecord calls f for every record of the WARC file at path, with its
// 1-based number, offset and length, until f returns false. A file that
// cannot be read to its end is a failure.
func eachRecord(path string, f func(n int, off, length int64, rec *warc.Record) bool) error {
	if err := warc.EachRecord(path, f); err != nil {
		return failure{err}
	}
	return nil
}

func newWARCLsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "ls FILE",
		Short: "List the records of a WARC file",
		Long: `List the records of a WARC file, one line each, fields separated by one
space, "-" for a value the record does not have:

  number offset length type date target-uri status payload-digest

number counts records from 1; offset and length locate the record in the
file (for gzip, its member: what a CDXJ index stores); status is the HTTP
status of a response or revisit holding an HTTP header. A file that ends
inside a record is listed up to it, then the damage is reported on
standard error (exit status 1).`,
		Example: `  godwit warc ls godwit-data/warc/godwit-20250601120000123-00000-crawl1.warc.gz`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFiles(args); err != nil {
				return err
			}
			out := bufio.NewWriter(cmd.OutOrStdout())
			defer out.Flush()
			return eachRecord(args[0], func(n int, off, length int64, rec *warc.Record) bool {
				fmt.Fprintln(out, lsLine(n, off, length, rec))
				return true
			})
		},
	}
}

func lsLine(n int, off, length int64, rec *warc.Record) string {
	// A value must stay one field: "-" when absent, white space escaped.
	dash := func(s string) string {
		return strings.NewReplacer(" ", "%20", "\t", "%09").Replace(ifEmpty(s, "-"))
	}
	status := "-"
	if warc.IsHTTP(rec) && (rec.Type == warc.TypeResponse || rec.Type == warc.TypeRevisit) {
		if m, _ := warc.ParseHTTP(rec.Block); m.Status > 0 {
			status = strconv.Itoa(m.Status)
		}
	}
	return fmt.Sprintf("%d %d %d %s %s %s %s %s", n, off, length,
		dash(rec.Type), dash(rec.Header.Get(warc.FieldDate)), dash(warc.TargetURI(rec)),
		status, dash(rec.Header.Get(warc.FieldPayloadDigest)))
}

// ifEmpty returns s, or def when s is empty.
func ifEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func newWARCCatCmd() *cobra.Command {
	var (
		number int
		target string
		decode bool
		block  bool
	)
	cmd := &cobra.Command{
		Use:   "cat FILE (--record N | --url URL)",
		Short: "Write the payload of one record to standard output",
		Long: `Write the payload of one record to standard output: for an HTTP response
(or request) the entity body after the HTTP header, with a chunked
transfer coding removed but still content-encoded (gzip, br…) as the
server sent it, which is what WARC-Payload-Digest covers; for other
records the whole block. --decode also undoes the Content-Encoding;
--block writes the block as stored, HTTP header included.

--record N picks the N-th record (as numbered by "godwit warc ls");
--url picks the first response or resource record whose target URI is URL,
or else has the same SURT key (so http://www.example.com/ finds
https://example.com/). A revisit has no payload of its own: its original
is named on standard error.

Exit status 1 when no record matches or the file is damaged before it.`,
		Example: `  godwit warc cat crawl.warc.gz --record 3 > page.html
  godwit warc cat crawl.warc.gz --url https://example.com/ --decode | less`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (number > 0) == (target != "") {
				return errors.New("give exactly one of --record N (N ≥ 1) and --url URL")
			}
			if decode && block {
				return errors.New("--decode and --block exclude each other")
			}
			if err := checkFiles(args); err != nil {
				return err
			}
			rec, n, err := findRecord(args[0], number, target)
			if err != nil {
				return err
			}
			if rec.Type == warc.TypeRevisit {
				orig := ifEmpty(rec.Header.Get(warc.FieldRefersTo), rec.Header.Get(warc.FieldRefersToTargetURI)+" "+rec.Header.Get(warc.FieldRefersToDate))
				fmt.Fprintf(cmd.ErrOrStderr(), "godwit: record %d is a revisit; its payload is that of %s\n", n, strings.TrimSpace(orig))
			}
			out, err := catBytes(rec, decode, block)
			if err != nil {
				return failure{fmt.Errorf("record %d: %w", n, err)}
			}
			if _, err := cmd.OutOrStdout().Write(out); err != nil {
				return failure{err}
			}
			return nil
		},
	}
	flagCatRecord.intVar(cmd.Flags(), &number, 0)
	flagCatURL.stringVar(cmd.Flags(), &target, "")
	flagCatDecode.boolVar(cmd.Flags(), &decode, false)
	flagCatBlock.boolVar(cmd.Flags(), &block, false)
	return cmd
}

// findRecord is warc.FindRecord; an error is a failure.
func findRecord(path string, n int, target string) (*warc.Record, int, error) {
	rec, num, err := warc.FindRecord(path, n, target)
	if err != nil {
		return nil, 0, failure{err}
	}
	return rec, num, nil
}

func catBytes(rec *warc.Record, decode, block bool) ([]byte, error) {
	if block {
		return rec.Block, nil
	}
	p, err := warc.Payload(rec)
	if err != nil {
		return p, err
	}
	if !decode || !warc.IsHTTP(rec) {
		return p, nil
	}
	m, _ := warc.ParseHTTP(rec.Block)
	return warc.Decode(p, strings.Join(m.Header.Values("Content-Encoding"), ","))
}

func newWARCVerifyCmd() *cobra.Command {
	var (
		asJSON   bool
		external bool
	)
	cmd := &cobra.Command{
		Use:   "verify FILE...",
		Short: "Check WARC files record by record, and their revisits across files",
		Long: `Check every record of the files: structure (version, mandatory fields,
dates, record IDs), Content-Length against the block, WARC-Block-Digest and
WARC-Payload-Digest (sha1, sha256, sha512, md5; base32, base16 or base64),
revisit profiles and references; then, across all the files given, that
every revisit resolves to a response or resource record (never another
revisit) with the same payload digest. A torn tail is reported with the
offset where the intact records end; after damage in the middle of a
file, reading resumes at the next whole record.

Each problem is one line on standard output:

  FILE: record N at offset O <record-id>: fault|warning: message

followed by a summary line. A fault is a record that is invalid or does
not hold what its headers claim; a warning is allowed by the specification
but suspicious, or could not be checked (a truncated record's payload
digest, a revisit without a reference to its original). docs/warc-tool.md
lists every check and its severity.

Exit status 1 if any fault was found, 0 otherwise (warnings included).`,
		Example: `  godwit warc verify godwit-data/warc/*.warc.gz
  godwit warc verify --json new.warc.gz --external-revisits`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFiles(args); err != nil {
				return err
			}
			v := warc.NewVerifier(warc.VerifyOptions{ExternalTargets: external})
			for _, p := range args {
				f, err := os.Open(p)
				if err != nil {
					return failure{err}
				}
				err = v.File(f, p) // an *os.File lets it resume after damage
				f.Close()
				if err != nil {
					return failure{err}
				}
			}
			problems, sum := v.Finish()
			out := bufio.NewWriter(cmd.OutOrStdout())
			if asJSON {
				if problems == nil {
					problems = []warc.Problem{}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false) // record IDs are <urn:…>
				_ = enc.Encode(struct {
					warc.Summary
					Problems []warc.Problem `json:"problems"`
				}{sum, problems})
			} else {
				for _, p := range problems {
					fmt.Fprintln(out, p)
				}
				fmt.Fprintf(out, "checked %d records in %d files: %d faults, %d warnings\n", sum.Records, sum.Files, sum.Faults, sum.Warnings)
			}
			if err := out.Flush(); err != nil {
				return failure{err}
			}
			if sum.Faults > 0 {
				return failure{fmt.Errorf("verify: faults: %d", sum.Faults)}
			}
			return nil
		},
	}
	flagVerifyJSON.boolVar(cmd.Flags(), &asJSON, false)
	flagVerifyExternalRevisits.boolVar(cmd.Flags(), &external, false)
	return cmd
}

func newWARCCdxCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "cdx FILE... [-o OUT]",
		Short: "Write a CDXJ index of WARC files, as pywb and OutbackCDX read it",
		Long: `Index the response, revisit and resource records of WARC files in CDXJ, the
format of pywb and OutbackCDX: one line per capture,

  SURT-key timestamp {"url": …, "mime": …, "status": …, "digest": …, "length": …, "offset": …, "filename": …}

sorted by bytes (key, then timestamp). docs/warc-tool.md describes the
format byte by byte.

By default each FILE gets its own index beside it, its name with .warc.gz
(or .warc) replaced by .cdxj, written whole or not at all. With -o OUT,
the captures of all files go to one sorted index OUT; -o - writes it to
standard output. A file that cannot be read to its end (a torn tail: see
"godwit warc verify") is not indexed: exit status 1.`,
		Example: `  godwit warc cdx godwit-data/warc/*.warc.gz
  godwit warc cdx -o collection.cdxj godwit-data/warc/*.warc.gz
  godwit warc cdx -o - crawl.warc.gz | head`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFiles(args); err != nil {
				return err
			}
			if output == "-" {
				if err := warc.WriteCDXJ(cmd.OutOrStdout(), args...); err != nil {
					return failure{err}
				}
				return nil
			}
			if output != "" {
				n, err := writeIndex(output, args...)
				if err != nil {
					return failure{err}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d captures\n", output, n)
				return nil
			}
			var errs []error
			for _, p := range args {
				dst := indexName(p)
				n, err := writeIndex(dst, p)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "godwit: %v\n", err)
					errs = append(errs, err)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d captures\n", dst, n)
			}
			if len(errs) > 0 {
				return failure{fmt.Errorf("%d of %d files not indexed", len(errs), len(args))}
			}
			return nil
		},
	}
	flagCDXOutput.stringVar(cmd.Flags(), &output, "")
	return cmd
}

// indexName is where the index of a WARC file goes by default:
// x.warc.gz → x.cdxj, x.warc → x.cdxj, anything else gets .cdxj added.
func indexName(path string) string {
	for _, ext := range []string{".warc.gz", ".warc"} {
		if s, ok := strings.CutSuffix(path, ext); ok {
			return s + ".cdxj"
		}
	}
	return path + ".cdxj"
}

// writeIndex writes the CDXJ index of paths to dst through a temporary
// file renamed into place, so dst is whole or absent, and returns the
// number of lines.
func writeIndex(dst string, paths ...string) (int, error) {
	var buf bytes.Buffer
	if err := warc.WriteCDXJ(&buf, paths...); err != nil {
		return 0, err
	}
	n := bytes.Count(buf.Bytes(), []byte("\n"))
	err := atomicfile.WriteWith(dst, atomicfile.Options{Perm: 0o644, Temp: "." + filepath.Base(dst) + ".*.tmp"}, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", dst, err)
	}
	return n, nil
}
