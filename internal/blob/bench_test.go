package blob_test

import (
	"context"
	"fmt"
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

// BenchmarkPutFileNew is BenchmarkPutFile with the create-only upload the
// uploader uses (its own multipart upload, If-None-Match on the
// completion), each time to a new key.
func BenchmarkPutFileNew(b *testing.B) {
	s := blobtest.New(b, "bench")
	bucket, err := blob.Open("s3://bench", s.Options())
	if err != nil {
		b.Fatal(err)
	}
	defer bucket.CloseIdleConnections()
	path, data := writeFileTB(b, 32<<20)
	b.SetBytes(int64(len(data)))
	i := 0
	for b.Loop() {
		i++
		if _, err := bucket.PutFileNew(context.Background(), fmt.Sprint("f", i), path, blob.CreateConditional); err != nil {
			b.Fatal(err)
		}
		// Keep the in-memory server's size steady.
		if err := bucket.Delete(context.Background(), fmt.Sprint("f", i)); err != nil {
			b.Fatal(err)
		}
	}
}
