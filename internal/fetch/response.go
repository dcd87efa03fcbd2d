package fetch

import (
	"bytes"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Values of Response.Truncated, as WARC-Truncated spells them.
const (
	TruncatedLength = "length" // MaxBodyBytes reached
	TruncatedTime   = "time"   // Timeout reached while the body was arriving
)

// Response is one HTTP exchange, captured for the archive.
type Response struct {
	// URL is the requested URL, as given in Request.URL.
	URL string
	// Status is the HTTP status code; any code is a Response, not an error.
	Status int
	// Proto is the response protocol, "HTTP/1.1" or "HTTP/1.0".
	Proto string
	// Header is the parsed response header. net/http canonicalizes names
	// and removes Transfer-Encoding, Trailer, a Content-Length that came
	// with chunked coding, and "Connection: close" on HTTP/1.1 (RawHeader
	// restores the last where it can).
	Header http.Header
	// Body is the entity body as received: de-chunked but still
	// content-encoded (gzip, br…), at most MaxBodyBytes long. Decode undoes
	// the content coding.
	Body []byte
	// Truncated is "" for a complete body, TruncatedLength or TruncatedTime
	// for a body that was cut (and kept).
	Truncated string
	// IP is the remote address actually connected to; behind a proxy it is
	// the proxy's.
	IP string
	// Start is taken just before the request was written to the
	// connection; End after the body was read or cut.
	Start, End time.Time
	// RawRequest is the HTTP/1.1 request message as written: request line
	// (origin-form, or absolute-form for http URLs sent through an http(s)
	// proxy), header fields in the order written, CRLF, empty line. No
	// body, and no Proxy-Authorization (credentials stay out of the
	// archive). A server that answers before reading the request can leave
	// it incomplete.
	RawRequest []byte
	// RawHeader is the response status line and header block, ending in
	// CRLF CRLF, re-serialized from Header: field names canonicalized,
	// fields sorted by name, and framing as it applies to Body (no
	// Transfer-Encoding; no Content-Length when the body came chunked,
	// since the WARC record's length frames Body). Content-Encoding and a
	// received Content-Length are kept. Known limitation: the original
	// byte-for-byte header (field order, case, folding) is not preserved;
	// exact wire capture comes later.
	RawHeader []byte
}

// Location returns the absolute redirect target of a 3xx response (other
// than 304) with a Location header, resolved against URL.
func (r *Response) Location() (string, bool) {
	if r.Status < 300 || r.Status > 399 || r.Status == http.StatusNotModified {
		return "", false
	}
	loc := strings.TrimSpace(r.Header.Get("Location"))
	if loc == "" {
		return "", false
	}
	base, err := url.Parse(r.URL)
	if err != nil {
		return "", false
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return "", false
	}
	return base.ResolveReference(ref).String(), true
}

// sniffLen is how many decoded bytes http.DetectContentType looks at.
const sniffLen = 512

// ContentType returns the media type, lower-case and without parameters
// ("text/html"). Without a usable Content-Type header (missing,
// unparseable, or one of the placeholders browsers ignore) it is sniffed
// from the first 512 bytes of the decoded body with http.DetectContentType.
func (r *Response) ContentType() string {
	if mt := mediaType(r.Header.Get("Content-Type")); mt != "" {
		switch mt {
		case "unknown/unknown", "application/unknown", "*/*":
		default:
			return mt
		}
	}
	head, err := decode(r, sniffLen)
	if err != nil && len(head) == 0 && len(r.Body) > 0 {
		// Undecodable: sniffing the compressed bytes would say
		// "application/x-gzip", which describes the wrapper, not the page.
		return "application/octet-stream"
	}
	return mediaType(http.DetectContentType(head))
}

// IsHTML reports whether the content type is text/html or
// application/xhtml+xml.
func (r *Response) IsHTML() bool {
	switch r.ContentType() {
	case "text/html", "application/xhtml+xml":
		return true
	}
	return false
}

// mediaType extracts the lower-case media type from a Content-Type value,
// leniently: bad parameters are ignored; "" when there is no type/subtype.
func mediaType(v string) string {
	if v == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(v)
	if err != nil && !errors.Is(err, mime.ErrInvalidMediaParameter) {
		mt, _, _ = strings.Cut(v, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
		if strings.ContainsAny(mt, " \t,\"") {
			return ""
		}
	}
	// ParseMediaType accepts a bare token ("html"); a media type needs
	// both halves.
	if typ, sub, ok := strings.Cut(mt, "/"); !ok || typ == "" || sub == "" {
		return ""
	}
	return mt
}

// rawHeader re-serializes the status line and header of resp.
func rawHeader(resp *http.Response) []byte {
	var b bytes.Buffer
	proto := resp.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	// Status is "200 OK" as received; an empty reason phrase still needs
	// the space after the code (RFC 9112 §4).
	reason := strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)))
	b.WriteString(proto + " " + strconv.Itoa(resp.StatusCode) + " " + reason + "\r\n")
	h := resp.Header
	// net/http drops "Connection: close" from HTTP/1.1 responses after
	// noting it in resp.Close; put it back, it is part of what was said.
	// resp.Close is also set for a body delimited by the end of the
	// connection, where we cannot tell whether the header was there; then
	// it stays out.
	delimited := resp.ContentLength >= 0 || len(resp.TransferEncoding) > 0
	if resp.Close && delimited && resp.ProtoAtLeast(1, 1) && h.Get("Connection") == "" {
		h = h.Clone()
		h.Set("Connection", "close")
	}
	_ = h.Write(&b) // writes to a bytes.Buffer do not fail
	b.WriteString("\r\n")
	return b.Bytes()
}
