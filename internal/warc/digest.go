package warc

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
)

// ErrDigestMismatch is returned by VerifyBlockDigest when the recorded
// digest does not match the block.
var ErrDigestMismatch = errors.New("warc: digest mismatch")

// Digester computes a WARC digest value incrementally, for payloads that are
// streamed rather than held in memory. Its zero value is not usable; create
// one with NewDigester.
type Digester struct {
	alg string
	h   hash.Hash
}

// NewDigester returns a Digester for alg, "sha1" or "sha256".
func NewDigester(alg string) (*Digester, error) {
	switch alg {
	case "sha1":
		return &Digester{alg, sha1.New()}, nil
	case "sha256":
		return &Digester{alg, sha256.New()}, nil
	}
	return nil, fmt.Errorf("warc: unsupported digest algorithm %q (want sha1 or sha256)", alg)
}

// Write adds p to the digest. It never fails.
func (d *Digester) Write(p []byte) (int, error) { return d.h.Write(p) }

// String returns the digest of everything written so far as
// "alg:BASE32", base32 being RFC 4648 upper case with padding (sha1 needs
// none; sha256 ends in "====").
func (d *Digester) String() string {
	var buf [sha256.Size*8/5 + 16]byte
	return string(d.append(buf[:0]))
}

// append appends String's value to b without allocating on the way
// (the caller's buffer holds the sum and its encoding).
func (d *Digester) append(b []byte) []byte {
	var sum [sha256.Size]byte
	s := d.h.Sum(sum[:0])
	b = append(b, d.alg...)
	b = append(b, ':')
	return base32.StdEncoding.AppendEncode(b, s)
}

// reset empties the digest for the next block.
func (d *Digester) reset() { d.h.Reset() }

// Digest returns the WARC digest value of data, e.g.
// "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ". alg is "sha1" or "sha256"; any
// other value panics, as it is a configuration error WriterConfig.Validate
// catches.
func Digest(alg string, data []byte) string {
	d, err := NewDigester(alg)
	if err != nil {
		panic(err)
	}
	d.h.Write(data)
	return d.String()
}

// VerifyBlockDigest recomputes the WARC-Block-Digest of rec. It accepts the
// algorithms met in the wild (sha1, sha256, sha512, md5, with or without a
// dash) and the encodings base32 (customary), base16 and base64. It returns
// an error wrapping ErrDigestMismatch when the block does not match.
func VerifyBlockDigest(rec *Record) error {
	v := rec.Header.Get(FieldBlockDigest)
	if v == "" {
		return fmt.Errorf("warc: record has no %s", FieldBlockDigest)
	}
	want, h, err := parseDigest(v)
	if err != nil {
		return err
	}
	h.Write(rec.Block)
	if !bytes.Equal(h.Sum(nil), want) {
		return fmt.Errorf("%w: %s %s does not match the block", ErrDigestMismatch, FieldBlockDigest, v)
	}
	return nil
}

// parseDigest splits "alg:value" and decodes value by its length, the way
// other readers do, since the field does not name its encoding.
func parseDigest(v string) ([]byte, hash.Hash, error) {
	alg, val, ok := strings.Cut(v, ":")
	if !ok {
		return nil, nil, fmt.Errorf("warc: digest %q: no algorithm label", v)
	}
	var h hash.Hash
	switch strings.ReplaceAll(strings.ToLower(strings.TrimSpace(alg)), "-", "") {
	case "sha1":
		h = sha1.New()
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	case "md5":
		h = md5.New()
	default:
		return nil, nil, fmt.Errorf("warc: digest %q: unsupported algorithm", v)
	}
	val = strings.TrimSpace(val)
	b32 := base32.StdEncoding
	decoders := []struct {
		n      int
		decode func(string) ([]byte, error)
	}{
		{hex.EncodedLen(h.Size()), hex.DecodeString},
		{b32.EncodedLen(h.Size()), func(s string) ([]byte, error) { return b32.DecodeString(strings.ToUpper(s)) }},
		{b32.WithPadding(base32.NoPadding).EncodedLen(h.Size()), func(s string) ([]byte, error) {
			return b32.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(s))
		}},
		{base64.StdEncoding.EncodedLen(h.Size()), base64.StdEncoding.DecodeString},
	}
	for _, d := range decoders {
		if len(val) != d.n {
			continue
		}
		if b, err := d.decode(val); err == nil {
			return b, h, nil
		}
	}
	return nil, nil, fmt.Errorf("warc: digest %q: value is not base16, base32 or base64 of a %s digest", v, alg)
}
