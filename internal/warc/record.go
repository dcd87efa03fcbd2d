package warc

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Version is the version line the Writer puts on every record.
const Version = "WARC/1.1"

// Record is one WARC record.
//
// On write, Type becomes the WARC-Type field and Header holds the other
// named fields; the Writer fills the fields it owns (see Writer.Write) and
// leaves Header holding exactly what was written. On read, Header holds every
// field of the record, WARC-Type and Content-Length included, in file order.
type Record struct {
	// Version is the version line as read ("WARC/1.0", "WARC/1.1"). The
	// Writer ignores it and always writes WARC/1.1.
	Version string
	// Type is the record type, e.g. TypeResponse.
	Type string
	// Header holds the named fields.
	Header Header
	// Block is the record content block, e.g. the HTTP message of a request
	// or response record, exactly as captured.
	Block []byte
	// More, when not empty, continues Block: the Writer writes Block then
	// More as one content block (one length, one digest). It spares
	// copying a large body behind its header. The Reader never sets it.
	More []byte
}

// NewRecordID returns a fresh record identifier, "<urn:uuid:…>" with a
// random (version 4) UUID from crypto/rand.
func NewRecordID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails (Go 1.24+).
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return "<urn:uuid:" + string(b[:]) + ">"
}

// dateLayout is second precision: every WARC reader accepts it, and CDX
// indexes keep 14 digits anyway.
const dateLayout = "2006-01-02T15:04:05Z"

// FormatDate formats t as a WARC-Date value: UTC, second precision,
// "2006-01-02T15:04:05Z".
func FormatDate(t time.Time) string {
	return t.UTC().Format(dateLayout)
}

// ParseDate parses a WARC-Date value: a UTC W3CDTF timestamp with optional
// fractional seconds (1 to 9 digits).
func ParseDate(s string) (time.Time, error) {
	if !strings.HasSuffix(s, "Z") {
		return time.Time{}, fmt.Errorf("warc: date %q: not UTC", s)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("warc: date %q: %w", s, err)
	}
	return t, nil
}

// managed lists the fields the Writer computes itself; callers' values for
// them are replaced.
var managed = []string{FieldType, FieldContentLength, FieldBlockDigest, FieldWarcinfoID}

// singular lists defined fields that must not repeat (WARC 1.1 section 5.1:
// only WARC-Concurrent-To may).
var singular = []string{
	FieldRecordID, FieldDate, FieldTargetURI, FieldIPAddress, FieldPayloadDigest,
	FieldIdentifiedPayloadType, FieldTruncated, FieldRefersTo, FieldRefersToTargetURI,
	FieldRefersToDate, FieldProfile, FieldFilename, FieldContentType,
}

// recordIDFields lists the fields whose values must be record IDs.
var recordIDFields = []string{FieldRecordID, FieldConcurrentTo, FieldRefersTo}

// checkRecord rejects records the Writer could not write as valid WARC.
func checkRecord(rec *Record) error {
	if rec == nil {
		return fmt.Errorf("warc: nil record")
	}
	t := rec.Type
	if t == "" {
		t = rec.Header.Get(FieldType)
	}
	if t == "" {
		return fmt.Errorf("warc: record has no type")
	}
	if err := checkField(Field{FieldType, t}); err != nil {
		return err
	}
	if ht := rec.Header.Get(FieldType); ht != "" && ht != t {
		return fmt.Errorf("warc: record type %q disagrees with header %s: %s", t, FieldType, ht)
	}
	// One pass over the fields, without allocating: this runs for every
	// record the crawler writes.
	var seen uint32 // bit i: a field named singular[i] was met
	for _, f := range rec.Header.fields {
		if err := checkField(f); err != nil {
			return err
		}
		// checkField made the name ASCII, so names that differ in
		// length cannot be equal under case folding.
		for i, name := range singular {
			if len(f.Name) == len(name) && strings.EqualFold(f.Name, name) {
				if seen&(1<<i) != 0 {
					return fmt.Errorf("warc: field %s repeated", name)
				}
				seen |= 1 << i
			}
		}
		for _, name := range recordIDFields {
			if len(f.Name) == len(name) && strings.EqualFold(f.Name, name) && !isRecordID(f.Value) {
				return fmt.Errorf("warc: field %s: %q is not a <uri>", name, f.Value)
			}
		}
	}
	// WARC 1.1 section 5.6 and 6.7.
	switch uri := rec.Header.Get(FieldTargetURI); {
	case t == TypeWarcinfo && uri != "":
		return fmt.Errorf("warc: warcinfo record with %s", FieldTargetURI)
	case uri == "" && isAny(t, TypeResponse, TypeResource, TypeRequest, TypeRevisit, TypeConversion, TypeContinuation):
		return fmt.Errorf("warc: %s record without %s", t, FieldTargetURI)
	}
	for _, name := range []string{FieldTargetURI, FieldRefersToTargetURI} {
		if strings.ContainsAny(rec.Header.Get(name), " \t") {
			return fmt.Errorf("warc: field %s: %q is not an RFC 3986 URI (escape the white space)", name, rec.Header.Get(name))
		}
	}
	if t == TypeRevisit {
		profile := rec.Header.Get(FieldProfile)
		switch {
		case profile == "":
			return fmt.Errorf("warc: revisit record without %s", FieldProfile)
		case !strings.HasSuffix(profile, "/revisit/identical-payload-digest"):
		case rec.Header.Get(FieldPayloadDigest) == "":
			return fmt.Errorf("warc: identical-payload-digest revisit without %s", FieldPayloadDigest)
		case len(rec.Block)+len(rec.More) > 0 && rec.Header.Get(FieldTruncated) == "":
			return fmt.Errorf("warc: identical-payload-digest revisit with a block needs %s: length", FieldTruncated)
		}
	}
	if d := rec.Header.Get(FieldDate); d != "" {
		if _, err := ParseDate(d); err != nil {
			return err
		}
	}
	return nil
}

func isRecordID(v string) bool {
	return len(v) > 2 && v[0] == '<' && v[len(v)-1] == '>' &&
		strings.Contains(v, ":") && !strings.ContainsAny(v, " \t")
}

// prepare gives rec its final header: WARC-Type, WARC-Record-ID and
// WARC-Date first, then the caller's fields in their order, then the fields
// the Writer computes. It is idempotent, so a group can be prepared again
// after a rotation changed infoID. dg computes the block digest.
func prepare(rec *Record, date, infoID string, dg *Digester) {
	if rec.Type == "" {
		rec.Type = rec.Header.Get(FieldType)
	}
	id := rec.Header.Get(FieldRecordID)
	if id == "" {
		id = NewRecordID()
	}
	d := rec.Header.Get(FieldDate)
	if d == "" {
		d = date
	}
	fields := make([]Field, 0, rec.Header.Len()+6)
	fields = append(fields, Field{FieldType, rec.Type}, Field{FieldRecordID, id}, Field{FieldDate, d})
	for _, f := range rec.Header.fields {
		if isAny(f.Name, FieldRecordID, FieldDate) || isAny(f.Name, managed...) {
			continue
		}
		fields = append(fields, f)
	}
	if infoID != "" && rec.Type != TypeWarcinfo {
		fields = append(fields, Field{FieldWarcinfoID, infoID})
	}
	// The block digest over the bytes as they are in memory, Block then
	// More, with dg reused from record to record (its algorithm is the
	// Writer's).
	dg.reset()
	dg.Write(rec.Block)
	dg.Write(rec.More)
	var b [80]byte
	fields = append(fields,
		Field{FieldBlockDigest, string(dg.append(b[:0]))},
		Field{FieldContentLength, strconv.Itoa(len(rec.Block) + len(rec.More))})
	rec.Header.fields = fields
}

func isAny(name string, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

// appendHeader appends the version line and header of rec, up to and
// including the blank line that ends it. rec must have been prepared. The
// block and the closing CRLF CRLF follow it on the wire.
func appendHeader(b []byte, rec *Record) []byte {
	b = append(b, Version...)
	b = append(b, "\r\n"...)
	for _, f := range rec.Header.fields {
		b = append(b, f.Name...)
		b = append(b, ": "...)
		b = append(b, f.Value...)
		b = append(b, "\r\n"...)
	}
	return append(b, "\r\n"...)
}

// trailer ends every record.
const trailer = "\r\n\r\n"

// FieldsBlock encodes fields as an application/warc-fields block, the
// content of warcinfo and metadata records.
func FieldsBlock(fields []Field) []byte {
	n := 0
	for _, f := range fields {
		n += len(f.Name) + len(f.Value) + 4
	}
	if n == 0 {
		return nil
	}
	b := make([]byte, 0, n)
	for _, f := range fields {
		b = append(b, f.Name...)
		b = append(b, ": "...)
		b = append(b, f.Value...)
		b = append(b, "\r\n"...)
	}
	return b
}
