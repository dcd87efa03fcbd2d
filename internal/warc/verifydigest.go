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
	"fmt"
	"hash"
	"strings"
)

// digestValue is a decoded WARC digest: the algorithm (normalized: sha1,
// sha256, sha512, md5), the digest bytes, and how the value was written,
// so a computed digest can be shown the same way.
type digestValue struct {
	alg   string
	label string // the algorithm as written, e.g. "sha1" or "SHA-1"
	sum   []byte
	enc   func([]byte) string
}

// format writes sum as the value was written: same label, same encoding.
func (d digestValue) format(sum []byte) string { return d.label + ":" + d.enc(sum) }

func newHash(alg string) hash.Hash {
	switch alg {
	case "sha1":
		return sha1.New()
	case "sha256":
		return sha256.New()
	case "sha512":
		return sha512.New()
	case "md5":
		return md5.New()
	}
	return nil
}

// errUnsupportedAlg marks a digest whose algorithm cannot be checked.
type errUnsupportedAlg string

func (e errUnsupportedAlg) Error() string { return fmt.Sprintf("unsupported algorithm %q", string(e)) }

// decodeDigest parses "alg:value" as parseDigest does (the encoding is
// recognised by the value's length: base16, base32 with or without
// padding, base64), and also accepts URL-safe base64, which warcio's
// samples use.
func decodeDigest(v string) (digestValue, error) {
	label, val, ok := strings.Cut(v, ":")
	if !ok {
		return digestValue{}, fmt.Errorf("no algorithm label")
	}
	alg := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(label)), "-", "")
	h := newHash(alg)
	if h == nil {
		return digestValue{}, errUnsupportedAlg(label)
	}
	val = strings.TrimSpace(val)
	size := h.Size()
	b32, b32np := base32.StdEncoding, base32.StdEncoding.WithPadding(base32.NoPadding)
	upper := val == strings.ToUpper(val)
	codecs := []struct {
		n   int
		dec func(string) ([]byte, error)
		enc func([]byte) string
	}{
		{hex.EncodedLen(size), hex.DecodeString, func(b []byte) string {
			if upper {
				return strings.ToUpper(hex.EncodeToString(b))
			}
			return hex.EncodeToString(b)
		}},
		{b32.EncodedLen(size), func(s string) ([]byte, error) { return b32.DecodeString(strings.ToUpper(s)) }, b32.EncodeToString},
		{b32np.EncodedLen(size), func(s string) ([]byte, error) { return b32np.DecodeString(strings.ToUpper(s)) }, b32np.EncodeToString},
		{base64.StdEncoding.EncodedLen(size), base64.StdEncoding.DecodeString, base64.StdEncoding.EncodeToString},
		{base64.URLEncoding.EncodedLen(size), base64.URLEncoding.DecodeString, base64.URLEncoding.EncodeToString},
	}
	for _, c := range codecs {
		if len(val) != c.n {
			continue
		}
		if b, err := c.dec(val); err == nil {
			return digestValue{alg: alg, label: strings.TrimSpace(label), sum: b, enc: c.enc}, nil
		}
	}
	return digestValue{}, fmt.Errorf("value is not base16, base32 or base64 of a %s digest", alg)
}

// checkDigest checks the digest value v of data, kind being "block" or
// "payload". It returns "" when it matches, else the message and its
// severity: a Fault for a mismatch or a value that does not decode, a
// Warning for an algorithm it cannot compute.
func checkDigest(kind, v string, data []byte) (string, Severity) {
	d, err := decodeDigest(v)
	if _, ok := err.(errUnsupportedAlg); ok {
		return fmt.Sprintf("%s digest %s not checked: %v", kind, v, err), Warning
	}
	if err != nil {
		return fmt.Sprintf("%s digest %s cannot be decoded: %v", kind, v, err), Fault
	}
	h := newHash(d.alg)
	h.Write(data)
	if sum := h.Sum(nil); !bytes.Equal(sum, d.sum) {
		return fmt.Sprintf("%s digest mismatch: header %s, computed %s", kind, v, d.format(sum)), Fault
	}
	return "", 0
}
