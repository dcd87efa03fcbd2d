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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/kv"
	"github.com/godwit-crawler/godwit/internal/simhash"
	"github.com/godwit-crawler/godwit/internal/warc"
)

var (
	_ crawl.Archive         = (*Archive)(nil)
	_ crawl.FailureRecorder = (*Archive)(nil)
)

// Archive writes fetches to WARC files, and decides between a full
// response record and a revisit (docs/formats.md, "Deduplication").
type Archive struct {
	w      *warc.Writer
	dir    string
	digest string
	opts   Options
	dedup  *dedup // nil without a store
	stats  counters

	// Durability: every group gets a generation number once written;
	// Record returns only after an fsync that began after its write, and
	// concurrent Records share one fsync.
	written  atomic.Uint64 // generations handed out
	syncMu   sync.Mutex
	syncedTo uint64 // every generation <= syncedTo is on stable storage
}

// NearDupPolicy says what the archive does with a page whose text is a
// near-duplicate of an earlier capture's.
type NearDupPolicy string

const (
	// NearDupRecord stores the page and notes the near-duplicate in its
	// metadata record (and the stats). The default.
	NearDupRecord NearDupPolicy = "record"
	// NearDupSkip stores only the response's HTTP header (WARC-Truncated:
	// unspecified) and a metadata record naming the near-duplicate.
	NearDupSkip NearDupPolicy = "skip"
	// NearDupOff turns near-duplicate detection off.
	NearDupOff NearDupPolicy = "off"
)

// Options are the archive's deduplication policy. The zero value, with a
// Store, is the default policy.
type Options struct {
	// Store holds the table of payloads seen (digest → first capture) and
	// the near-duplicate fingerprints: the crawl's own store. Nil turns
	// deduplication off: every payload is stored in full.
	Store *kv.DB
	// RevisitMin is the least payload size, in bytes, for which a payload
	// identical to an earlier capture's (any URL) is written as a revisit
	// record instead of being stored again. Default 1024; negative: never.
	RevisitMin int64
	// NearDup is the near-duplicate policy; default NearDupRecord.
	NearDup NearDupPolicy
	// NearDistance is the largest Hamming distance between two SimHash
	// fingerprints that makes pages near-duplicates; default 3, at most
	// simhash.MaxK.
	NearDistance int
	// NearWindow bounds the near-duplicate index's memory: a page's text
	// is compared with at least the last NearWindow/2 and at most the
	// last NearWindow texts indexed (pages not near an earlier one), some
	// 70 bytes of memory each. Default DefaultNearWindow; negative: all
	// of them, memory growing with the crawl.
	NearWindow int
	// Remote reads back records of WARC files no longer on local disk
	// (uploaded to an object store, then deleted locally); nil: none.
	Remote Remote
}

// Remote reads a byte range of a WARC file kept elsewhere, by the file's
// base name (cmd/godwit: the object store the uploader put it in).
type Remote interface {
	ReadRange(ctx context.Context, file string, offset, length int64) ([]byte, error)
}

// Default fills zero fields.
func (o *Options) Default() {
	if o.RevisitMin == 0 {
		o.RevisitMin = 1024
	}
	if o.NearDup == "" {
		o.NearDup = NearDupRecord
	}
	if o.NearDistance == 0 {
		o.NearDistance = simhash.DefaultK
	}
	if o.NearWindow == 0 {
		o.NearWindow = DefaultNearWindow
	}
}

// DefaultNearWindow is the default Options.NearWindow: some 70 MB of
// memory once a crawl has indexed that many texts.
const DefaultNearWindow = 1_000_000

// Validate reports a setting that cannot work.
func (o Options) Validate() error {
	switch o.NearDup {
	case NearDupRecord, NearDupSkip, NearDupOff:
	default:
		return fmt.Errorf("archive: near-duplicate policy %q: want record, skip or off", o.NearDup)
	}
	if o.NearDistance < 0 || o.NearDistance > simhash.MaxK {
		return fmt.Errorf("archive: near-duplicate distance %d outside 0..%d", o.NearDistance, simhash.MaxK)
	}
	return nil
}

// New returns an Archive writing WARC files as cfg says; the files are
// created on the first Record.
func New(cfg warc.WriterConfig, o Options) (*Archive, error) {
	// The index of each file is kept while writing it, so that completing
	// a file does not mean reading it back (indexFiles does that only for
	// files a crash left without one).
	cfg.Index = true
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o.Default()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	a := &Archive{dir: cfg.Dir, digest: cfg.Digest, opts: o}
	if o.Store != nil {
		var err error
		if a.dedup, err = openDedup(o.Store, o.NearDistance, o.NearWindow); err != nil {
			return nil, fmt.Errorf("archive: %w", err)
		}
	}
	w, err := warc.NewWriter(cfg)
	if err != nil {
		return nil, err
	}
	a.w = w
	return a, nil
}

// Record archives one exchange: a request record, then a response record
// or, for a payload identical to an earlier capture's, a revisit record
// referring to that capture's response, then a metadata record with the
// page's outlinks, text fingerprint, near-duplicate, robots signals,
// processors' annotations and timing. It returns the location of the
// response (or revisit) record, and its payload digest, once the records
// are on stable storage. When d.OmitBody, or when the
// near-duplicate policy skips the page, the response record holds the
// HTTP header only, marked WARC-Truncated: unspecified, without a payload
// digest.
func (a *Archive) Record(_ context.Context, _ crawl.Task, resp *fetch.Response, d crawl.Decision) (crawl.Capture, error) {
	date := resp.Start.UTC()
	payloadDigest := warc.Digest(a.digest, resp.Body)
	respID := warc.NewRecordID()

	var (
		orig     original
		revisit  bool
		near     original
		nearDist int
		isNear   bool
		omit     = d.OmitBody
	)
	if a.dedup != nil {
		var err error
		if a.revisitable(resp, d) {
			var release func()
			if orig, revisit, release, err = a.dedup.firstCapture(payloadDigest); err != nil {
				return crawl.Capture{}, fmt.Errorf("archive: %w", err)
			}
			if release != nil {
				defer release() // after remember, below, or a failure
			}
		}
		if !revisit && d.HasSimHash && a.opts.NearDup != NearDupOff {
			if near, nearDist, isNear, err = a.dedup.nearest(d.SimHash); err != nil {
				return crawl.Capture{}, fmt.Errorf("archive: %w", err)
			}
			if isNear && a.opts.NearDup == NearDupSkip {
				omit = true
			}
		}
	}

	var respRec *warc.Record
	notModified := resp.Status == http.StatusNotModified && d.NotModified != nil && d.NotModified.RecordID != ""
	switch {
	case notModified:
		respRec = notModifiedRecord(resp, respID, *d.NotModified)
	case revisit:
		respRec = revisitRecord(resp, respID, payloadDigest, orig)
	default:
		respRec = responseRecord(resp, respID, payloadDigest, omit)
	}
	respRec.Header.Set(warc.FieldDate, warc.FormatDate(date))
	addProtocols(&respRec.Header, resp)

	reqRec := &warc.Record{Type: warc.TypeRequest, Block: resp.RawRequest}
	h := &reqRec.Header
	h.Set(warc.FieldDate, warc.FormatDate(date))
	h.Set(warc.FieldTargetURI, resp.URL)
	h.Set(warc.FieldConcurrentTo, respID)
	h.Set(warc.FieldContentType, "application/http;msgtype=request")
	addProtocols(h, resp)

	recs := []*warc.Record{reqRec, respRec}
	if meta := metadataRecord(resp, respID, d, omit, near, nearDist, isNear); meta != nil {
		recs = append(recs, meta)
	}
	locs, err := a.w.Write(recs...)
	if err != nil {
		return crawl.Capture{}, fmt.Errorf("archive: record %s: %w", resp.URL, err)
	}
	if err := a.durable(a.written.Add(1)); err != nil {
		return crawl.Capture{}, err
	}
	loc := locs[1]
	for _, l := range locs {
		a.stats.warcBytes.Add(l.Length)
	}
	a.count(resp, revisit, notModified, isNear, omit && !d.OmitBody)

	// Only now, with the response on stable storage, may later captures
	// refer to it.
	if a.dedup != nil && !revisit && !omit {
		this := original{RecordID: respID, URI: resp.URL, Date: date, File: loc.File, Offset: loc.Offset, Length: loc.Length}
		if a.revisitable(resp, d) {
			if err := a.dedup.remember(payloadDigest, this); err != nil {
				return crawl.Capture{}, fmt.Errorf("archive: %w", err)
			}
		}
		// Only pages that are not near anything join the index: a cluster
		// of near-duplicates is represented by its first member, which
		// keeps lookups cheap (simhash.Index).
		if d.HasSimHash && !isNear && a.opts.NearDup != NearDupOff {
			if err := a.dedup.addText(d.SimHash, this); err != nil {
				return crawl.Capture{}, fmt.Errorf("archive: %w", err)
			}
		}
	}
	c := crawl.Capture{File: loc.File, Offset: loc.Offset, Length: loc.Length, RecordID: respID, Date: date}
	if !omit || revisit {
		c.Digest = payloadDigest
	}
	if notModified {
		// What the content is in is still the original response.
		c = *d.NotModified
	}
	return c, nil
}

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

// revisitable reports whether resp's payload may be written as, or be
// the original of, an identical-payload revisit: a complete 2xx body
// stored in full and at least RevisitMin long.
func (a *Archive) revisitable(resp *fetch.Response, d crawl.Decision) bool {
	return a.opts.RevisitMin >= 0 && int64(len(resp.Body)) >= a.opts.RevisitMin &&
		resp.Status >= 200 && resp.Status < 300 && resp.Truncated == "" && !d.OmitBody
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

// Stats counts what the archive wrote and what deduplication did.
type Stats struct {
	Responses       int64 // response records (full or header-only)
	Revisits        int64 // identical-payload revisits written instead of responses
	NotModified     int64 // server-not-modified revisits (304 answers to conditional requests)
	RevisitBytes    int64 // payload bytes those revisits did not store again
	NearDuplicates  int64 // pages whose text was within the distance of an earlier page's
	NearDupsOmitted int64 // of those, stored header-only (NearDupSkip)
	WARCBytes       int64 // bytes written to WARC files (compressed)
	Failures        int64 // requests without a response, recorded (RecordFailure)
}

type counters struct {
	responses, revisits, revisitBytes, near, nearOmitted, notModified, warcBytes atomic.Int64
	failures                                                                     atomic.Int64
}

func (a *Archive) count(resp *fetch.Response, revisit, notModified, near, nearOmitted bool) {
	switch {
	case notModified:
		a.stats.notModified.Add(1)
	case revisit:
		a.stats.revisits.Add(1)
		a.stats.revisitBytes.Add(int64(len(resp.Body)))
	default:
		a.stats.responses.Add(1)
	}
	if near {
		a.stats.near.Add(1)
	}
	if nearOmitted {
		a.stats.nearOmitted.Add(1)
	}
}

// Stats returns the deduplication counts of this process.
func (a *Archive) Stats() Stats {
	return Stats{
		Responses:       a.stats.responses.Load(),
		Revisits:        a.stats.revisits.Load(),
		NotModified:     a.stats.notModified.Load(),
		WARCBytes:       a.stats.warcBytes.Load(),
		RevisitBytes:    a.stats.revisitBytes.Load(),
		NearDuplicates:  a.stats.near.Load(),
		NearDupsOmitted: a.stats.nearOmitted.Load(),
		Failures:        a.stats.failures.Load(),
	}
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
		add("simhash", fmt.Sprintf("%016x", d.SimHash))
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
	rec.Header.Set(warc.FieldTargetURI, resp.URL)
	rec.Header.Set(warc.FieldRefersTo, respID)
	rec.Header.Set(warc.FieldContentType, warc.ContentTypeWarcFields)
	return rec
}

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

// Files lists the WARC files written so far (base names).
func (a *Archive) Files() []string { return a.w.Files() }

// Sync flushes the current WARC file to stable storage.
func (a *Archive) Sync() error { return a.w.Sync() }

// Close finishes the current WARC file.
func (a *Archive) Close() error {
	if err := a.w.Close(); err != nil {
		return err
	}
	return a.indexFiles()
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
