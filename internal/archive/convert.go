package archive

import (
	"context"
	"fmt"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// Convert stores a page rendered in a browser next to the response record
// of its plain fetch (capture): the serialized DOM as a conversion record
// (text/html; charset=utf-8) whose WARC-Refers-To is that response, and,
// when screenshot is not nil, the PNG as a resource record with the
// target URI "urn:screenshot:" + uri, concurrent to the conversion
// record. WARC 1.1 defines WARC-Refers-To-Target-URI and -Date for
// revisit records only; a conversion record carries WARC-Refers-To alone
// (its own WARC-Target-URI is the page's). It returns once both are on
// stable storage.
func (a *Archive) Convert(_ context.Context, capture crawl.Capture, uri string, html, screenshot []byte) error {
	date := warc.FormatDate(time.Now().UTC())
	conv := &warc.Record{Type: warc.TypeConversion, Block: html}
	convID := warc.NewRecordID()
	h := &conv.Header
	h.Set(warc.FieldRecordID, convID)
	h.Set(warc.FieldDate, date)
	h.Set(warc.FieldTargetURI, uri)
	h.Set(warc.FieldRefersTo, capture.RecordID)
	h.Set(warc.FieldContentType, "text/html; charset=utf-8")
	h.Set(warc.FieldPayloadDigest, warc.Digest(a.digest, html))
	recs := []*warc.Record{conv}
	if screenshot != nil {
		shot := &warc.Record{Type: warc.TypeResource, Block: screenshot}
		h := &shot.Header
		h.Set(warc.FieldDate, date)
		h.Set(warc.FieldTargetURI, "urn:screenshot:"+uri)
		h.Set(warc.FieldConcurrentTo, convID)
		h.Set(warc.FieldContentType, "image/png")
		h.Set(warc.FieldPayloadDigest, warc.Digest(a.digest, screenshot))
		recs = append(recs, shot)
	}
	locs, err := a.w.Write(recs...)
	if err != nil {
		return fmt.Errorf("archive: rendered %s: %w", uri, err)
	}
	for _, l := range locs {
		a.stats.warcBytes.Add(l.Length)
	}
	return a.durable(a.written.Add(1))
}
