package warc

import (
	"bytes"
	"cmp"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// Severity ranks a Problem.
type Severity uint8

const (
	// Fault means the file is not valid WARC or does not hold what its
	// headers claim: a replay or a digest check would go wrong.
	Fault Severity = iota + 1
	// Warning means something the specification allows or only recommends
	// against, or that cannot be checked (a digest of a truncated record,
	// a revisit without a reference to its original).
	Warning
)

func (s Severity) String() string {
	switch s {
	case Fault:
		return "fault"
	case Warning:
		return "warning"
	}
	return fmt.Sprintf("severity(%d)", uint8(s))
}

// MarshalText makes a Severity a JSON string.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Problem is one finding of a Verifier.
type Problem struct {
	// File is the name the file was given to the Verifier under.
	File string `json:"file"`
	// Record is the record's number in its file, counting from 1 (the
	// warcinfo record, usually). For a damaged tail it is the number the
	// next record would have had.
	Record int `json:"record"`
	// Offset is where the record (its gzip member) starts in the file; for
	// a damaged tail, where the intact records end.
	Offset int64 `json:"offset"`
	// RecordID is the record's WARC-Record-ID, if it has one.
	RecordID string   `json:"record_id,omitempty"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`

	file int // index of File among the files verified, for sorting
}

// String formats p as one line:
// "FILE: record N at offset O <ID>: fault: message".
func (p Problem) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: record %d at offset %d", p.File, p.Record, p.Offset)
	if p.RecordID != "" {
		b.WriteString(" ")
		b.WriteString(p.RecordID)
	}
	fmt.Fprintf(&b, ": %s: %s", p.Severity, p.Message)
	return b.String()
}

// Summary counts what a Verifier saw.
type Summary struct {
	Files    int `json:"files"`
	Records  int `json:"records"`
	Faults   int `json:"faults"`
	Warnings int `json:"warnings"`
}

// VerifyOptions configures a Verifier. The zero value is the strict default.
type VerifyOptions struct {
	// ExternalTargets reports a revisit whose original record is not among
	// the files verified as a warning rather than a fault, for a crawl
	// deduplicated against an earlier collection.
	ExternalTargets bool
}

// Verifier checks WARC files record by record and, across all the files
// it is given, that every revisit record resolves to its original. Give it
// each file with File, then call Finish once. docs/warc-tool.md lists the
// checks. A Verifier keeps a small entry per record (ID, type, target URI,
// date, payload digest) until Finish, and holds one record in memory at a
// time; it is not safe for concurrent use.
type Verifier struct {
	opts     VerifyOptions
	names    []string // the files given, in order
	problems []Problem
	sum      Summary
	byID     map[string]*seen
	byURI    map[uriDate][]*seen
	revisits []*revisit
}

// seen is what the Verifier remembers of a record for revisit resolution.
type seen struct {
	file, num int
	typ, uri  string
	date      time.Time
	// payload is the record's WARC-Payload-Digest decoded (zero if absent
	// or undecodable); sha1 is the SHA-1 of its actual payload, for
	// records whose payload was computed.
	payload digestValue
	sha1    []byte
}

type uriDate struct {
	uri  string
	date int64
}

// NewVerifier returns a Verifier with opts.
func NewVerifier(opts VerifyOptions) *Verifier {
	return &Verifier{opts: opts, byID: map[string]*seen{}, byURI: map[uriDate][]*seen{}}
}

// Verify checks the one file r, named name in problems, as a set on its
// own: a revisit must find its original in the same file.
func Verify(r io.Reader, name string, opts VerifyOptions) ([]Problem, Summary, error) {
	v := NewVerifier(opts)
	if err := v.File(r, name); err != nil {
		return nil, Summary{}, err
	}
	p, s := v.Finish()
	return p, s, nil
}

// File reads and checks every record of r, a WARC file (gzip or not)
// named name. Problems in the file, its framing included (a torn tail, a
// wrong Content-Length, an ARC file), are recorded, not returned: the
// error is only for a reader that fails (an I/O error).
//
// When r can be read at any offset and knows its size (an *os.File, a
// *bytes.Reader, an *io.SectionReader), damage in the middle of a file
// does not end the check: reading resumes at the next offset where a
// whole record starts (a gzip member header, or a "WARC/1." line), and
// the problem says how many bytes were skipped. The skipped bytes count
// as one record in the numbering (they usually are one damaged record).
// Otherwise reading stops at the first framing problem.
func (v *Verifier) File(r io.Reader, name string) error {
	fileIdx := len(v.names)
	v.names = append(v.names, name)
	v.sum.Files++
	ra, size, seekable := readerAt(r)
	var base int64 // offset of src in r
	src := r
	n := 0
	for {
		rd, err := NewReader(src)
		if err != nil {
			return err
		}
		var re *ReadError
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if !errors.As(err, &re) {
					return fmt.Errorf("warc: verify %s: %w", name, err)
				}
				break
			}
			n++
			v.sum.Records++
			v.record(rec, Problem{File: name, file: fileIdx, Record: n, Offset: base + rd.Offset(),
				RecordID: rec.Header.Get(FieldRecordID)})
		}
		if re == nil {
			break
		}
		at := base + re.Offset
		p := Problem{File: name, file: fileIdx, Record: n + 1, Offset: at, Severity: Fault}
		next, found := int64(0), false
		if seekable {
			if next, found, err = resync(ra, at+1, size); err != nil {
				return fmt.Errorf("warc: verify %s: %w", name, err)
			}
		}
		switch {
		case found && errors.Is(re, ErrTornTail):
			p.Message = fmt.Sprintf("damaged record: %v, but not a torn tail: a whole record follows; %d bytes skipped, reading resumed at offset %d", re.Err, next-at, next)
		case found:
			p.Message = fmt.Sprintf("malformed: %v; %d bytes skipped, reading resumed at offset %d", re.Err, next-at, next)
		case errors.Is(re, ErrTornTail):
			p.Message = fmt.Sprintf("torn tail: %v; the records before offset %d are whole", re.Err, at)
		case seekable:
			p.Message = fmt.Sprintf("malformed: %v; no whole WARC record follows it", re.Err)
		default:
			p.Message = fmt.Sprintf("malformed: %v; the rest of the file was not checked", re.Err)
		}
		v.add(p)
		if !found {
			return nil
		}
		n++ // the skipped bytes count as one record, usually what they are
		base, src = next, io.NewSectionReader(ra, next, size-next)
	}
	if n == 0 {
		v.add(Problem{File: name, file: fileIdx, Severity: Fault, Message: "no WARC records: the file is empty"})
	}
	return nil
}

// readerAt returns r as an io.ReaderAt with its size, if it is one.
func readerAt(r io.Reader) (io.ReaderAt, int64, bool) {
	ra, ok := r.(io.ReaderAt)
	if !ok {
		return nil, 0, false
	}
	switch s := r.(type) {
	case interface{ Size() int64 }:
		return ra, s.Size(), true
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() {
			return ra, fi.Size(), true
		}
	}
	return nil, 0, false
}

// resync finds the first offset at or after from where a whole record
// starts: a gzip member header from which a record decodes (see
// recordAfter), or a "WARC/1." line from which one parses.
func resync(ra io.ReaderAt, from, size int64) (int64, bool, error) {
	if from >= size {
		return 0, false, nil
	}
	gzAt, gzFound, err := recordAfter(ra, from, size)
	if err != nil {
		return 0, false, err
	}
	plainAt, plainFound, err := plainRecordAfter(ra, from, size)
	if err != nil {
		return 0, false, err
	}
	switch {
	case gzFound && (!plainFound || gzAt < plainAt):
		return gzAt, true, nil
	case plainFound:
		return plainAt, true, nil
	}
	return 0, false, nil
}

// plainRecordAfter is recordAfter for uncompressed files: it looks for a
// "WARC/1." version line at the start of a line.
func plainRecordAfter(ra io.ReaderAt, from, size int64) (int64, bool, error) {
	const chunk = 1 << 20
	magic := []byte("WARC/1.")
	buf := make([]byte, 1+chunk+len(magic))
	for off := from; off < size; off += chunk {
		// Read the byte before the chunk, to see the line end before a
		// version line, and len(magic) bytes past it.
		start := max(off-1, 0)
		n, err := ra.ReadAt(buf[:min(int64(len(buf)), size-start)], start)
		if err != nil && err != io.EOF {
			return 0, false, fmt.Errorf("read: %w", err)
		}
		b := buf[:n]
		for i := int(off - start); ; {
			j := bytes.Index(b[i:], magic)
			if j < 0 || start+int64(i+j) >= off+chunk {
				break
			}
			at := start + int64(i+j)
			if at == 0 || b[i+j-1] == '\n' {
				r, err := NewReader(io.NewSectionReader(ra, at, size-at))
				if err == nil {
					if _, err := r.Next(); err == nil {
						return at, true, nil
					}
				}
			}
			i += j + 1
		}
	}
	return 0, false, nil
}

// Finish resolves the revisit records against everything seen and returns
// all problems, ordered by file (in the order given), then record.
func (v *Verifier) Finish() ([]Problem, Summary) {
	for _, rv := range v.revisits {
		v.resolve(rv)
	}
	v.revisits = nil
	slices.SortStableFunc(v.problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.Record, b.Record))
	})
	return v.problems, v.sum
}

func (v *Verifier) add(p Problem) {
	v.problems = append(v.problems, p)
	switch p.Severity {
	case Fault:
		v.sum.Faults++
	case Warning:
		v.sum.Warnings++
	}
}

// report adds problems about one record.
type report struct {
	v  *Verifier
	at Problem // File, Record, Offset, RecordID
}

func (r report) add(sev Severity, format string, args ...any) {
	p := r.at
	p.Severity, p.Message = sev, fmt.Sprintf(format, args...)
	r.v.add(p)
}

func (r report) fault(format string, args ...any) { r.add(Fault, format, args...) }
func (r report) warn(format string, args ...any)  { r.add(Warning, format, args...) }

// record checks one record; at carries its position.
func (v *Verifier) record(rec *Record, at Problem) {
	r := report{v, at}
	date := checkFields(rec, r)
	s := &seen{file: at.file, num: at.Record, typ: rec.Type, uri: TargetURI(rec), date: date}
	if d := rec.Header.Get(FieldBlockDigest); d != "" {
		if msg, sev := checkDigest("block", d, rec.Block); msg != "" {
			r.add(sev, "%s", msg)
		}
	}
	if rec.Type == TypeRevisit {
		v.checkRevisit(rec, r, s)
	} else {
		checkPayload(rec, r, s)
	}

	// Remember the record for revisit resolution.
	if id := rec.Header.Get(FieldRecordID); id != "" {
		if prev, ok := v.byID[id]; ok {
			r.warn("%s %s is not unique: record %d of %s has it too", FieldRecordID, id, prev.num, v.names[prev.file])
		} else {
			v.byID[id] = s
		}
	}
	if s.uri != "" && !date.IsZero() && isAny(rec.Type, TypeResponse, TypeResource, TypeRevisit) {
		k := uriDate{s.uri, date.UnixNano()}
		v.byURI[k] = append(v.byURI[k], s)
	}
}

// checkFields checks the record's structure (WARC 1.1 sections 4 to 6)
// and returns its WARC-Date, zero if absent or invalid.
func checkFields(rec *Record, r report) time.Time {
	h := &rec.Header
	if rec.Version != "WARC/1.0" && rec.Version != "WARC/1.1" {
		r.fault("version %q: want WARC/1.0 or WARC/1.1", rec.Version)
	}
	for _, name := range []string{FieldRecordID, FieldDate, FieldType, FieldContentLength} {
		if !h.Has(name) {
			r.fault("missing mandatory field %s", name)
		}
	}
	for _, name := range singular {
		if vs := h.Values(name); len(vs) > 1 {
			r.fault("field %s repeated %d times", name, len(vs))
		}
	}
	for _, name := range []string{FieldRecordID, FieldConcurrentTo, FieldRefersTo, FieldWarcinfoID} {
		for _, id := range h.Values(name) {
			if !isRecordID(id) {
				r.fault("%s %q is not a <URI>", name, id)
			}
		}
	}
	var date time.Time
	if d := h.Get(FieldDate); d != "" {
		var err error
		if date, err = ParseDate(d); err != nil {
			r.fault("%s %q is not a W3C-ISO8601 UTC date", FieldDate, d)
		}
	}
	switch rec.Type {
	case TypeWarcinfo, TypeResponse, TypeResource, TypeRequest, TypeMetadata, TypeRevisit, TypeConversion, TypeContinuation, "":
	default:
		r.warn("unknown record type %q", rec.Type)
	}
	switch uri := h.Get(FieldTargetURI); {
	case uri == "" && isAny(rec.Type, TypeResponse, TypeResource, TypeRequest, TypeRevisit, TypeConversion, TypeContinuation):
		r.fault("%s record without %s", rec.Type, FieldTargetURI)
	case uri != "" && rec.Type == TypeWarcinfo:
		r.fault("warcinfo record with %s", FieldTargetURI)
	case strings.HasPrefix(uri, "<") && strings.HasSuffix(uri, ">"):
		r.warn("%s %s is enclosed in <>: WARC 1.1 wants the bare URI (readers strip them)", FieldTargetURI, uri)
	case strings.ContainsAny(uri, " \t"):
		r.warn("%s %q contains white space: not an RFC 3986 URI", FieldTargetURI, uri)
	}
	return date
}

// checkPayload checks the WARC-Payload-Digest of a record other than a
// revisit and, for a response or resource, remembers its payload's SHA-1
// in s for the revisits that may name it.
func checkPayload(rec *Record, r report, s *seen) {
	pd := rec.Header.Get(FieldPayloadDigest)
	original := rec.Type == TypeResponse || rec.Type == TypeResource
	if pd == "" && !original {
		return
	}
	payload, raw, err := payloads(rec)
	if original && err == nil {
		sum := sha1.Sum(payload)
		s.sha1 = sum[:]
	}
	if pd == "" {
		return
	}
	s.payload, _ = decodeDigest(pd)
	msg, sev := checkDigest("payload", pd, payload)
	switch {
	case msg == "":
		return
	case raw != nil:
		if m, _ := checkDigest("payload", pd, raw); m == "" {
			msg, sev = "payload digest covers the chunked body: the transfer coding was not removed before digesting", Warning
		}
	}
	if err != nil {
		msg += fmt.Sprintf(" (%v)", err)
	}
	if sev == Fault && rec.Header.Has(FieldTruncated) {
		msg, sev = msg+fmt.Sprintf("; expected, as the record is truncated (%s: %s)", FieldTruncated, rec.Header.Get(FieldTruncated)), Warning
	}
	r.add(sev, "%s", msg)
}

// payloads returns the payload of rec and, when it came de-chunked, the
// body as stored, for producers that digest the chunked form.
func payloads(rec *Record) (payload, raw []byte, err error) {
	if !IsHTTP(rec) {
		return rec.Block, nil, nil
	}
	m, err := ParseHTTP(rec.Block)
	if err != nil {
		return nil, nil, err
	}
	payload, err = m.Entity()
	if m.Chunked() {
		raw = m.Body
	}
	return payload, raw, err
}

// TargetURI returns the record's WARC-Target-URI without the angle
// brackets some WARC 1.0 producers (wget) put around it.
func TargetURI(rec *Record) string {
	return stripAngle(rec.Header.Get(FieldTargetURI))
}

func stripAngle(s string) string {
	if len(s) >= 2 && s[0] == '<' && s[len(s)-1] == '>' {
		return s[1 : len(s)-1]
	}
	return s
}
