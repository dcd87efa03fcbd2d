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

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// Load reads back the response record at c and parses its HTTP message.
// For an identical-payload revisit, the header is the revisit's and the
// body the original response's.
func (a *Archive) Load(ctx context.Context, c crawl.Capture) (*fetch.Response, error) {
	rec, err := a.read(ctx, c.File, c.Offset, c.Length)
	if err != nil {
		return nil, err
	}
	var bodyRec *warc.Record
	switch {
	case rec.Type == warc.TypeResponse:
		bodyRec = rec
	case rec.Type == warc.TypeRevisit && rec.Header.Get(warc.FieldProfile) == warc.ProfileIdenticalPayloadDigest && a.dedup != nil:
		o, ok, err := a.dedup.identical(rec.Header.Get(warc.FieldPayloadDigest))
		if err != nil || !ok {
			return nil, fmt.Errorf("archive: load %s@%d: the revisit's original is not known (%v)", c.File, c.Offset, err)
		}
		if bodyRec, err = a.read(ctx, o.File, o.Offset, o.Length); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("archive: load %s@%d: record type %q, want response", c.File, c.Offset, rec.Type)
	}
	hr, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rec.Block)), nil)
	if err != nil {
		return nil, fmt.Errorf("archive: load %s@%d: %w", c.File, c.Offset, err)
	}
	hr.Body.Close()
	// The record's block frames the body: everything after the header,
	// de-chunked when it came chunked, whatever a (possibly truncated)
	// Content-Length said.
	m, err := warc.ParseHTTP(bodyRec.Block)
	if err != nil {
		return nil, fmt.Errorf("archive: load %s@%d: %w", c.File, c.Offset, err)
	}
	body, err := m.Entity()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		// A truncated capture ends mid-chunk; anything else is damage.
		return nil, fmt.Errorf("archive: load %s@%d: %w", c.File, c.Offset, err)
	}
	return &fetch.Response{
		URL:       rec.Header.Get(warc.FieldTargetURI),
		Status:    hr.StatusCode,
		Proto:     hr.Proto,
		Header:    hr.Header,
		Body:      body,
		Truncated: bodyRec.Header.Get(warc.FieldTruncated),
		IP:        rec.Header.Get(warc.FieldIPAddress),
	}, nil
}

// read reads the one record at offset of file, from the Remote when the
// file is no longer here.
func (a *Archive) read(ctx context.Context, file string, offset, length int64) (*warc.Record, error) {
	var src io.Reader
	f, err := a.open(file)
	switch {
	case err == nil:
		defer f.Close()
		src = io.NewSectionReader(f, offset, length)
	case errors.Is(err, fs.ErrNotExist) && a.opts.Remote != nil:
		b, rerr := a.opts.Remote.ReadRange(ctx, file, offset, length)
		if rerr != nil {
			return nil, fmt.Errorf("archive: load %s: %w", file, rerr)
		}
		src = bytes.NewReader(b)
	default:
		return nil, fmt.Errorf("archive: load %s: %w", file, err)
	}
	r, err := warc.NewReader(src)
	if err != nil {
		return nil, fmt.Errorf("archive: load %s@%d: %w", file, offset, err)
	}
	rec, err := r.Next()
	if err != nil {
		return nil, fmt.Errorf("archive: load %s@%d: %w", file, offset, err)
	}
	return rec, nil
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

// indexFiles writes the CDXJ index beside every complete WARC file that
// has none yet (NAME.warc.gz → NAME.cdxj), each written whole or not at
// all. Files completed by an earlier run that crashed are indexed here too.
func (a *Archive) indexFiles() error {
	files, err := filepath.Glob(filepath.Join(a.dir, "*"+warc.Ext))
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range files {
		if _, err := os.Stat(warc.CDXJName(f)); err == nil {
			continue
		}
		if err := warc.WriteCDXJFile(f); errors.Is(err, fs.ErrNotExist) {
			continue // moved away meanwhile: uploaded with its index (internal/upload)
		} else if err != nil {
			errs = append(errs, fmt.Errorf("archive: index %s: %w", filepath.Base(f), err))
		}
	}
	return errors.Join(errs...)
}
