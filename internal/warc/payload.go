package warc

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// HTTPMessage is the HTTP message held in the block of a record whose
// Content-Type is application/http (request, response and revisit records).
type HTTPMessage struct {
	// StartLine is the request or status line, without its line end.
	StartLine string
	// Status is the status code of a response, 0 for a request or a status
	// line that does not parse.
	Status int
	// Header holds the header fields, names canonicalized.
	Header http.Header
	// Body is the entity as stored after the header, still
	// transfer-encoded (chunked) if the producer kept the coding.
	Body []byte
}

// ErrNoHTTPHeader reports an application/http block whose HTTP header does
// not end (no empty line), as a record cut by WARC-Truncated can be.
var ErrNoHTTPHeader = errors.New("warc: HTTP header does not end")

// IsHTTP reports whether the record's block is an HTTP message: its
// Content-Type is application/http (any msgtype).
func IsHTTP(rec *Record) bool {
	ct := strings.ToLower(strings.TrimSpace(rec.Header.Get(FieldContentType)))
	return strings.HasPrefix(ct, "application/http")
}

// ParseHTTP splits an application/http block into start line, header and
// body. It is lenient, as producers are: LF or CRLF line ends, header lines
// without a colon are skipped. A header that never ends gives
// ErrNoHTTPHeader with the message read so far and an empty Body.
func ParseHTTP(block []byte) (*HTTPMessage, error) {
	end, bodyStart := headerEnd(block)
	head := block
	if end >= 0 {
		head = block[:end]
	}
	m := &HTTPMessage{Header: http.Header{}}
	lines := strings.Split(strings.ReplaceAll(string(head), "\r\n", "\n"), "\n")
	m.StartLine = strings.TrimRight(lines[0], "\r")
	m.Status = statusOf(m.StartLine)
	for _, line := range lines[1:] {
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) == "" {
			continue
		}
		m.Header.Add(textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name)), strings.TrimSpace(value))
	}
	if end < 0 {
		return m, ErrNoHTTPHeader
	}
	m.Body = block[bodyStart:]
	return m, nil
}

// statusOf returns the status code of a response's start line, or 0.
func statusOf(startLine string) int {
	if strings.HasPrefix(startLine, "HTTP/") {
		if _, rest, ok := strings.Cut(startLine, " "); ok {
			code, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
			if n, err := strconv.Atoi(code); err == nil && len(code) == 3 {
				return n
			}
		}
	}
	return 0
}

// statusAndType returns what ParseHTTP(block) gives as Status and
// Header.Get("Content-Type"), without building the message: the CDXJ
// line of every record written needs only these two.
func statusAndType(block []byte) (status int, contentType string) {
	end, _ := headerEnd(block)
	head := block
	if end >= 0 {
		head = block[:end]
	}
	// ParseHTTP's lines, less their CRs: the start line and the names and
	// values it reads are trimmed of them anyway.
	rest := string(head) // one copy: the header, not the body
	line, rest, more := strings.Cut(rest, "\n")
	status = statusOf(strings.TrimRight(line, "\r"))
	for more {
		line, rest, more = strings.Cut(rest, "\n")
		name, value, ok := strings.Cut(line, ":")
		// CanonicalMIMEHeaderKey makes "Content-Type" only of a name
		// equal to it but for case (no byte of it folds to a non-ASCII
		// one).
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Type") {
			return status, strings.TrimSpace(value)
		}
	}
	return status, ""
}

// headerEnd returns where the HTTP header ends (before the empty line) and
// where the body starts, or -1, -1.
func headerEnd(b []byte) (end, body int) {
	crlf := bytes.Index(b, []byte("\r\n\r\n"))
	lf := bytes.Index(b, []byte("\n\n"))
	switch {
	case crlf >= 0 && (lf < 0 || crlf < lf):
		return crlf, crlf + 4
	case lf >= 0:
		return lf, lf + 2
	}
	return -1, -1
}

// Chunked reports whether the message's body carries the chunked transfer
// coding.
func (m *HTTPMessage) Chunked() bool {
	for _, v := range m.Header.Values("Transfer-Encoding") {
		for _, c := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(c), "chunked") {
				return true
			}
		}
	}
	return false
}

// Entity returns the body with a chunked transfer coding removed. If the
// chunked coding is corrupt or cut short it returns what decoded before
// the fault and the error.
func (m *HTTPMessage) Entity() ([]byte, error) {
	if !m.Chunked() {
		return m.Body, nil
	}
	out, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(m.Body)))
	if err != nil {
		return out, fmt.Errorf("warc: chunked body: %w", err)
	}
	return out, nil
}

// Payload returns the payload of rec as WARC 1.1 defines it: for an
// application/http block, the entity body after the HTTP header, de-chunked
// (still content-encoded); for any other block, the block itself. For a
// revisit the block holds at most the HTTP header, so the payload is
// usually empty: the original's is in the record it refers to.
func Payload(rec *Record) ([]byte, error) {
	if !IsHTTP(rec) {
		return rec.Block, nil
	}
	m, err := ParseHTTP(rec.Block)
	if err != nil {
		return nil, err
	}
	return m.Entity()
}

// Decode undoes the content codings named by a Content-Encoding value
// (gzip, x-gzip, deflate, br, zstd, identity), last applied first.
func Decode(body []byte, contentEncoding string) ([]byte, error) {
	codings := strings.Split(contentEncoding, ",")
	for i := len(codings) - 1; i >= 0; i-- {
		c := strings.ToLower(strings.TrimSpace(codings[i]))
		var (
			r   io.Reader
			err error
		)
		switch c {
		case "", "identity":
			continue
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(bytes.NewReader(body))
		case "deflate":
			// RFC 9110 deflate is zlib; some servers send raw deflate.
			if r, err = zlib.NewReader(bytes.NewReader(body)); err != nil {
				r, err = flate.NewReader(bytes.NewReader(body)), nil
			}
		case "br":
			r = brotli.NewReader(bytes.NewReader(body))
		case "zstd":
			var d *zstd.Decoder
			if d, err = zstd.NewReader(bytes.NewReader(body)); err == nil {
				defer d.Close()
				r = d
			}
		default:
			return nil, fmt.Errorf("warc: unsupported content coding %q", c)
		}
		if err != nil {
			return nil, fmt.Errorf("warc: %s body: %w", c, err)
		}
		if body, err = io.ReadAll(r); err != nil {
			return body, fmt.Errorf("warc: %s body: %w", c, err)
		}
	}
	return body, nil
}
