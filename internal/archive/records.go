package archive

import (
	"strconv"
	"strings"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// addProtocols adds a WARC-Protocol field for each protocol resp was
// exchanged over: the HTTP version as ALPN names it ("h2" for an
// exchange archived in HTTP/1.1 form), then the TLS version, if any.
func addProtocols(h *warc.Header, resp *fetch.Response) {
	for _, p := range []string{resp.Protocol, resp.TLSVersion} {
		if p != "" {
			h.Add(warc.FieldProtocol, p)
		}
	}
}

// httpResponseRecord starts a record of type typ about resp: the fields
// every response and revisit record carries. The caller sets the block.
func httpResponseRecord(typ string, resp *fetch.Response, id string) *warc.Record {
	rec := &warc.Record{Type: typ}
	h := &rec.Header
	// Room for the most fields a response or revisit gets here and in
	// Record (the Writer makes its own header from them).
	h.Grow(11)
	h.Set(warc.FieldRecordID, id)
	h.Set(warc.FieldTargetURI, resp.URL)
	if resp.IP != "" {
		h.Set(warc.FieldIPAddress, resp.IP)
	}
	h.Set(warc.FieldContentType, "application/http;msgtype=response")
	return rec
}

// notModifiedRecord is a server-not-modified revisit: the 304 answer's
// HTTP header, referring to the capture whose content it confirms.
func notModifiedRecord(resp *fetch.Response, id string, prior crawl.Capture) *warc.Record {
	rec := httpResponseRecord(warc.TypeRevisit, resp, id)
	rec.Block, rec.More = resp.RawHeader, resp.RawBody
	h := &rec.Header
	h.Set(warc.FieldProfile, warc.ProfileServerNotModified)
	h.Set(warc.FieldRefersTo, prior.RecordID)
	h.Set(warc.FieldRefersToTargetURI, resp.URL)
	if !prior.Date.IsZero() {
		h.Set(warc.FieldRefersToDate, warc.FormatDate(prior.Date))
	}
	return rec
}

// responseRecord is the response as received; with omit, its HTTP header
// only.
func responseRecord(resp *fetch.Response, id, payloadDigest string, omit bool) *warc.Record {
	rec := httpResponseRecord(warc.TypeResponse, resp, id)
	h := &rec.Header
	// The block is the message as received: exact header and body bytes,
	// transfer coding (chunked) included. The payload digest is over the
	// entity (de-chunked, still content-encoded), as WARC 1.1 defines the
	// payload.
	body := resp.RawBody
	if body == nil {
		body = resp.Body
	}
	if omit {
		body = nil
		h.Set(warc.FieldTruncated, "unspecified")
	} else {
		h.Set(warc.FieldPayloadDigest, payloadDigest)
		if resp.Truncated != "" {
			h.Set(warc.FieldTruncated, resp.Truncated)
		}
	}
	rec.Block, rec.More = resp.RawHeader, body // no copy of a 10 MiB body
	return rec
}

// revisitRecord is an identical-payload-digest revisit of orig: the
// response's HTTP header, and a reference to the original response
// record (never to another revisit: only responses enter the dup table).
func revisitRecord(resp *fetch.Response, id, payloadDigest string, orig original) *warc.Record {
	rec := httpResponseRecord(warc.TypeRevisit, resp, id)
	rec.Block = resp.RawHeader
	h := &rec.Header
	h.Set(warc.FieldProfile, warc.ProfileIdenticalPayloadDigest)
	h.Set(warc.FieldRefersTo, orig.RecordID)
	h.Set(warc.FieldRefersToTargetURI, orig.URI)
	h.Set(warc.FieldRefersToDate, warc.FormatDate(orig.Date))
	h.Set(warc.FieldPayloadDigest, payloadDigest)
	h.Set(warc.FieldTruncated, "length") // the block holds the header only
	return rec
}

// maxOutlinks bounds the outlink lines of one metadata record, and
// likewise its embed lines.
const maxOutlinks = 10_000

// metadataRecord describes the page behind the response respID: its
// outlinks, text fingerprint and near-duplicate, the robots signals that
// applied and what was done, and the fetch timing. Nil when there is
// nothing to say beyond timing (robots.txt, non-HTML files).
func metadataRecord(resp *fetch.Response, respID string, d crawl.Decision, omitted bool, near original, dist int, isNear bool) *warc.Record {
	if len(d.Signals) == 0 && len(d.Outlinks) == 0 && len(d.Embeds) == 0 && !d.HasSimHash && d.Title == "" && len(d.Annotations) == 0 {
		return nil
	}
	fields := make([]warc.Field, 0, 8+len(d.Signals)+len(d.Annotations)+min(len(d.Outlinks), maxOutlinks)+min(len(d.Embeds), maxOutlinks))
	add := func(name, value string) {
		if !strings.ContainsAny(value, "\r\n\x00") {
			fields = append(fields, warc.Field{Name: name, Value: value})
		}
	}
	if !resp.End.IsZero() && !resp.Start.IsZero() {
		add("fetch-time-ms", strconv.FormatInt(resp.End.Sub(resp.Start).Milliseconds(), 10))
	}
	if !resp.FirstByte.IsZero() && !resp.Start.IsZero() {
		add("ttfb-ms", strconv.FormatInt(resp.FirstByte.Sub(resp.Start).Milliseconds(), 10))
	}
	if d.Title != "" {
		add("title", d.Title)
	}
	if d.HasSimHash {
		add("simhash", simhashHex(d.SimHash))
	}
	if isNear {
		add("near-duplicate-of", near.URI)
		add("near-duplicate-record", near.RecordID)
		add("near-duplicate-date", warc.FormatDate(near.Date))
		add("near-duplicate-distance", strconv.Itoa(dist))
	}
	for _, s := range d.Signals {
		add("robots", s)
	}
	switch {
	case len(d.Signals) > 0 && d.OmitBody:
		add("robots-action", "payload omitted")
	case len(d.Signals) > 0:
		add("robots-action", "payload archived")
	}
	if isNear {
		if omitted && !d.OmitBody {
			add("near-duplicate-action", "payload omitted")
		} else {
			add("near-duplicate-action", "payload archived")
		}
	}
	for _, a := range d.Annotations {
		if a.JSON { // a number, boolean, null, array or object, as compact JSON
			add("annotation-json", a.Key+"="+a.Value)
		} else {
			add("annotation", a.Key+"="+a.Value)
		}
	}
	for i, l := range d.Outlinks {
		if i == maxOutlinks {
			break
		}
		add("outlink", l)
	}
	for i, l := range d.Embeds {
		if i == maxOutlinks {
			break
		}
		add("embed", l)
	}
	rec := &warc.Record{Type: warc.TypeMetadata, Block: warc.FieldsBlock(fields)}
	rec.Header.Grow(3)
	rec.Header.Set(warc.FieldTargetURI, resp.URL)
	rec.Header.Set(warc.FieldRefersTo, respID)
	rec.Header.Set(warc.FieldContentType, warc.ContentTypeWarcFields)
	return rec
}

// simhashHex is fmt.Sprintf("%016x", v) without fmt's cost.
func simhashHex(v uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return string(b[:])
}
