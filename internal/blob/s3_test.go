package blob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/godwit-crawler/godwit/internal/blob"
	"github.com/godwit-crawler/godwit/internal/blobtest"
)

func open(t *testing.T, s *blobtest.Server, prefix string) *blob.Bucket {
	t.Helper()
	b, err := blob.Open("s3://"+s.Bucket+"/"+prefix, s.Options())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.CloseIdleConnections)
	return b
}

func writeFile(t *testing.T, n int) (string, []byte) { return writeFileTB(t, n) }

func writeFileTB(t testing.TB, n int) (string, []byte) {
	t.Helper()
	data := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(n), 1))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	path := filepath.Join(t.TempDir(), "f.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

func readAll(t *testing.T) func(io.ReadCloser, error) []byte {
	return func(rc io.ReadCloser, err error) []byte {
		t.Helper()
		return readAllErr(t, rc, err)
	}
}

func readAllErr(t *testing.T, rc io.ReadCloser, err error) []byte {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBucketObjects(t *testing.T) {
	ctx := context.Background()
	s := blobtest.New(t, "bkt")
	b := open(t, s, "crawls/one")
	path, data := writeFile(t, 100_000)

	obj, err := b.PutFile(ctx, "warc/a.warc.gz", path)
	if err != nil {
		t.Fatal(err)
	}
	if obj.Size != int64(len(data)) || obj.MD5 == "" {
		t.Errorf("PutFile = %+v, want size %d and an MD5", obj, len(data))
	}
	if got := s.Object(t, "crawls/one/warc/a.warc.gz"); !bytes.Equal(got, data) {
		t.Fatalf("stored object differs from the file (%d bytes, want %d)", len(got), len(data))
	}
	if got := readAll(t)(b.Get(ctx, "warc/a.warc.gz")); !bytes.Equal(got, data) {
		t.Errorf("Get returned %d bytes that differ from the file", len(got))
	}
	if got := readAll(t)(b.GetRange(ctx, "warc/a.warc.gz", 4096, 1000)); !bytes.Equal(got, data[4096:5096]) {
		t.Errorf("GetRange(4096, 1000) returned %d bytes that differ from the file's", len(got))
	}
	if _, err := b.Put(ctx, "warc/b.cdxj", strings.NewReader("cdxj"), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, "other/c", strings.NewReader("c"), 1); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for o, err := range b.List(ctx, "warc/") {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, o.Key)
	}
	if want := []string{"warc/a.warc.gz", "warc/b.cdxj"}; !slices.Equal(keys, want) {
		t.Errorf("List(warc/) = %q, want %q", keys, want)
	}

	if err := b.Delete(ctx, "warc/a.warc.gz"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stat(ctx, "warc/a.warc.gz"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Stat after Delete: %v, want ErrNotFound", err)
	}
	if _, err := b.Get(ctx, "warc/a.warc.gz"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	if got := s.Keys(t, ""); !slices.Equal(got, []string{"crawls/one/other/c", "crawls/one/warc/b.cdxj"}) {
		t.Errorf("bucket holds %q after Delete", got)
	}
}

// TestPutEmpty: an empty file or object is stored (over plain HTTP the
// client's streamed signing sent it without a Content-Length, which S3
// refuses; an empty CDXJ index of a WARC file without responses met it).
func TestPutEmpty(t *testing.T) {
	ctx := context.Background()
	s := blobtest.New(t, "bkt")
	b := open(t, s, "p")
	path, _ := writeFile(t, 0)
	if obj, err := b.PutFile(ctx, "warc/empty.cdxj", path); err != nil || obj.Size != 0 {
		t.Fatalf("PutFile of an empty file = %+v, %v", obj, err)
	}
	if obj, err := b.Put(ctx, "warc/empty2", strings.NewReader(""), 0); err != nil || obj.Size != 0 {
		t.Fatalf("Put of an empty object = %+v, %v", obj, err)
	}
	if got := s.Keys(t, ""); !slices.Equal(got, []string{"p/warc/empty.cdxj", "p/warc/empty2"}) {
		t.Errorf("bucket holds %q", got)
	}
}

// A file larger than the part size goes up in parts, and the multipart
// ETag is checked against the file.
func TestPutFileMultipart(t *testing.T) {
	ctx := context.Background()
	s := blobtest.New(t, "bkt")
	b := open(t, s, "")
	path, data := writeFile(t, 2*blob.MinPartSize+12345)

	obj, err := b.PutFile(ctx, "big", path)
	if err != nil {
		t.Fatal(err)
	}
	parts := 0
	for _, r := range s.Requests() {
		if r.Method == http.MethodPut && strings.Contains(r.Query, "partNumber=") && r.Status == http.StatusOK {
			parts++
		}
	}
	if parts != 3 {
		t.Errorf("server received %d parts, want 3", parts)
	}
	if s.Puts("big") != 1 {
		t.Errorf("server completed %d uploads of big, want 1", s.Puts("big"))
	}
	if got := s.Object(t, "big"); !bytes.Equal(got, data) {
		t.Fatalf("stored object differs from the file (%d bytes, want %d)", len(got), len(data))
	}
	if obj.Size != int64(len(data)) {
		t.Errorf("PutFile size %d, want %d", obj.Size, len(data))
	}
}

// PutFile fails when what the server stored is not the file.
func TestPutFileVerifies(t *testing.T) {
	ctx := context.Background()
	s := blobtest.New(t, "bkt")
	o := s.Options()
	o.Transport = etagRewriter{http.DefaultTransport}
	b, err := blob.Open("s3://bkt", o)
	if err != nil {
		t.Fatal(err)
	}
	path, _ := writeFile(t, 1000)
	if _, err := b.PutFile(ctx, "f", path); err == nil || !strings.Contains(err.Error(), "verify") {
		t.Errorf("PutFile with a wrong stored ETag: %v, want a verify error", err)
	}
}

// etagRewriter answers every HEAD as if the object held other bytes.
type etagRewriter struct{ rt http.RoundTripper }

func (e etagRewriter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := e.rt.RoundTrip(r)
	if err == nil && r.Method == http.MethodHead {
		resp.Header.Set("ETag", `"00000000000000000000000000000000"`)
	}
	return resp, err
}

func TestPutNew(t *testing.T) {
	for _, noCond := range []bool{false, true} {
		t.Run(map[bool]string{false: "if-none-match", true: "stat-first"}[noCond], func(t *testing.T) {
			ctx := context.Background()
			s := blobtest.New(t, "bkt")
			o := s.Options()
			o.NoConditionalPut = noCond
			b, err := blob.Open("s3://bkt/p", o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.PutNew(ctx, "manifest-1", []byte("first")); err != nil {
				t.Fatal(err)
			}
			if _, err := b.PutNew(ctx, "manifest-1", []byte("second")); !errors.Is(err, blob.ErrExists) {
				t.Errorf("second PutNew: %v, want ErrExists", err)
			}
			if got := string(s.Object(t, "p/manifest-1")); got != "first" {
				t.Errorf("manifest-1 = %q after a refused PutNew, want %q", got, "first")
			}
		})
	}
}

func TestStoreDown(t *testing.T) {
	ctx := context.Background()
	s := blobtest.New(t, "bkt")
	b := open(t, s, "")
	if err := b.Check(ctx); err != nil {
		t.Errorf("Check of an existing bucket: %v", err)
	}
	missing, err := blob.Open("s3://nosuchbucket", s.Options())
	if err != nil {
		t.Fatal(err)
	}
	if err := missing.Check(ctx); !errors.Is(err, blob.ErrNoBucket) {
		t.Errorf("Check of a missing bucket: %v, want ErrNoBucket", err)
	}
	s.SetDown(true)
	if err := b.Check(ctx); err == nil || errors.Is(err, blob.ErrNoBucket) {
		t.Errorf("Check while the store is down: %v, want an error other than ErrNoBucket", err)
	}
	if _, err := b.Put(ctx, "k", strings.NewReader("x"), 1); err == nil || errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Put to a store answering 503: %v, want an error to retry", err)
	}
	s.SetDown(false)
	if _, err := b.Put(ctx, "k", strings.NewReader("x"), 1); err != nil {
		t.Errorf("Put once the store is back: %v", err)
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in, bucket, prefix string
		ok                 bool
	}{
		{"s3://bkt", "bkt", "", true},
		{"s3://bkt/", "bkt", "", true},
		{"s3://my.bucket-1/a/b/", "my.bucket-1", "a/b", true},
		{"s3://bkt/a//b", "", "", false},
		{"http://bkt/a", "", "", false},
		{"s3:///a", "", "", false},
		{"s3://bkt/a?x=1", "", "", false},
		{"s3://b/a", "", "", false},    // too short for a bucket name
		{"s3://-bkt/a", "", "", false}, // not a valid bucket name
	} {
		bucket, prefix, err := blob.ParseURL(tc.in)
		if (err == nil) != tc.ok || bucket != tc.bucket || prefix != tc.prefix {
			t.Errorf("ParseURL(%q) = %q, %q, %v; want %q, %q, ok=%v", tc.in, bucket, prefix, err, tc.bucket, tc.prefix, tc.ok)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		ok       bool
	}{
		{"http://127.0.0.1:9000", true},
		{"http://localhost:9000", true},
		{"http://[::1]:9000", true},
		{"https://s3.example.org", true},
		{"http://s3.example.org", false},
		{"http://10.0.0.1:9000", false},
		{"https://s3.example.org/path", false},
		{"s3.example.org", false},
	} {
		o := blob.Options{Endpoint: tc.endpoint}
		o.Default()
		if err := o.Validate(); (err == nil) != tc.ok {
			t.Errorf("Validate(Endpoint %q) = %v, want ok=%v", tc.endpoint, err, tc.ok)
		}
	}
	env := map[string]string{"AWS_ENDPOINT_URL": "https://a", "AWS_ENDPOINT_URL_S3": "https://s3", "AWS_DEFAULT_REGION": "eu-west-1",
		"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}
	o := blob.OptionsFromEnv(func(k string) string { return env[k] })
	if o.Endpoint != "https://s3" || o.Region != "eu-west-1" || o.AccessKey != "k" || o.SecretKey != "s" {
		t.Errorf("OptionsFromEnv = %+v", o)
	}
}
