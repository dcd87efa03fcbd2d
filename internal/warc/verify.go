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

// revisit is a revisit record waiting for resolution in Finish.
type revisit struct {
	at        Problem // File, Record, Offset, RecordID
	self      *seen
	identical bool
	refersTo  string
	refURI    string
	refDate   time.Time
	hasDate   bool
	payload   digestValue
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
// the problem says how many bytes were skipped. Record numbers after such
// a gap count the records read. Otherwise reading stops at the first
// framing problem.
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
		default:
			p.Message = fmt.Sprintf("malformed: %v; no whole record follows, the rest of the file was not checked", re.Err)
		}
		v.add(p)
		if !found {
			return nil
		}
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

// record checks one record; at carries its position.
func (v *Verifier) record(rec *Record, at Problem) {
	fault := func(format string, args ...any) {
		p := at
		p.Severity, p.Message = Fault, fmt.Sprintf(format, args...)
		v.add(p)
	}
	warn := func(format string, args ...any) {
		p := at
		p.Severity, p.Message = Warning, fmt.Sprintf(format, args...)
		v.add(p)
	}
	h := &rec.Header

	// Structure (WARC 1.1 sections 4 and 5).
	if rec.Version != "WARC/1.0" && rec.Version != "WARC/1.1" {
		fault("version %q: want WARC/1.0 or WARC/1.1", rec.Version)
	}
	for _, name := range []string{FieldRecordID, FieldDate, FieldType, FieldContentLength} {
		if !h.Has(name) {
			fault("missing mandatory field %s", name)
		}
	}
	for _, name := range singular {
		if vs := h.Values(name); len(vs) > 1 {
			fault("field %s repeated %d times", name, len(vs))
		}
	}
	for _, name := range []string{FieldRecordID, FieldConcurrentTo, FieldRefersTo, FieldWarcinfoID} {
		for _, id := range h.Values(name) {
			if !isRecordID(id) {
				fault("%s %q is not a <URI>", name, id)
			}
		}
	}
	date, dateErr := time.Time{}, error(nil)
	if d := h.Get(FieldDate); d != "" {
		if date, dateErr = ParseDate(d); dateErr != nil {
			fault("%s %q is not a W3C-ISO8601 UTC date", FieldDate, d)
		}
	}
	switch rec.Type {
	case TypeWarcinfo, TypeResponse, TypeResource, TypeRequest, TypeMetadata, TypeRevisit, TypeConversion, TypeContinuation:
	case "":
	default:
		warn("unknown record type %q", rec.Type)
	}
	uri := h.Get(FieldTargetURI)
	switch {
	case uri == "" && isAny(rec.Type, TypeResponse, TypeResource, TypeRequest, TypeRevisit, TypeConversion, TypeContinuation):
		fault("%s record without %s", rec.Type, FieldTargetURI)
	case uri != "" && rec.Type == TypeWarcinfo:
		fault("warcinfo record with %s", FieldTargetURI)
	case strings.HasPrefix(uri, "<") && strings.HasSuffix(uri, ">"):
		warn("%s %s is enclosed in <>: WARC 1.1 wants the bare URI (readers strip them)", FieldTargetURI, uri)
	case strings.ContainsAny(uri, " \t"):
		warn("%s %q contains white space: not an RFC 3986 URI", FieldTargetURI, uri)
	}
	uri = TargetURI(rec)

	// Block digest.
	if d := h.Get(FieldBlockDigest); d != "" {
		if msg, sev := checkDigest("block", d, rec.Block); msg != "" {
			if sev == Fault {
				fault("%s", msg)
			} else {
				warn("%s", msg)
			}
		}
	}

	// Payload and payload digest.
	s := &seen{file: at.file, num: at.Record, typ: rec.Type, uri: uri, date: date}
	pd := h.Get(FieldPayloadDigest)
	if pd != "" {
		s.payload, _ = decodeDigest(pd)
	}
	if rec.Type == TypeRevisit {
		v.checkRevisit(rec, at, s, fault, warn)
	} else if pd != "" || rec.Type == TypeResponse || rec.Type == TypeResource {
		payload, raw, perr := payloads(rec)
		if rec.Type == TypeResponse || rec.Type == TypeResource {
			sum := sha1.Sum(payload)
			s.sha1 = sum[:]
		}
		if pd != "" {
			msg, sev := checkDigest("payload", pd, payload)
			if msg != "" && raw != nil {
				if m, _ := checkDigest("payload", pd, raw); m == "" {
					msg, sev = "payload digest covers the chunked body: the transfer coding was not removed before digesting", Warning
				}
			}
			if msg != "" && perr != nil {
				msg += fmt.Sprintf(" (%v)", perr)
			}
			if msg != "" && sev == Fault && h.Has(FieldTruncated) {
				msg, sev = msg+fmt.Sprintf("; expected, as the record is truncated (%s: %s)", FieldTruncated, h.Get(FieldTruncated)), Warning
			}
			switch {
			case msg == "":
			case sev == Fault:
				fault("%s", msg)
			default:
				warn("%s", msg)
			}
		}
	}

	// Remember the record for revisit resolution.
	if id := h.Get(FieldRecordID); id != "" {
		if prev, ok := v.byID[id]; ok {
			warn("%s %s is not unique: record %d of %s has it too", FieldRecordID, id, prev.num, v.fileName(prev.file))
		} else {
			v.byID[id] = s
		}
	}
	if uri != "" && dateErr == nil && !date.IsZero() && isAny(rec.Type, TypeResponse, TypeResource, TypeRevisit) {
		k := uriDate{uri, date.UnixNano()}
		v.byURI[k] = append(v.byURI[k], s)
	}
}

// fileName returns the name of the file verified at index i.
func (v *Verifier) fileName(i int) string { return v.names[i] }

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

// checkRevisit checks a revisit record's own fields and queues it for
// resolution.
func (v *Verifier) checkRevisit(rec *Record, at Problem, self *seen, fault, warn func(string, ...any)) {
	h := &rec.Header
	profile := h.Get(FieldProfile)
	rv := &revisit{at: at, self: self, refersTo: h.Get(FieldRefersTo), refURI: stripAngle(h.Get(FieldRefersToTargetURI))}
	if d := h.Get(FieldRefersToDate); d != "" {
		t, err := ParseDate(d)
		if err != nil {
			fault("%s %q is not a W3C-ISO8601 UTC date", FieldRefersToDate, d)
		} else {
			rv.refDate, rv.hasDate = t, true
		}
	}
	hasRef := rv.refersTo != "" || (rv.refURI != "" && rv.hasDate)
	switch {
	case profile == "":
		fault("revisit record without %s", FieldProfile)
		return
	case strings.HasSuffix(profile, "/revisit/identical-payload-digest"),
		strings.HasSuffix(profile, "/revisit/uri-agnostic-identical-payload-digest"):
		rv.identical = true
		pd := h.Get(FieldPayloadDigest)
		if pd == "" {
			fault("identical-payload-digest revisit without %s", FieldPayloadDigest)
		} else if d, err := decodeDigest(pd); err != nil {
			fault("payload digest %q: %v", pd, err)
		} else {
			rv.payload = d
		}
		if len(rec.Block) > 0 && !h.Has(FieldTruncated) {
			warn("identical-payload-digest revisit with a %d-byte block but no %s: length", len(rec.Block), FieldTruncated)
		}
		if !hasRef {
			warn("no %s nor %s + %s: the original capture cannot be located", FieldRefersTo, FieldRefersToTargetURI, FieldRefersToDate)
		}
	case strings.HasSuffix(profile, "/revisit/server-not-modified"):
		if !hasRef && !rv.hasDate {
			warn("no %s nor %s: the original capture cannot be located", FieldRefersTo, FieldRefersToDate)
		}
		if rv.refURI == "" {
			rv.refURI = TargetURI(rec) // the profile implies the same URI
		}
	default:
		warn("unknown revisit profile %q: its target is not checked", profile)
		return
	}
	if hasRef || rv.hasDate {
		v.revisits = append(v.revisits, rv)
	}
}

// resolve checks that a revisit's original is among the records seen: a
// response or resource, not another revisit, with the same payload digest.
func (v *Verifier) resolve(rv *revisit) {
	report := func(sev Severity, format string, args ...any) {
		p := rv.at
		p.Severity, p.Message = sev, fmt.Sprintf(format, args...)
		v.add(p)
	}
	missing := Fault
	if v.opts.ExternalTargets {
		missing = Warning
	}
	var t *seen
	if rv.refersTo != "" {
		t = v.byID[rv.refersTo]
		if t == nil {
			report(missing, "revisit target %s %s is not in the files verified", FieldRefersTo, rv.refersTo)
			return
		}
	} else {
		if rv.refURI == "" || !rv.hasDate {
			return
		}
		// Prefer the original among records sharing URI and date; a
		// revisit never resolves to itself.
		for _, c := range v.byURI[uriDate{rv.refURI, rv.refDate.UnixNano()}] {
			if c == rv.self {
				continue
			}
			if t == nil || t.typ == TypeRevisit {
				t = c
			}
		}
		if t == nil {
			report(missing, "revisit target %s at %s is not in the files verified", rv.refURI, FormatDate(rv.refDate))
			return
		}
	}
	where := fmt.Sprintf("record %d of %s", t.num, v.fileName(t.file))
	if t.typ == TypeRevisit {
		report(Fault, "revisit refers to another revisit (%s): it must name the original response", where)
		return
	}
	if t.typ != TypeResponse && t.typ != TypeResource {
		report(Fault, "revisit refers to a %s record (%s): want a response or resource", t.typ, where)
		return
	}
	if rv.refersTo != "" {
		if rv.refURI != "" && rv.refURI != t.uri {
			report(Warning, "%s %s differs from the target's %s %s", FieldRefersToTargetURI, rv.refURI, FieldTargetURI, t.uri)
		}
		if rv.hasDate && !rv.refDate.Equal(t.date) {
			report(Warning, "%s %s differs from the target's %s %s", FieldRefersToDate, FormatDate(rv.refDate), FieldDate, FormatDate(t.date))
		}
	}
	if !rv.identical || rv.payload.alg == "" {
		return
	}
	var got []byte
	switch {
	case t.payload.alg == rv.payload.alg:
		got = t.payload.sum
	case rv.payload.alg == "sha1" && t.sha1 != nil:
		got = t.sha1
	default:
		report(Warning, "cannot compare the payload digest with the target's (%s): different algorithms", where)
		return
	}
	if !bytes.Equal(got, rv.payload.sum) {
		report(Fault, "payload digest %s differs from the target's %s (%s)",
			rv.payload.format(rv.payload.sum), rv.payload.format(got), where)
	}
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
