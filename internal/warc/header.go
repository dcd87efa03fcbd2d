package warc

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Field names defined by WARC 1.1 (section 5) that godwit reads or writes.
const (
	FieldType                  = "WARC-Type"
	FieldRecordID              = "WARC-Record-ID"
	FieldDate                  = "WARC-Date"
	FieldTargetURI             = "WARC-Target-URI"
	FieldConcurrentTo          = "WARC-Concurrent-To"
	FieldIPAddress             = "WARC-IP-Address"
	FieldBlockDigest           = "WARC-Block-Digest"
	FieldPayloadDigest         = "WARC-Payload-Digest"
	FieldIdentifiedPayloadType = "WARC-Identified-Payload-Type"
	FieldTruncated             = "WARC-Truncated"
	FieldRefersTo              = "WARC-Refers-To"
	FieldRefersToTargetURI     = "WARC-Refers-To-Target-URI"
	FieldRefersToDate          = "WARC-Refers-To-Date"
	FieldProfile               = "WARC-Profile"
	FieldWarcinfoID            = "WARC-Warcinfo-ID"
	FieldFilename              = "WARC-Filename"
	// FieldProtocol names a protocol of the exchange, one field per
	// protocol, application first ("h2", "http/1.1", then "tls/1.3"):
	// the IIPC WARC-Protocol proposal (iipc/warc-specifications#42).
	FieldProtocol      = "WARC-Protocol"
	FieldContentType   = "Content-Type"
	FieldContentLength = "Content-Length"
)

// Record types defined by WARC 1.1 (section 6).
const (
	TypeWarcinfo     = "warcinfo"
	TypeResponse     = "response"
	TypeResource     = "resource"
	TypeRequest      = "request"
	TypeMetadata     = "metadata"
	TypeRevisit      = "revisit"
	TypeConversion   = "conversion"
	TypeContinuation = "continuation"
)

// Content types and revisit profiles customary in WARC files.
const (
	ContentTypeWarcFields   = "application/warc-fields"
	ContentTypeHTTPRequest  = "application/http; msgtype=request"
	ContentTypeHTTPResponse = "application/http; msgtype=response"

	ProfileIdenticalPayloadDigest = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
	ProfileServerNotModified      = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
)

// Field is one named field of a WARC record header or of an
// application/warc-fields block.
type Field struct {
	Name, Value string
}

// Header is an ordered list of named fields. Order and the case of names are
// preserved; lookups ignore case, as WARC 1.1 field names are
// case-insensitive. The zero value is an empty header ready to use.
//
// Copying a Header shares its storage; use Clone for an independent copy.
type Header struct {
	fields []Field
}

// Get returns the value of the first field named name, or "" if there is none.
func (h *Header) Get(name string) string {
	if i := h.index(name); i >= 0 {
		return h.fields[i].Value
	}
	return ""
}

// Has reports whether a field named name is present.
func (h *Header) Has(name string) bool { return h.index(name) >= 0 }

// Values returns the values of every field named name, in order
// (WARC-Concurrent-To may repeat).
func (h *Header) Values(name string) []string {
	var vs []string
	for _, f := range h.fields {
		if strings.EqualFold(f.Name, name) {
			vs = append(vs, f.Value)
		}
	}
	return vs
}

// Set replaces the first field named name and removes any others; it appends
// the field if there is none.
func (h *Header) Set(name, value string) {
	i := h.index(name)
	if i < 0 {
		h.fields = append(h.fields, Field{name, value})
		return
	}
	h.fields[i].Value = value
	out := h.fields[:i+1]
	for _, f := range h.fields[i+1:] {
		if !strings.EqualFold(f.Name, name) {
			out = append(out, f)
		}
	}
	clear(h.fields[len(out):])
	h.fields = out
}

// Add appends a field, keeping any others of the same name.
func (h *Header) Add(name, value string) {
	h.fields = append(h.fields, Field{name, value})
}

// Del removes every field named name.
func (h *Header) Del(name string) {
	out := h.fields[:0]
	for _, f := range h.fields {
		if !strings.EqualFold(f.Name, name) {
			out = append(out, f)
		}
	}
	clear(h.fields[len(out):])
	h.fields = out
}

// Fields returns a copy of the fields in order.
func (h *Header) Fields() []Field {
	return append([]Field(nil), h.fields...)
}

// Grow makes room for n more fields, so that adding them does not
// allocate again (a record's header is built field by field).
func (h *Header) Grow(n int) { h.fields = slices.Grow(h.fields, n) }

// Len returns the number of fields.
func (h *Header) Len() int { return len(h.fields) }

// Clone returns an independent copy of h.
func (h *Header) Clone() Header {
	return Header{fields: h.Fields()}
}

func (h *Header) index(name string) int {
	for i, f := range h.fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// checkField reports whether a field can be written without breaking the
// record framing: the name must be an RFC 2616 token and the value UTF-8
// without control characters other than HT (no CR or LF, so a value taken
// from the web cannot inject fields).
func checkField(f Field) error {
	if f.Name == "" {
		return fmt.Errorf("warc: empty field name")
	}
	for i := 0; i < len(f.Name); i++ {
		if !isTokenByte(f.Name[i]) {
			return fmt.Errorf("warc: field name %q: invalid byte %q", f.Name, f.Name[i])
		}
	}
	if !utf8.ValidString(f.Value) {
		return fmt.Errorf("warc: field %s: value is not valid UTF-8", f.Name)
	}
	for i := 0; i < len(f.Value); i++ {
		if c := f.Value[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return fmt.Errorf("warc: field %s: value contains control byte %#02x", f.Name, c)
		}
	}
	return nil
}

func isTokenByte(c byte) bool {
	if c <= 0x20 || c >= 0x7f {
		return false
	}
	return !strings.ContainsRune(`()<>@,;:\"/[]?={}`, rune(c))
}
