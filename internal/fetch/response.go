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
	// Proto is the response protocol, "HTTP/1.1", "HTTP/1.0" or
	// "HTTP/2.0".
	Proto string
	// Protocol is the same as ALPN and the WARC-Protocol field name it:
	// "http/1.1", "http/1.0" or "h2".
	Protocol string
	// TLSVersion is the TLS version of the connection to the server
	// ("tls/1.2", "tls/1.3"), "" for plain HTTP. Through a proxy it is
	// known only for https URLs (the tunnel's TLS is godwit's own).
	TLSVersion string
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
	// Start is taken when the connection for the request was obtained,
	// just before the request was written; FirstByte when the first byte
	// of the response arrived (of an interim 1xx response, if any), so
	// FirstByte−Start is the server's time to first byte; End after the
	// body was read or cut. When the transport retried on a fresh
	// connection, the times are the last attempt's.
	Start, FirstByte, End time.Time

	// The exchange as it went over the wire, for the WARC request and
	// response records. There are two paths:
	//
	// Exact (Reserialized false): the connection was recorded. RawRequest,
	// RawHeader and RawBody are bytes as written and as received; only a
	// Proxy-Authorization field line is removed from RawRequest.
	//
	// Re-serialized (Reserialized true): the bytes on the connection were
	// not HTTP in the clear (https through a proxy's CONNECT tunnel or a
	// socks proxy: we only see the TLS records), or did not hold what the
	// transport parsed (a recording cut by its memory bound, say), or
	// the exchange was HTTP/2 (Protocol "h2"), which has no HTTP/1.1
	// bytes: its request is written as an HTTP/1.1 request line, "host"
	// from :authority and the fields in the order and lower case
	// written, its response as an HTTP/1.1 status line and the fields
	// received, lower case (as HTTP/2 sends them), sorted by name. Then
	// RawRequest is rebuilt from the header fields net/http wrote,
	// RawHeader is re-serialized from Header, and RawBody is Body.
	//
	// Either way, http.ReadResponse over RawHeader followed by RawBody
	// yields Body (the part of it that arrived, for a truncated body).

	// RawRequest is the HTTP/1.1 request message: request line
	// (origin-form, or absolute-form for http URLs sent through an http(s)
	// proxy), header fields in the order written, empty line. No body, and
	// never Proxy-Authorization (credentials stay out of the archive). A
	// server that answers before reading the request can leave it
	// incomplete.
	RawRequest []byte
	// RawHeader is the final response's status line and header block up
	// to and including the empty line. Exact: as received, 1xx interim
	// responses (100 Continue, 103 Early Hints) that preceded it left
	// out, field order, case and line endings (a bare LF from a sloppy
	// server) kept, Transfer-Encoding included. Re-serialized: field names
	// canonicalized, fields sorted by name, lines ending in CRLF, and
	// framing as it applies to Body (no Transfer-Encoding; no
	// Content-Length when the body came chunked, since the WARC record's
	// length frames Body); Content-Encoding and a received Content-Length
	// are kept.
	RawHeader []byte
	// RawBody is the message body. Exact: as received, transfer coding
	// (chunked framing, chunk extensions, trailer section) and content
	// coding kept. Without a transfer coding it is Body itself (the same
	// backing array, not a copy). When the body was truncated it is cut
	// at the point where the received data reached len(Body), so it is a
	// prefix of what the server sent. Re-serialized: Body.
	RawBody []byte
	// Reserialized reports that RawRequest, RawHeader and RawBody are not
	// the exact bytes exchanged (see above), which the archive notes.
	Reserialized bool
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
