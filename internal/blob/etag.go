package blob

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"regexp"

	"github.com/minio/minio-go/v7"
)

// An S3 ETag is the MD5 of the content for a single PUT and, for a
// multipart upload, the MD5 of the parts' binary MD5s followed by "-" and
// the number of parts. Objects encrypted with SSE-KMS (and some servers)
// give opaque ETags instead; those are not compared.
var md5ETag = regexp.MustCompile(`^[0-9a-f]{32}(-[0-9]+)?$`)

// digests are what a file's object may carry as its ETag.
type digests struct {
	size      int64
	md5       string // of the whole content
	multipart string // md5-of-part-md5s-N, when uploaded in parts
}

// fileDigests reads f once and computes the ETags its upload may get with
// parts of partSize (the client's own layout, minio.OptimalPartInfo).
func fileDigests(f io.ReaderAt, size, partSize int64) (digests, error) {
	d := digests{size: size}
	whole := md5.New()
	var parts []byte
	part := size // one PUT: one "part"
	if size > partSize {
		_, ps, _, err := minio.OptimalPartInfo(size, uint64(partSize))
		if err != nil {
			return d, err
		}
		part = ps
	}
	var ph hash.Hash
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; {
		if ph == nil {
			ph = md5.New()
		}
		n := min(int64(len(buf)), size-off, part-(off%part))
		if _, err := f.ReadAt(buf[:n], off); err != nil {
			return d, err
		}
		whole.Write(buf[:n])
		ph.Write(buf[:n])
		off += n
		if off%part == 0 || off == size {
			parts = ph.Sum(parts)
			ph = nil
		}
	}
	d.md5 = hex.EncodeToString(whole.Sum(nil))
	if size > partSize {
		n := len(parts) / md5.Size
		sum := md5.Sum(parts)
		d.multipart = fmt.Sprintf("%s-%d", hex.EncodeToString(sum[:]), n)
	}
	return d, nil
}

// check compares a stored object with the file it was uploaded from.
func (d digests) check(o Object) error {
	if o.Size != d.size {
		return fmt.Errorf("stored %d bytes, want %d", o.Size, d.size)
	}
	if md5ETag.MatchString(o.ETag) && o.ETag != d.md5 && o.ETag != d.multipart {
		want := d.md5
		if d.multipart != "" {
			want += " or " + d.multipart
		}
		return fmt.Errorf("stored ETag %s, want %s", o.ETag, want)
	}
	return nil
}
