package archive

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

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
	h.Grow(6) // the fields below
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

// revisitable reports whether resp's payload may be written as, or be
// the original of, an identical-payload revisit: a complete 2xx body
// stored in full and at least RevisitMin long.
func (a *Archive) revisitable(resp *fetch.Response, d crawl.Decision) bool {
	return a.opts.RevisitMin >= 0 && int64(len(resp.Body)) >= a.opts.RevisitMin &&
		resp.Status >= 200 && resp.Status < 300 && resp.Truncated == "" && !d.OmitBody
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
