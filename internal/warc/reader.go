package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// Errors a Reader reports, wrapped in a *ReadError.
var (
	// ErrTornTail means the stream ends inside a record: a truncated gzip
	// member, a short block, a missing CRLF CRLF or a zero-filled tail, as
	// a crash leaves behind. Everything before ReadError.Offset is intact.
	ErrTornTail = errors.New("warc: torn tail")
	// ErrMalformed means bytes that are not a WARC record (or not one
	// record per gzip member) where a record should be.
	ErrMalformed = errors.New("warc: malformed record")
)

// ReadError reports why a Reader stopped.
type ReadError struct {
	// Offset is where the last good record ends in the (compressed)
	// stream, i.e. where the bad bytes start.
	Offset int64
	// Kind is ErrTornTail or ErrMalformed.
	Kind error
	// Err gives the detail.
	Err error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("%v at offset %d: %v", e.Kind, e.Offset, e.Err)
}

// Unwrap returns Kind and Err, so errors.Is matches either.
func (e *ReadError) Unwrap() []error { return []error{e.Kind, e.Err} }

// maxHeader bounds the header of one record; real ones are a few KiB.
const maxHeader = 1 << 20

// Reader reads WARC records from a stream, either uncompressed or gzip with
// one member per record (detected from the first bytes). It checks framing
// only — version line, Content-Length, CRLF CRLF, one record per member —
// and leaves the meaning of fields and digests to the caller (see
// VerifyBlockDigest). It tolerates WARC/1.0, header continuation lines, LF
// line ends in headers, blank lines between records, and a gzip member that
// ends before the closing CRLF CRLF (some producers write it short; the
// member boundary is authoritative). A Reader is not safe for concurrent
// use.
type Reader struct {
	src  *countReader
	gz   *gzip.Reader  // nil for an uncompressed stream
	mem  *bufio.Reader // reads the current gzip member
	zip  bool
	off  int64 // start of the record last returned
	end  int64 // end of the record last returned
	err  error // sticky
	line []byte
}

// NewReader returns a Reader over r, which must be positioned at the start
// of a record (usually the start of the file). The caller closes r.
func NewReader(r io.Reader) (*Reader, error) {
	src := &countReader{br: bufio.NewReaderSize(r, 64<<10)}
	magic, err := src.br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("warc: read: %w", err)
	}
	// A lone 0x1f is a gzip stream cut short, not a WARC line.
	zip := len(magic) > 0 && magic[0] == 0x1f && (len(magic) == 1 || magic[1] == 0x8b)
	return &Reader{src: src, zip: zip}, nil
}

// EachRecord reads the WARC file at path and calls f with each record in
// turn, its number (from 1), its offset and its length (Offset, Length),
// until f returns false or the file ends; each record is f's to keep.
// Errors reading the file name it.
func EachRecord(path string, f func(n int, off, length int64, rec *Record) bool) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close() // read only
	rd, err := NewReader(fh)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for n := 1; ; n++ {
		rec, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if !f(n, rd.Offset(), rd.Length(), rec) {
			return nil
		}
	}
}

// FindRecord returns record number n (from 1) of the WARC file at path and
// its number or, with n 0, the first response or resource record for
// target (its exact URI first, else the first of the same SURT key). A
// read error after the record is found does not matter.
func FindRecord(path string, n int, target string) (*Record, int, error) {
	var (
		found, bySURT *Record
		num, surtNum  int
	)
	key := ""
	if target != "" {
		key = SURTKey(target)
	}
	err := EachRecord(path, func(i int, _, _ int64, rec *Record) bool {
		if n > 0 {
			if i == n {
				found, num = rec, i
				return false
			}
			return true
		}
		if rec.Type != TypeResponse && rec.Type != TypeResource {
			return true
		}
		uri := TargetURI(rec)
		if uri == target {
			found, num = rec, i
			return false
		}
		if bySURT == nil && SURTKey(uri) == key {
			bySURT, surtNum = rec, i
		}
		return true
	})
	if found == nil && bySURT != nil {
		found, num = bySURT, surtNum
	}
	if found != nil {
		return found, num, nil // a later read error does not matter
	}
	if err != nil {
		return nil, 0, err
	}
	if n > 0 {
		return nil, 0, fmt.Errorf("%s has no record %d", path, n)
	}
	return nil, 0, fmt.Errorf("%s has no response or resource record for %s", path, target)
}

// Offset returns the offset of the record last returned by Next, in the
// stream as given (for gzip, the start of its member): the value an index
// stores to seek to the record later. Offsets count from where the
// io.Reader was when NewReader was called.
func (r *Reader) Offset() int64 { return r.off }

// Length returns how many bytes of the stream the record last returned by
// Next occupies (for gzip, its member's length).
func (r *Reader) Length() int64 { return r.end - r.off }

// Next returns the next record, or io.EOF at a clean end of the stream.
// A stream that ends inside a record yields a *ReadError wrapping
// ErrTornTail; bytes that are not a record yield one wrapping ErrMalformed.
// Errors are sticky.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	var (
		rec *Record
		err error
	)
	if r.zip {
		rec, err = r.nextMember()
	} else {
		rec, err = r.nextPlain()
	}
	if err != nil {
		r.err = err
		return nil, err
	}
	return rec, nil
}

func (r *Reader) nextPlain() (*Record, error) {
	start, err := r.skipBlank(r.src)
	if err != nil {
		return nil, err // io.EOF: at most blank lines after the last record
	}
	rec, err := r.parse(r.src, false)
	if err != nil {
		return nil, err
	}
	r.off, r.end = start, r.src.n
	return rec, nil
}

func (r *Reader) nextMember() (*Record, error) {
	for {
		start := r.src.n
		b, err := r.src.Peek(1)
		if len(b) == 0 {
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, r.fail("gzip header", err, false)
		}
		if b[0] != 0x1f {
			return nil, r.badStart("no gzip member")
		}
		if r.gz == nil {
			r.gz, err = gzip.NewReader(r.src)
		} else {
			err = r.gz.Reset(r.src)
		}
		if err != nil {
			return nil, r.fail("gzip header", err, false)
		}
		r.gz.Multistream(false)
		if r.mem == nil {
			r.mem = bufio.NewReaderSize(r.gz, 32<<10)
		} else {
			r.mem.Reset(r.gz)
		}
		if _, err := r.skipBlank(r.mem); err == io.EOF {
			r.end = r.src.n
			continue // an empty member: nothing to return
		} else if err != nil {
			return nil, err
		}
		rec, err := r.parse(r.mem, true)
		if err != nil {
			return nil, err
		}
		// The member must end here, possibly after blank lines; reading to
		// its end also verifies the gzip CRC.
		for {
			c, err := r.mem.ReadByte()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, r.fail("gzip member", err, true)
			}
			if c != '\r' && c != '\n' {
				return nil, r.malformed("data after the record in its gzip member (one record per member expected; whole-file gzip is not supported)")
			}
		}
		r.off, r.end = start, r.src.n
		return rec, nil
	}
}

// skipBlank consumes blank lines before a record and returns the offset of
// the record's first byte (meaningful for uncompressed streams). It returns
// io.EOF if the stream or member ends first.
func (r *Reader) skipBlank(lr lineReader) (int64, error) {
	for {
		start := r.src.n
		b, err := lr.Peek(1)
		if len(b) == 0 {
			if err == io.EOF {
				return start, io.EOF
			}
			return start, r.fail("record start", err, lr == r.mem)
		}
		switch b[0] {
		case '\r', '\n':
			_, _ = lr.ReadByte()
		case 0:
			if lr == r.src {
				return start, r.badStart("NUL byte")
			}
			return start, r.malformed("NUL byte at the start of a gzip member")
		default:
			return start, nil
		}
	}
}

// parse reads one record from lr; inMember tells whether lr is a gzip
// member, whose clean end inside a record means a malformed file rather
// than a torn tail.
func (r *Reader) parse(lr lineReader, inMember bool) (*Record, error) {
	line, err := r.readLine(lr)
	if err != nil {
		if !strings.HasPrefix("WARC/", string(r.line)) && !strings.HasPrefix(string(r.line), "WARC/") {
			return nil, r.malformed(notWARC(string(r.line)))
		}
		return nil, r.fail("version line", err, inMember)
	}
	version := strings.TrimRight(string(line), " \t")
	if !isVersion(version) {
		return nil, r.malformed(notWARC(version))
	}
	rec := &Record{Version: version}
	size := len(line)
	for {
		line, err := r.readLine(lr)
		if err != nil {
			return nil, r.fail("header", err, inMember)
		}
		if size += len(line); size > maxHeader {
			return nil, r.malformed(fmt.Sprintf("header longer than %d bytes", maxHeader))
		}
		if len(line) == 0 {
			break
		}
		if err := addLine(&rec.Header, line); err != nil {
			return nil, r.malformed(err.Error())
		}
	}
	rec.Type = rec.Header.Get(FieldType)
	n, err := contentLength(&rec.Header)
	if err != nil {
		return nil, r.malformed(err.Error())
	}
	rec.Block, err = readBlock(lr, n)
	if err != nil {
		return nil, r.fail(fmt.Sprintf("block (Content-Length %d, got %d bytes)", n, len(rec.Block)), err, inMember)
	}
	var t [len(trailer)]byte
	m, err := readFull(lr, t[:])
	switch {
	case m == len(t) && string(t[:]) == trailer:
	case !strings.HasPrefix(trailer, string(t[:m])):
		return nil, r.malformed(fmt.Sprintf("expected CRLF CRLF after the %d-byte block, found %q (wrong Content-Length?)", n, t[:m]))
	case inMember && err == io.EOF:
		// A member boundary ends the record even if CRLF CRLF is short.
	default:
		return nil, r.fail("record end", err, inMember)
	}
	return rec, nil
}

// readLine returns the next line without its line end, accepting CRLF or
// LF. The slice is valid until the next call.
func (r *Reader) readLine(lr lineReader) ([]byte, error) {
	r.line = r.line[:0]
	for {
		b, err := lr.ReadSlice('\n')
		r.line = append(r.line, b...)
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			return nil, err
		}
		if len(r.line) > maxHeader {
			return nil, errLongLine
		}
	}
	line := r.line[:len(r.line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

var errLongLine = errors.New("line too long")

// addLine adds one header line to h, joining continuation lines (starting
// with SP or HT) to the previous field with a single space.
func addLine(h *Header, line []byte) error {
	if line[0] == ' ' || line[0] == '\t' {
		if len(h.fields) == 0 {
			return fmt.Errorf("continuation line %q before any field", trimQuote(line))
		}
		f := &h.fields[len(h.fields)-1]
		f.Value = strings.TrimSpace(f.Value + " " + strings.TrimSpace(string(line)))
		return nil
	}
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return fmt.Errorf("header line %q has no colon", trimQuote(line))
	}
	name = bytes.TrimSpace(name)
	if len(name) == 0 {
		return fmt.Errorf("header line %q has no field name", trimQuote(line))
	}
	h.Add(string(name), string(bytes.Trim(value, " \t")))
	return nil
}

func contentLength(h *Header) (int64, error) {
	vs := h.Values(FieldContentLength)
	if len(vs) == 0 {
		return 0, errors.New("no Content-Length")
	}
	var n int64 = -1
	for _, v := range vs {
		m, err := strconv.ParseInt(v, 10, 64)
		if err != nil || v == "" || v[0] < '0' || v[0] > '9' {
			return 0, fmt.Errorf("Content-Length %q is not a number", v)
		}
		if n >= 0 && m != n {
			return 0, fmt.Errorf("conflicting Content-Length values %v", vs)
		}
		n = m
	}
	return n, nil
}

// readBlock reads n bytes, growing the buffer as data arrives so that a
// corrupt Content-Length cannot make it allocate more than the stream holds.
func readBlock(lr io.Reader, n int64) ([]byte, error) {
	const chunk = 1 << 20
	b := make([]byte, 0, min(n, chunk))
	for int64(len(b)) < n {
		if len(b) == cap(b) {
			b = slices.Grow(b, int(min(n-int64(len(b)), int64(cap(b)))))
		}
		want := min(int64(cap(b)), n)
		m, err := lr.Read(b[len(b):want])
		b = b[:len(b)+m]
		if err != nil && int64(len(b)) < n {
			return b, err
		}
	}
	return b, nil
}

// readFull is io.ReadFull but returns the underlying error unchanged, so a
// clean member end (io.EOF) stays distinguishable from a truncated one.
func readFull(lr io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := lr.Read(b[n:])
		n += m
		if err != nil && n < len(b) {
			return n, err
		}
	}
	return n, nil
}

func isVersion(s string) bool {
	v, ok := strings.CutPrefix(s, "WARC/")
	if !ok {
		return false
	}
	major, minor, ok := strings.Cut(v, ".")
	return ok && isDigits(major) && isDigits(minor)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func notWARC(first string) string {
	msg := fmt.Sprintf("not a WARC record: first line %q", trimQuote([]byte(first)))
	switch {
	case strings.HasPrefix(first, "filedesc:"):
		msg += " (an ARC file?)"
	case strings.HasPrefix(first, "\x28\xb5\x2f\xfd"):
		msg += " (zstd compression is not supported)"
	}
	return msg
}

func trimQuote(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}

// fail classifies err, met while reading part of a record.
func (r *Reader) fail(part string, err error, inMember bool) error {
	var corrupt flate.CorruptInputError
	var internal flate.InternalError // what the inflater says of some damaged streams
	switch {
	case err == io.EOF && inMember:
		return r.malformed("gzip member ends inside the " + part)
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return &ReadError{Offset: r.end, Kind: ErrTornTail, Err: fmt.Errorf("stream ends inside the %s", part)}
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, &corrupt), errors.As(err, &internal):
		return &ReadError{Offset: r.end, Kind: ErrMalformed, Err: fmt.Errorf("%s: %w", part, err)}
	case err == errLongLine:
		return r.malformed(fmt.Sprintf("%s: line longer than %d bytes", part, maxHeader))
	}
	return fmt.Errorf("warc: read %s at offset %d: %w", part, r.end, err)
}

func (r *Reader) malformed(msg string) error {
	return &ReadError{Offset: r.end, Kind: ErrMalformed, Err: errors.New(msg)}
}

// badStart reports bytes at a record boundary that do not start a record.
// If they are NUL to the end of the stream — a crash can leave a file's
// tail zero-filled — that is a torn tail.
func (r *Reader) badStart(what string) error {
	if zero, err := r.src.restIsZero(); err != nil {
		return fmt.Errorf("warc: read at offset %d: %w", r.end, err)
	} else if zero {
		return &ReadError{Offset: r.end, Kind: ErrTornTail, Err: errors.New("zero-filled tail")}
	}
	return r.malformed(what + " at record start")
}

// lineReader is what records are parsed from: the raw stream, or one gzip
// member.
type lineReader interface {
	io.Reader
	io.ByteReader
	ReadSlice(delim byte) ([]byte, error)
	Peek(n int) ([]byte, error)
}

// countReader counts the bytes consumed from the stream. It is an
// io.ByteReader, so gzip and flate read exactly up to a member's end and
// the count is the member boundary.
type countReader struct {
	br *bufio.Reader
	n  int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.br.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countReader) ReadByte() (byte, error) {
	b, err := c.br.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

func (c *countReader) ReadSlice(delim byte) ([]byte, error) {
	b, err := c.br.ReadSlice(delim)
	c.n += int64(len(b))
	return b, err
}

func (c *countReader) Peek(n int) ([]byte, error) { return c.br.Peek(n) }

// restIsZero consumes the rest of the stream and reports whether it was all
// NUL bytes (and not empty).
func (c *countReader) restIsZero() (bool, error) {
	any := false
	for {
		b, err := c.br.Peek(1)
		if len(b) == 0 {
			if err == io.EOF {
				return any, nil
			}
			return false, err
		}
		n := c.br.Buffered()
		buf, _ := c.br.Peek(n)
		for _, x := range buf {
			if x != 0 {
				return false, nil
			}
		}
		any = true
		_, _ = c.br.Discard(n)
		c.n += int64(n)
	}
}

// ParseFields parses an application/warc-fields block, the content of
// warcinfo and (often) metadata records.
func ParseFields(block []byte) ([]Field, error) {
	var h Header
	for len(block) > 0 {
		line, rest, _ := bytes.Cut(block, []byte("\n"))
		block = rest
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := addLine(&h, line); err != nil {
			return nil, fmt.Errorf("warc: fields: %w", err)
		}
	}
	return h.fields, nil
}
