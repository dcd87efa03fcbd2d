package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
)

// putParts uploads the file f of size bytes to key as a multipart upload
// whose completion carries If-None-Match: *, in the client's part layout
// (minio.OptimalPartInfo, as fileDigests computes the ETag), Threads
// parts at a time, each read in place. A failed upload is aborted, so
// its parts do not stay in the bucket. The answers are those of putFile:
// ErrNoConditional, the object found there (existing), or the stored
// object verified.
func (b *Bucket) putParts(ctx context.Context, key string, f io.ReaderAt, size int64, want digests) (Object, error) {
	core := minio.Core{Client: b.client}
	n, partSize, lastSize, err := minio.OptimalPartInfo(size, uint64(b.opts.PartSize))
	if err != nil {
		return Object{}, fmt.Errorf("blob: put %s: %w", key, err)
	}
	id, err := core.NewMultipartUpload(ctx, b.bucket, b.full(key), minio.PutObjectOptions{})
	if err != nil {
		return Object{}, classify("put", key, err)
	}
	parts := make([]minio.CompletePart, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(b.opts.Threads, n) {
		wg.Go(func() {
			for i := range next {
				length := partSize
				if i == n-1 {
					length = lastSize
				}
				r := io.NewSectionReader(f, int64(i)*partSize, length)
				p, err := core.PutObjectPart(ctx, b.bucket, b.full(key), id, i+1, r, length, minio.PutObjectPartOptions{})
				parts[i], errs[i] = minio.CompletePart{PartNumber: i + 1, ETag: p.ETag}, err
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	abort := func() {
		// With a context of its own: ctx may be why the upload failed.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = core.AbortMultipartUpload(actx, b.bucket, b.full(key), id)
	}
	if err := errors.Join(errs...); err != nil {
		abort()
		return Object{}, classify("put", key, err)
	}
	var opts minio.PutObjectOptions
	opts.SetMatchETagExcept("*")
	if _, err := core.CompleteMultipartUpload(ctx, b.bucket, b.full(key), id, parts, opts); err != nil {
		abort()
		switch r := minio.ToErrorResponse(err); {
		case r.StatusCode == http.StatusNotImplemented || r.Code == "NotImplemented":
			return Object{}, fmt.Errorf("blob: put %s: %w", key, ErrNoConditional)
		case r.Code == "PreconditionFailed" || r.StatusCode == http.StatusPreconditionFailed:
			return b.existing(ctx, key, want)
		}
		return Object{}, classify("put", key, err)
	}
	obj, err := b.Stat(ctx, key)
	if err != nil {
		return Object{}, fmt.Errorf("blob: put %s: verify: %w", key, err)
	}
	if err := want.check(obj); err != nil {
		return Object{}, fmt.Errorf("blob: put %s: verify: %w", key, err)
	}
	obj.MD5 = want.md5
	return obj, nil
}
