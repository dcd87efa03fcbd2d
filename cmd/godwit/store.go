package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/godwit-crawler/godwit/internal/archive"
	"github.com/godwit-crawler/godwit/internal/blob"
	"github.com/godwit-crawler/godwit/internal/datadir"
	"github.com/godwit-crawler/godwit/internal/upload"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// uploadsFile is the manifest of WARC files uploaded to the store, in the
// state directory (docs/formats.md).
const uploadsFile = datadir.UploadsFile

// defaultSpoolMax is how many bytes of WARC files waiting for upload pause
// the crawl.
const defaultSpoolMax = "10GiB"

// storeSettings are where WARC files go besides --data: an S3-compatible
// bucket. Credentials come from the environment only (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), never from flags or files.
type storeSettings struct {
	// URL is s3://bucket/prefix; empty: no store.
	URL string `yaml:"url"`
	// Endpoint of the server; default $AWS_ENDPOINT_URL_S3,
	// $AWS_ENDPOINT_URL, else AWS S3.
	Endpoint string `yaml:"endpoint"`
	// Region; default $AWS_REGION, $AWS_DEFAULT_REGION, else us-east-1.
	Region string `yaml:"region"`
	// PathStyle addresses the bucket as endpoint/bucket (most servers
	// other than AWS want it; the default guesses by the endpoint).
	PathStyle bool `yaml:"path_style"`
	// KeepLocal keeps uploaded WARC files in --data; by default a file is
	// deleted once its upload is verified and recorded.
	KeepLocal bool `yaml:"keep_local"`
	// SpoolMax: bytes of complete WARC files waiting for upload above
	// which the crawl pauses ("10GiB"; "0": never).
	SpoolMax string `yaml:"spool_max"`
	// Crawl names the crawl in object keys; default the base name of
	// --data.
	Crawl string `yaml:"crawl"`
	// PartSize of multipart uploads ("16MiB"; at least 5MiB).
	PartSize string `yaml:"part_size"`

	// getenv reads the environment; tests replace it. Nil: os.Getenv.
	getenv func(string) string
	// maxRetries of each request (blob.Options); tests set 1.
	maxRetries int
}

func (f *crawlFlags) registerStore(fs *pflag.FlagSet) {
	flagStore.stringVar(fs, &f.s.Store.URL, "")
	flagStoreEndpoint.stringVar(fs, &f.s.Store.Endpoint, "")
	flagStoreRegion.stringVar(fs, &f.s.Store.Region, "")
	flagStorePathStyle.boolVar(fs, &f.s.Store.PathStyle, false)
	flagStoreKeepLocal.boolVar(fs, &f.s.Store.KeepLocal, false)
	flagStoreSpoolMax.stringVar(fs, &f.s.Store.SpoolMax, defaultSpoolMax)
	flagStoreCrawl.stringVar(fs, &f.s.Store.Crawl, "")
}

func (f *crawlFlags) applyStore(fs *pflag.FlagSet, s *crawlSettings) {
	set := func(fl flagInfo, apply func()) {
		if fs.Changed(fl.name) {
			apply()
		}
	}
	set(flagStore, func() { s.Store.URL = f.s.Store.URL })
	set(flagStoreEndpoint, func() { s.Store.Endpoint = f.s.Store.Endpoint })
	set(flagStoreRegion, func() { s.Store.Region = f.s.Store.Region })
	set(flagStorePathStyle, func() { s.Store.PathStyle = f.s.Store.PathStyle })
	set(flagStoreKeepLocal, func() { s.Store.KeepLocal = f.s.Store.KeepLocal })
	set(flagStoreSpoolMax, func() { s.Store.SpoolMax = f.s.Store.SpoolMax })
	set(flagStoreCrawl, func() { s.Store.Crawl = f.s.Store.Crawl })
}

func (st storeSettings) validate() error {
	if st.URL == "" {
		return nil
	}
	if _, _, err := blob.ParseURL(st.URL); err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	if _, err := st.spoolMax(); err != nil {
		return fmt.Errorf("--store-spool-max: %w", err)
	}
	if st.PartSize != "" {
		if _, err := parseBytes(st.PartSize); err != nil {
			return fmt.Errorf("store.part_size: %w", err)
		}
	}
	if st.Crawl != "" && (!validName(st.Crawl) || st.Crawl == "." || st.Crawl == "..") {
		return fmt.Errorf("--store-crawl %q: want letters, digits, '.', '_' or '-'", st.Crawl)
	}
	o, err := st.options()
	if err != nil {
		return err
	}
	o.Default()
	if err := o.Validate(); err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	return nil
}

func (st storeSettings) spoolMax() (int64, error) {
	switch st.SpoolMax {
	case "":
		return parseBytes(defaultSpoolMax)
	case "0":
		return 0, nil
	}
	return parseBytes(st.SpoolMax)
}

// options are the bucket's options: the environment, then the settings.
func (st storeSettings) options() (blob.Options, error) {
	getenv := st.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	o := blob.OptionsFromEnv(getenv)
	if st.Endpoint != "" {
		o.Endpoint = st.Endpoint
	}
	if st.Region != "" {
		o.Region = st.Region
	}
	o.PathStyle = st.PathStyle
	o.MaxRetries = st.maxRetries
	if st.PartSize != "" {
		n, err := parseBytes(st.PartSize)
		if err != nil {
			return o, fmt.Errorf("store.part_size: %w", err)
		}
		o.PartSize = n
	}
	return o, nil
}

func validName(s string) bool {
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// crawlName is the crawl's name in object keys: --store-crawl, else the
// data directory's base name with other characters replaced by '-'.
func (st storeSettings) crawlName(data string) string {
	if st.Crawl != "" {
		return st.Crawl
	}
	abs, err := filepath.Abs(data)
	if err != nil {
		abs = data
	}
	name := []byte(filepath.Base(abs))
	for i, c := range name {
		if !validName(string(c)) {
			name[i] = '-'
		}
	}
	if s := string(name); validName(s) && s != "." && s != ".." {
		return s
	}
	return "crawl"
}

// storeRemote is the archive's reader of uploaded files; nil without a
// store.
func storeRemote(ws *upload.Spool) archive.Remote {
	if ws == nil {
		return nil
	}
	return ws
}

var _ archive.Remote = (*upload.Spool)(nil)

// openStore prepares the upload of the crawl's WARC files, or returns nil
// without --store. node is the WARC writer's node name. A bucket the
// server says does not exist is an error; a server that cannot be reached
// only costs a warning (files wait in the spool).
func openStore(ctx context.Context, s crawlSettings, data dataDir, node string, log *slog.Logger) (*upload.Spool, error) {
	if s.Store.URL == "" {
		return nil, nil
	}
	o, err := s.Store.options()
	if err != nil {
		return nil, err
	}
	bucket, err := blob.Open(s.Store.URL, o)
	if err != nil {
		return nil, fmt.Errorf("--store: %w", err)
	}
	spoolMax, _ := s.Store.spoolMax() // validated
	ws, err := upload.OpenSpool(ctx, bucket, upload.SpoolConfig{
		Dir:       data.warc(),
		Manifest:  filepath.Join(data.state(), uploadsFile),
		Prefix:    "warc/" + s.Store.crawlName(s.Data) + "/" + node + "/",
		KeepLocal: s.Store.KeepLocal,
		SpoolMax:  spoolMax,
		Logger:    log,
	})
	switch {
	case errors.Is(err, blob.ErrNoBucket):
		where := o.Endpoint
		if where == "" {
			where = "AWS S3"
		}
		return nil, fmt.Errorf("--store %s: the bucket does not exist on %s", s.Store.URL, where)
	case err != nil:
		return nil, failure{err}
	}
	return ws, nil
}

// storeResult is what the summary says about the uploads.
type storeResult struct {
	URL       string
	Stats     upload.Stats
	KeepLocal bool
}

func storeResultOf(ws *upload.Spool) *storeResult {
	return &storeResult{URL: ws.URL(), Stats: ws.Stats(), KeepLocal: ws.KeepLocal()}
}

func printStoreSummary(out io.Writer, r *storeResult) {
	if r == nil {
		return
	}
	s := r.Stats
	fmt.Fprintf(out, "  store       %d file(s) uploaded (%s) to %s, %d in all; %d pending in the spool (%s)",
		s.Uploaded, humanBytes(s.UploadedBytes), r.URL, s.Recorded, s.Pending, humanBytes(s.PendingBytes))
	if !r.KeepLocal {
		fmt.Fprint(out, "; uploaded files deleted locally")
	}
	fmt.Fprintln(out)
	if s.Conflicts > 0 {
		fmt.Fprintf(out, "  store       ERROR: %d file(s) not uploaded: the store holds another file under the same key (not replaced); they stay in the WARC directory: %s\n",
			s.Conflicts, strings.Join(s.ConflictFiles, ", "))
	}
	if s.Unconditional {
		fmt.Fprintln(out, "  store       the store does not support conditional writes: uploads looked before they wrote, which cannot see another writer in between")
	}
	if s.Pending > 0 {
		fmt.Fprintf(out, "  store       %d file(s) not uploaded yet: they stay in the WARC directory, and the next run with --store uploads them", s.Pending)
		if s.LastError != "" {
			fmt.Fprintf(out, " (last error: %s)", oneLine(s.LastError))
		}
		fmt.Fprintln(out)
	}
}

// warcNode is the node name the WARC writer puts in file names.
func warcNode(c warc.WriterConfig) string {
	c.Default()
	return c.Node
}
