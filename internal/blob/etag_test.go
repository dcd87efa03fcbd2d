package blob

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"testing"
)

// The multipart ETag is the MD5 of the parts' binary MD5s, "-N".
func TestFileDigests(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), (2*MinPartSize+100)/16)
	d, err := fileDigests(bytes.NewReader(data), int64(len(data)), MinPartSize)
	if err != nil {
		t.Fatal(err)
	}
	var parts []byte
	for off := 0; off < len(data); off += MinPartSize {
		sum := md5.Sum(data[off:min(off+MinPartSize, len(data))])
		parts = append(parts, sum[:]...)
	}
	sum, whole := md5.Sum(parts), md5.Sum(data)
	if want := fmt.Sprintf("%s-3", hex.EncodeToString(sum[:])); d.multipart != want || d.md5 != hex.EncodeToString(whole[:]) {
		t.Errorf("fileDigests = %+v, want multipart %s and md5 %x", d, want, whole)
	}
	small, _ := fileDigests(bytes.NewReader(data[:10]), 10, MinPartSize)
	if small.multipart != "" {
		t.Errorf("one-part file has a multipart ETag %q", small.multipart)
	}
}

func BenchmarkFileDigests(b *testing.B) {
	data := bytes.Repeat([]byte{7}, 64<<20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := fileDigests(bytes.NewReader(data), int64(len(data)), DefaultPartSize); err != nil {
			b.Fatal(err)
		}
	}
}
