package archive

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// RecordFailure archives a request that got no response as a metadata
// record of its own (docs/formats.md, "Failed requests"): WARC-Target-URI
// the URL, WARC-Date when the request started, WARC-IP-Address the
// server's when known, no WARC-Refers-To (there is no response to refer
// to), and the fields fetch-error, fetch-error-class, fetch-error-detail,
// fetch-attempt and fetch-time-ms. Replay and the CDXJ index pass over
// metadata records, so the URL stays "not archived" there; the record is
// for readers who want to know why. It returns once the record is on
// stable storage.
func (a *Archive) RecordFailure(_ context.Context, f crawl.Failure) error {
	fields := make([]warc.Field, 0, 5)
	add := func(name, value string) {
		if value != "" && !strings.ContainsAny(value, "\r\n\x00") {
			fields = append(fields, warc.Field{Name: name, Value: value})
		}
	}
	add("fetch-error", f.Kind)
	add("fetch-error-class", f.Class)
	add("fetch-error-detail", f.Detail)
	if f.Attempt > 0 {
		add("fetch-attempt", strconv.Itoa(f.Attempt))
	}
	if !f.Start.IsZero() && !f.End.Before(f.Start) {
		add("fetch-time-ms", strconv.FormatInt(f.End.Sub(f.Start).Milliseconds(), 10))
	}
	rec := &warc.Record{Type: warc.TypeMetadata, Block: warc.FieldsBlock(fields)}
	h := &rec.Header
	h.Set(warc.FieldDate, warc.FormatDate(f.Start.UTC()))
	h.Set(warc.FieldTargetURI, f.URL)
	if f.IP != "" {
		h.Set(warc.FieldIPAddress, f.IP)
	}
	h.Set(warc.FieldContentType, warc.ContentTypeWarcFields)
	locs, err := a.w.Write(rec)
	if err != nil {
		return fmt.Errorf("archive: failure of %s: %w", f.URL, err)
	}
	for _, l := range locs {
		a.stats.warcBytes.Add(l.Length)
	}
	a.stats.failures.Add(1)
	return a.durable(a.written.Add(1))
}
