package fetch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

const (
	// maxCodings bounds how many stacked Content-Encodings Decode undoes
	// ("gzip, br" is legal; ten layers is an attack).
	maxCodings = 4
	// zstdMaxWindow is the window RFC 9659 allows zstd content coding on
	// the web (8 MiB); larger windows are refused rather than allocated.
	zstdMaxWindow = 8 << 20
)

// Decode returns r.Body with its Content-Encoding removed. It handles gzip
// and x-gzip (multi-member too), deflate (zlib-wrapped, and the raw deflate
// some servers send instead), br, zstd, identity, and stacks of these
// ("gzip, br"), undoing them in reverse order. With no coding (or identity
// only) it returns r.Body itself, not a copy.
//
// Output is capped at Config.MaxDecodedBytes and memory stays bounded by
// that cap plus the decoders' windows, however large the stream would
// expand (a compression bomb). Past the cap, Decode returns the first
// MaxDecodedBytes bytes together with an error wrapping ErrTooLarge, so a
// caller may either use the prefix or give up.
//
// On other errors the returned bytes are what decoded before the error,
// possibly none. A stream that merely ends early is not an error when the
// body was truncated (r.Truncated != ""): the prefix is the best there is.
func (c *Client) Decode(r *Response) ([]byte, error) {
	return decode(r, c.cfg.MaxDecodedBytes)
}

func decode(r *Response, limit int64) ([]byte, error) {
	codings, err := contentCodings(r.Header.Values("Content-Encoding"))
	if err != nil {
		return nil, err
	}
	if len(codings) == 0 || len(r.Body) == 0 {
		if int64(len(r.Body)) > limit {
			return r.Body[:limit], fmt.Errorf("fetch: decode: %w (limit %d bytes)", ErrTooLarge, limit)
		}
		return r.Body, nil
	}

	hint := int64(len(r.Body)) * 4
	if len(r.Body) >= exactDecodeFrom {
		// Large: decode once just to count, so the output is allocated
		// once at its final size. Growing it by doubling would hold up to
		// 1.75× the output in garbage, and a bomb's output is the cap.
		src, done, err := decoders(codings, r.Body)
		if err != nil {
			return nil, err
		}
		n, _ := io.Copy(io.Discard, io.LimitReader(src, limit+1))
		done()
		hint = n + 1 // room to see EOF without growing
	}
	src, done, err := decoders(codings, r.Body)
	if err != nil {
		return nil, err
	}
	defer done()

	out, over, err := readAtMost(src, limit, hint)
	switch {
	case over:
		return out, fmt.Errorf("fetch: decode: %w (limit %d bytes)", ErrTooLarge, limit)
	case err == nil:
		return out, nil
	case r.Truncated != "" && errors.Is(err, io.ErrUnexpectedEOF):
		return out, nil
	}
	return out, fmt.Errorf("fetch: decode %s: %w", strings.Join(codings, ", "), err)
}

// exactDecodeFrom is the size of a content-coded body from which Decode
// counts the output before allocating it.
const exactDecodeFrom = 64 << 10

// decoders stacks the decoders that undo codings (in Content-Encoding
// order) over body; done releases them.
func decoders(codings []string, body []byte) (src io.Reader, done func(), err error) {
	src = bytes.NewReader(body)
	var closers []func()
	done = func() {
		for _, f := range closers {
			f()
		}
	}
	for i := len(codings) - 1; i >= 0; i-- {
		dec, closeFn, err := newDecoder(codings[i], src)
		if err != nil {
			done()
			return nil, nil, fmt.Errorf("fetch: decode %s: %w", codings[i], err)
		}
		src = dec
		if closeFn != nil {
			closers = append(closers, closeFn)
		}
	}
	return src, done, nil
}

// contentCodings lists the codings in Content-Encoding order, lower-case,
// without identity.
func contentCodings(values []string) ([]string, error) {
	var out []string
	for _, v := range values {
		for _, c := range strings.Split(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			switch c {
			case "", "identity":
				continue
			case "gzip", "x-gzip", "deflate", "br", "zstd":
				out = append(out, c)
			default:
				return nil, fmt.Errorf("fetch: decode: %w %q", ErrUnsupportedEncoding, c)
			}
		}
	}
	if len(out) > maxCodings {
		return nil, fmt.Errorf("fetch: decode: %w: %d stacked codings", ErrUnsupportedEncoding, len(out))
	}
	return out, nil
}

// newDecoder wraps src in a decoder for coding; closeFn, if not nil,
// releases the decoder's resources.
func newDecoder(coding string, src io.Reader) (dec io.Reader, closeFn func(), err error) {
	switch coding {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, nil, err
		}
		return zr, func() { zr.Close() }, nil
	case "deflate":
		// RFC 9110 deflate is zlib-wrapped, but some servers send raw
		// deflate; browsers accept both, and so do we.
		br := bufio.NewReader(src)
		if hdr, _ := br.Peek(2); len(hdr) == 2 && isZlibHeader(hdr[0], hdr[1]) {
			zr, err := zlib.NewReader(br)
			if err != nil {
				return nil, nil, err
			}
			return zr, func() { zr.Close() }, nil
		}
		fr := flate.NewReader(br)
		return fr, func() { fr.Close() }, nil
	case "br":
		return brotli.NewReader(src), nil, nil
	case "zstd":
		// Concurrency 1: decode synchronously, no goroutines to leak.
		zr, err := zstd.NewReader(src,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(zstdMaxWindow),
			zstd.WithDecoderLowmem(true),
		)
		if err != nil {
			return nil, nil, err
		}
		return zr, zr.Close, nil
	}
	return nil, nil, fmt.Errorf("%w %q", ErrUnsupportedEncoding, coding)
}

// isZlibHeader reports whether cmf, flg start a zlib stream: deflate
// method, window ≤ 32 KiB, and the header checksum.
func isZlibHeader(cmf, flg byte) bool {
	return cmf&0x0f == 8 && cmf>>4 <= 7 && (uint16(cmf)<<8|uint16(flg))%31 == 0
}

// readAtMost reads r to EOF or until more than limit bytes arrived.
// over reports the latter; out then holds exactly limit bytes. hint sizes
// the first allocation. Memory never exceeds about limit+1 bytes plus
// append's growth slack.
func readAtMost(r io.Reader, limit, hint int64) (out []byte, over bool, err error) {
	size := min(max(hint, 512), limit+1)
	b := make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
			if int64(cap(b)) > limit+1 {
				b = b[: len(b) : limit+1]
			}
		}
		n, rerr := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			return b[:limit], true, nil
		}
		if rerr == io.EOF {
			return b, false, nil
		}
		if rerr != nil {
			return b, false, rerr
		}
	}
}
