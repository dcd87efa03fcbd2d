package blob_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/godwit-crawler/godwit/internal/blob"
	"github.com/godwit-crawler/godwit/internal/blobtest"
)

// TestPutFileNew: a create-only upload of a file, in one PUT and in
// parts, judged by what the server holds: a free key is written; a key
// holding the file's bytes is left alone and reported as the file's
// upload (a retry); a key holding other bytes is left alone and
// refused with ErrExists; a server without conditional writes is
// refused with ErrNoConditional (nothing written), and looking first
// works there.
func TestPutFileNew(t *testing.T) {
	for _, size := range []int{1000, 2*blob.MinPartSize + 12345} {
		name := map[bool]string{false: "single", true: "multipart"}[size > blob.MinPartSize]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := blobtest.New(t, "bkt")
			b := open(t, s, "")
			path, data := writeFile(t, size)

			obj, err := b.PutFileNew(ctx, "f", path, blob.CreateConditional)
			if err != nil || obj.Existed || obj.Size != int64(size) {
				t.Fatalf("PutFileNew to a free key = %+v, %v", obj, err)
			}
			// Again: the same bytes are there, nothing is written.
			obj, err = b.PutFileNew(ctx, "f", path, blob.CreateConditional)
			if err != nil || !obj.Existed {
				t.Errorf("PutFileNew of the same file again = %+v, %v, want Existed", obj, err)
			}
			if n := s.Puts("f"); n != 1 {
				t.Errorf("the server stored f %d times, want once", n)
			}

			// Another writer's object under the key is not replaced.
			other := bytes.Repeat([]byte("x"), size)
			s.Put(t, "g", other)
			obj, err = b.PutFileNew(ctx, "g", path, blob.CreateConditional)
			if !errors.Is(err, blob.ErrExists) || obj.MD5 == "" {
				t.Errorf("PutFileNew over other bytes = %+v, %v, want ErrExists and the file's MD5", obj, err)
			}
			if got := s.Object(t, "g"); !bytes.Equal(got, other) {
				t.Errorf("PutFileNew replaced another writer's object")
			}
			if n := s.Puts("g"); n != 0 {
				t.Errorf("the server stored g %d times, want never", n)
			}

			// A server without conditional writes.
			s.SetNoConditional(true)
			if _, err := b.PutFileNew(ctx, "h", path, blob.CreateConditional); !errors.Is(err, blob.ErrNoConditional) {
				t.Errorf("PutFileNew on a server without conditional writes = %v, want ErrNoConditional", err)
			}
			if keys := s.Keys(t, "h"); len(keys) != 0 {
				t.Errorf("after ErrNoConditional the bucket holds %q", keys)
			}
			if obj, err := b.PutFileNew(ctx, "h", path, blob.CreateLookFirst); err != nil || obj.Existed {
				t.Errorf("PutFileNew looking first, to a free key = %+v, %v", obj, err)
			}
			if got := s.Object(t, "h"); !bytes.Equal(got, data) {
				t.Errorf("h holds %d bytes, want the file's %d", len(got), len(data))
			}
			if obj, err := b.PutFileNew(ctx, "h", path, blob.CreateLookFirst); err != nil || !obj.Existed {
				t.Errorf("PutFileNew looking first, the same bytes there = %+v, %v, want Existed", obj, err)
			}
			if _, err := b.PutFileNew(ctx, "g", path, blob.CreateLookFirst); !errors.Is(err, blob.ErrExists) {
				t.Errorf("PutFileNew looking first, other bytes there = %v, want ErrExists", err)
			}
			if got := s.Object(t, "g"); !bytes.Equal(got, other) {
				t.Errorf("PutFileNew looking first replaced another writer's object")
			}
		})
	}
}

// TestPutFileNewReadsOpaqueETags: when the object under the key has an
// ETag that is not an MD5 (an object encrypted with SSE-KMS; here the
// server's answers rewritten), the object is read to tell whether it
// holds the file's bytes.
func TestPutFileNewReadsOpaqueETags(t *testing.T) {
	ctx := context.Background()
	s := blobtest.New(t, "bkt")
	o := s.Options()
	o.Transport = opaqueETags{http.DefaultTransport}
	b, err := blob.Open("s3://bkt", o)
	if err != nil {
		t.Fatal(err)
	}
	path, data := writeFile(t, 1000)
	s.Put(t, "same", data)
	other := bytes.Clone(data)
	other[500] ^= 1
	s.Put(t, "other", other)
	if obj, err := b.PutFileNew(ctx, "same", path, blob.CreateConditional); err != nil || !obj.Existed {
		t.Errorf("PutFileNew over the same bytes = %+v, %v, want Existed", obj, err)
	}
	if _, err := b.PutFileNew(ctx, "other", path, blob.CreateConditional); !errors.Is(err, blob.ErrExists) {
		t.Errorf("PutFileNew over other bytes of the same size = %v, want ErrExists", err)
	}
	gets := 0
	for _, r := range s.Requests() {
		if r.Method == http.MethodGet {
			gets++
		}
	}
	if gets < 2 {
		t.Errorf("the objects were read %d times, want each read", gets)
	}
	if got := s.Object(t, "other"); !bytes.Equal(got, other) {
		t.Errorf("PutFileNew replaced another writer's object")
	}
}

// opaqueETags gives every object an ETag that is no MD5.
type opaqueETags struct{ rt http.RoundTripper }

func (e opaqueETags) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := e.rt.RoundTrip(r)
	if err == nil && resp.Header.Get("ETag") != "" {
		resp.Header.Set("ETag", `"kms-opaque-etag"`)
	}
	return resp, err
}
