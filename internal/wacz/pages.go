package wacz

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/godwit-crawler/godwit/internal/warc"
)

// PageLine is an archived page (or robots.txt, sitemap, requisite): one
// response or revisit record, with what godwit's metadata record says of
// it. As JSON it is one line of `godwit export pages`.
type PageLine struct {
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

// Pages calls f with each page of the WARC file at path, in file order.
// A page's metadata record follows its response in the same group, so a
// page is handed on when the next one starts or the file ends. An error
// f returns stops the reading and is returned.
func Pages(path string, f func(PageLine) error) error {
	var (
		pending *PageLine
		id      string
		ferr    error
	)
	flush := func() error {
		if pending == nil {
			return nil
		}
		p := *pending
		pending = nil
		return f(p)
	}
	err := warc.EachRecord(path, func(_ int, off, length int64, rec *warc.Record) bool {
		switch rec.Type {
		case warc.TypeResponse, warc.TypeRevisit:
			if ferr = flush(); ferr != nil {
				return false
			}
			p := &PageLine{
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
			for _, fl := range fields {
				switch fl.Name {
				case "title":
					pending.Title = fl.Value
				case "simhash":
					pending.SimHash = fl.Value
				case "outlink":
					pending.Outlinks++
				case "near-duplicate-of":
					pending.NearDuplicateOf = fl.Value
				}
			}
		}
		return true
	})
	if ferr != nil {
		return ferr
	}
	// The last page goes out even when the file ends in a torn record.
	if ferr := flush(); err == nil {
		err = ferr
	}
	return err
}

// WritePages writes the pages of the WARC file at path to w, one JSON
// object a line (HTML not escaped).
func WritePages(w io.Writer, path string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return Pages(path, func(p PageLine) error { return enc.Encode(p) })
}
