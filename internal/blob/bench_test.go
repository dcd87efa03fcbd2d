package blob_test

import (
	"context"
	"testing"

	"github.com/godwit-crawler/godwit/internal/blob"
	"github.com/godwit-crawler/godwit/internal/blobtest"
)

// BenchmarkPutFile uploads a 32 MiB file in 5 MiB parts to gofakes3 on
// loopback and verifies it: the client's cost (MD5 pass, SigV4 payload
// hashing over plain HTTP, multipart) plus an in-memory server's.
func BenchmarkPutFile(b *testing.B) {
	s := blobtest.New(b, "bench")
	bucket, err := blob.Open("s3://bench", s.Options())
	if err != nil {
		b.Fatal(err)
	}
	defer bucket.CloseIdleConnections()
	path, data := writeFileTB(b, 32<<20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := bucket.PutFile(context.Background(), "f", path); err != nil {
			b.Fatal(err)
		}
	}
}
