package archive

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/warc"
)

var _ crawl.Archive = (*Archive)(nil)

// Archive writes fetches to WARC files.
type Archive struct {
	w      *warc.Writer
	dir    string
	digest string

	// Durability: every group gets a generation number once written;
	// Record returns only after an fsync that began after its write, and
	// concurrent Records share one fsync.
	written  atomic.Uint64 // generations handed out
	syncMu   sync.Mutex
	syncedTo uint64 // every generation <= syncedTo is on stable storage
}

// New returns an Archive writing WARC files as cfg says; the files are
// created on the first Record.
func New(cfg warc.WriterConfig) (*Archive, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w, err := warc.NewWriter(cfg)
	if err != nil {
		return nil, err
	}
	return &Archive{w: w, dir: cfg.Dir, digest: cfg.Digest}, nil
}

// Record writes a request and a response record for resp, and a metadata
// record of the page's robots signals when d has any, and returns the
// response record's location once the records are on stable storage.
// When d.OmitBody, the response record holds the HTTP header only, marked
// WARC-Truncated: unspecified, without a payload digest.
func (a *Archive) Record(_ context.Context, _ crawl.Task, resp *fetch.Response, d crawl.Decision) (crawl.Capture, error) {
	date := resp.Start.UTC()
	respRec := &warc.Record{Type: warc.TypeResponse}
	respID := warc.NewRecordID()
	h := &respRec.Header
	h.Set(warc.FieldRecordID, respID)
	h.Set(warc.FieldDate, warc.FormatDate(date))
	h.Set(warc.FieldTargetURI, resp.URL)
	if resp.IP != "" {
		h.Set(warc.FieldIPAddress, resp.IP)
	}
	h.Set(warc.FieldContentType, "application/http;msgtype=response")
	// The block is the message as received: exact header and body bytes,
	// transfer coding (chunked) included. The payload digest is over the
	// entity (de-chunked, still content-encoded), as WARC 1.1 defines the
	// payload.
	body := resp.RawBody
	if body == nil {
		body = resp.Body
	}
	switch {
	case d.OmitBody:
		body = nil
		h.Set(warc.FieldTruncated, "unspecified")
	default:
		h.Set(warc.FieldPayloadDigest, warc.Digest(a.digest, resp.Body))
		if resp.Truncated != "" {
			h.Set(warc.FieldTruncated, resp.Truncated)
		}
	}
	respRec.Block, respRec.More = resp.RawHeader, body // no copy of a 10 MiB body

	reqRec := &warc.Record{Type: warc.TypeRequest, Block: resp.RawRequest}
	h = &reqRec.Header
	h.Set(warc.FieldDate, warc.FormatDate(date))
	h.Set(warc.FieldTargetURI, resp.URL)
	h.Set(warc.FieldConcurrentTo, respID)
	h.Set(warc.FieldContentType, "application/http;msgtype=request")

	recs := []*warc.Record{reqRec, respRec}
	if len(d.Signals) > 0 {
		recs = append(recs, signalsRecord(resp.URL, respID, d))
	}
	locs, err := a.w.Write(recs...)
	if err != nil {
		return crawl.Capture{}, fmt.Errorf("archive: record %s: %w", resp.URL, err)
	}
	if err := a.durable(a.written.Add(1)); err != nil {
		return crawl.Capture{}, err
	}
	loc := locs[1]
	return crawl.Capture{File: loc.File, Offset: loc.Offset, Length: loc.Length}, nil
}

// durable returns once the group with generation gen is on stable
// storage, so that the crawl state never points at a record a power loss
// could take back. One fsync covers every group written before it began.
func (a *Archive) durable(gen uint64) error {
	a.syncMu.Lock()
	defer a.syncMu.Unlock()
	if gen <= a.syncedTo {
		return nil // an fsync that began after our write has finished
	}
	// Every generation handed out so far belongs to a finished write. A
	// rotated-away file was fsynced when it was completed.
	upTo := a.written.Load()
	if err := a.w.Sync(); err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	a.syncedTo = upTo
	return nil
}

// signalsRecord is a metadata record naming the page-level robots
// signals that applied to the response respID, and what was done.
func signalsRecord(target, respID string, d crawl.Decision) *warc.Record {
	fields := make([]warc.Field, 0, len(d.Signals)+1)
	for _, s := range d.Signals {
		fields = append(fields, warc.Field{Name: "robots", Value: s})
	}
	action := "payload archived"
	if d.OmitBody {
		action = "payload omitted"
	}
	fields = append(fields, warc.Field{Name: "robots-action", Value: action})
	rec := &warc.Record{Type: warc.TypeMetadata, Block: warc.FieldsBlock(fields)}
	rec.Header.Set(warc.FieldTargetURI, target)
	rec.Header.Set(warc.FieldRefersTo, respID)
	rec.Header.Set(warc.FieldContentType, warc.ContentTypeWarcFields)
	return rec
}

// Load reads back the response record at c and parses its HTTP message.
func (a *Archive) Load(_ context.Context, c crawl.Capture) (*fetch.Response, error) {
	f, err := a.open(c.File)
	if err != nil {
		return nil, fmt.Errorf("archive: load %s: %w", c.File, err)
	}
	defer f.Close()
	r, err := warc.NewReader(io.NewSectionReader(f, c.Offset, c.Length))
	if err != nil {
		return nil, fmt.Errorf("archive: load %s@%d: %w", c.File, c.Offset, err)
	}
	rec, err := r.Next()
	if err != nil {
		return nil, fmt.Errorf("archive: load %s@%d: %w", c.File, c.Offset, err)
	}
	if rec.Type != warc.TypeResponse {
		return nil, fmt.Errorf("archive: load %s@%d: record type %q, want response", c.File, c.Offset, rec.Type)
	}
	hr, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rec.Block)), nil)
	if err != nil {
		return nil, fmt.Errorf("archive: load %s@%d: %w", c.File, c.Offset, err)
	}
	body, err := entity(rec.Block, hr)
	if err != nil {
		return nil, fmt.Errorf("archive: load %s@%d: %w", c.File, c.Offset, err)
	}
	return &fetch.Response{
		URL:       rec.Header.Get(warc.FieldTargetURI),
		Status:    hr.StatusCode,
		Proto:     hr.Proto,
		Header:    hr.Header,
		Body:      body,
		Truncated: rec.Header.Get(warc.FieldTruncated),
		IP:        rec.Header.Get(warc.FieldIPAddress),
	}, nil
}

// entity returns the body of the HTTP response in block, parsed as hr:
// de-chunked when it was sent chunked, and otherwise everything after the
// header, whatever a (possibly truncated) Content-Length said: the
// record's block frames the body.
func entity(block []byte, hr *http.Response) ([]byte, error) {
	defer hr.Body.Close()
	if slices.Contains(hr.TransferEncoding, "chunked") {
		body, err := io.ReadAll(hr.Body)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, err // a truncated capture ends early; anything else is damage
		}
		return body, nil
	}
	for _, sep := range []string{"\r\n\r\n", "\n\n"} {
		if _, body, ok := bytes.Cut(block, []byte(sep)); ok {
			return body, nil
		}
	}
	return nil, errors.New("no end of header")
}

// open opens a WARC file by its final name, or as the file still being written.
func (a *Archive) open(name string) (*os.File, error) {
	if name != filepath.Base(name) {
		return nil, fmt.Errorf("archive: bad file name %q", name)
	}
	// The writer may rename the file between two attempts: try the final
	// name, the open name, and the final name again.
	f, err := os.Open(filepath.Join(a.dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.Open(filepath.Join(a.dir, name+warc.OpenSuffix))
	}
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.Open(filepath.Join(a.dir, name))
	}
	return f, err
}

// Files lists the WARC files written so far (base names).
func (a *Archive) Files() []string { return a.w.Files() }

// Sync flushes the current WARC file to stable storage.
func (a *Archive) Sync() error { return a.w.Sync() }

// Close finishes the current WARC file.
func (a *Archive) Close() error { return a.w.Close() }
