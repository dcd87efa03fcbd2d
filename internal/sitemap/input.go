package sitemap

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// The reader stack of one Parse call, from the caller's reader up:
//
//	raw    caps the compressed input, at MaxBytes plus slack: a stream of
//	       empty gzip members would otherwise be read forever
//	src    records the caller's reader's error, so that I/O errors are not
//	       mistaken for corrupted content
//	gunzip zero, one or two gzip layers, detected by magic bytes
//	lim    MaxBytes of uncompressed content, noting whether there was more
//	guard  in XML mode, fails a token longer than maxTokenBytes before the
//	       XML decoder buffers it all
//	br     a bufio.Reader for sniffing, lines and the XML decoder
type input struct {
	raw   *limitReader
	src   *recordReader
	lim   *limitReader
	guard *tokenGuard
	br    *bufio.Reader
	err   error // from opening the gzip layers
}

const bufSize = 32 << 10

func newInput(r io.Reader, maxBytes int64) *input {
	// A file that is not compressed reaches lim first: raw has read at
	// most a buffer more.
	rawMax := maxBytes + 4*bufSize
	if rawMax < maxBytes {
		rawMax = maxBytes // overflow
	}
	in := &input{raw: &limitReader{r: r, n: rawMax}}
	in.src = &recordReader{r: in.raw}
	br := bufio.NewReaderSize(in.src, bufSize)
	var layer io.Reader = br
	// A .gz sitemap may arrive as is (application/x-gzip), or inside a
	// gzip Content-Encoding that nobody removed: two layers at most.
	for range 2 {
		magic, _ := br.Peek(2)
		if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
			break
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			in.err = gzipError{err}
			break
		}
		layer = &gzipReader{zr: zr}
		br = bufio.NewReaderSize(layer, bufSize)
		layer = br
	}
	in.lim = &limitReader{r: layer, n: maxBytes}
	in.guard = &tokenGuard{r: in.lim}
	in.br = bufio.NewReaderSize(in.guard, bufSize)
	return in
}

// sniff skips a UTF-8 byte order mark and white space and reports whether
// the content is XML (starts with '<'). It returns ErrEmpty if nothing is
// left, and ErrMalformed for binary data.
func (in *input) sniff() (isXML bool, err error) {
	if in.err != nil {
		return false, in.err
	}
	if bom, _ := in.br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		in.br.Discard(3)
	}
	for {
		b, err := in.br.ReadByte()
		if err == io.EOF {
			if in.truncated() {
				// MaxBytes of white space: nothing before the cap.
				return false, io.EOF
			}
			return false, ErrEmpty
		}
		if err != nil {
			return false, err
		}
		if isSpace(b) {
			continue
		}
		in.br.UnreadByte()
		if b == '<' {
			return true, nil
		}
		// A text sitemap is text: a NUL byte near the start means
		// binary data (an image, a UTF-16 file), not worth reading on.
		head, _ := in.br.Peek(512)
		if bytes.IndexByte(head, 0) >= 0 {
			return false, fmt.Errorf("%w: binary data", ErrMalformed)
		}
		return false, nil
	}
}

// truncated reports whether a cap on bytes cut the input.
func (in *input) truncated() bool { return in.lim.hit || in.raw.hit }

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

// recordReader remembers the first error of the caller's reader.
type recordReader struct {
	r   io.Reader
	err error
}

func (r *recordReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.r.Read(p)
	if err != nil {
		r.err = err
	}
	return n, err
}

// gzipError marks a failure of the gzip layer: a bad header, corrupt
// data, a checksum mismatch or a stream that ends early.
type gzipError struct{ err error }

func (e gzipError) Error() string { return "gzip: " + e.err.Error() }
func (e gzipError) Unwrap() error { return e.err }

type gzipReader struct {
	zr *gzip.Reader
}

func (g *gzipReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		err = gzipError{err}
	}
	return n, err
}

// limitReader passes n bytes, then reports io.EOF, noting in hit whether
// the underlying reader had more.
type limitReader struct {
	r   io.Reader
	n   int64
	hit bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		if !l.hit {
			var b [1]byte
			for i := 0; ; i++ {
				n, err := l.r.Read(b[:])
				if n > 0 {
					l.hit = true
					break
				}
				if err != nil {
					return 0, err
				}
				if i == 100 {
					return 0, io.ErrNoProgress
				}
			}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// tokenGuard bounds the memory of the XML decoder, which buffers a whole
// token (text, comment, CDATA section, tag) before returning it: once
// armed, it fails when more than maxTokenBytes have been read past the
// end of the last token (mark, in bytes read through the guard).
type tokenGuard struct {
	r     io.Reader
	n     int64 // bytes read through the guard
	mark  int64
	armed bool
}

// errTokenTooLong is the guard's error, reported as ErrMalformed.
var errTokenTooLong = fmt.Errorf("XML token longer than %d bytes", maxTokenBytes)

func (g *tokenGuard) Read(p []byte) (int, error) {
	// The bufio.Reader above holds up to bufSize bytes the decoder has
	// not consumed yet, hence the slack.
	if g.armed && g.n-g.mark > maxTokenBytes+bufSize {
		return 0, errTokenTooLong
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	return n, err
}
