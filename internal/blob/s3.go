package blob

import (
	"bytes"
	"cmp"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

var (
	// ErrNotFound: no object has the key.
	ErrNotFound = errors.New("blob: object not found")
	// ErrExists: a create-only put found the key taken.
	ErrExists = errors.New("blob: object exists")
	// ErrNoBucket: the server has no bucket of that name.
	ErrNoBucket = errors.New("blob: no such bucket")
	// ErrNoConditional: the server does not support conditional writes
	// (it answered a create-only put with 501 NotImplemented); nothing
	// was written.
	ErrNoConditional = errors.New("blob: the store does not support conditional writes (If-None-Match)")
)

// Defaults of Options.
const (
	DefaultRegion     = "us-east-1"
	DefaultPartSize   = 16 << 20 // the client's own default; 64 parts per GiB
	MinPartSize       = 5 << 20  // S3's smallest part but the last
	DefaultMaxRetries = 5
	DefaultThreads    = 2 // parts of one upload sent at once
)

// Options configure a Bucket. They are plain data: Default fills the zero
// values, Validate checks the result. Only cmd/godwit reads the
// environment (OptionsFromEnv).
type Options struct {
	// Endpoint is the server's URL: "https://s3.eu-west-1.amazonaws.com",
	// "http://127.0.0.1:9000". Default: AWS S3.
	Endpoint string
	// Region of the bucket. Default us-east-1.
	Region string
	// AccessKey, SecretKey and SessionToken sign requests; with no keys,
	// requests are anonymous (a public bucket).
	AccessKey    string
	SecretKey    string
	SessionToken string
	// PathStyle addresses the bucket as endpoint/bucket/key rather than
	// bucket.endpoint/key. Without it the client decides: virtual-host
	// style for AWS, path style for other endpoints.
	PathStyle bool
	// PartSize of multipart uploads, at least MinPartSize; files up to one
	// part are uploaded with one PUT. Default DefaultPartSize.
	PartSize int64
	// Threads is how many parts of one upload are sent at once (PutFile
	// streams each from the file; Put of a stream of unknown length
	// buffers one part). Default DefaultThreads.
	Threads int
	// MaxRetries is how often the client retries one request (1: no
	// retry). Default DefaultMaxRetries.
	MaxRetries int
	// NoConditionalPut makes PutNew check that the key is absent before it
	// writes, for servers that ignore If-None-Match (see the package doc).
	NoConditionalPut bool
	// Transport carries the requests. Default: a transport of the
	// Bucket's own that connects directly (no proxy).
	Transport http.RoundTripper
}

// OptionsFromEnv reads the usual AWS variables: AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION (or
// AWS_DEFAULT_REGION), AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL).
func OptionsFromEnv(getenv func(string) string) Options {
	return Options{
		Endpoint:     cmp.Or(getenv("AWS_ENDPOINT_URL_S3"), getenv("AWS_ENDPOINT_URL")),
		Region:       cmp.Or(getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION")),
		AccessKey:    getenv("AWS_ACCESS_KEY_ID"),
		SecretKey:    getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken: getenv("AWS_SESSION_TOKEN"),
	}
}

// Default fills unset fields with their defaults.
func (o *Options) Default() {
	if o.Endpoint == "" {
		o.Endpoint = "https://s3.amazonaws.com"
	}
	if o.Region == "" {
		o.Region = DefaultRegion
	}
	if o.PartSize == 0 {
		o.PartSize = DefaultPartSize
	}
	if o.Threads == 0 {
		o.Threads = DefaultThreads
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	}
}

// Validate reports the first invalid setting.
func (o Options) Validate() error {
	u, err := endpointURL(o.Endpoint)
	if err != nil {
		return err
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return fmt.Errorf("blob: endpoint %s: plain http is allowed to loopback addresses only; use https", o.Endpoint)
	}
	switch {
	case o.PartSize < MinPartSize:
		return fmt.Errorf("blob: part size %d: want at least %d (5 MiB)", o.PartSize, MinPartSize)
	case o.Threads < 1:
		return fmt.Errorf("blob: threads %d: want at least 1", o.Threads)
	case o.MaxRetries < 1:
		return fmt.Errorf("blob: max retries %d: want at least 1", o.MaxRetries)
	case (o.AccessKey == "") != (o.SecretKey == ""):
		return errors.New("blob: an access key needs its secret key and the other way round")
	}
	return nil
}

func endpointURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("blob: endpoint %q: want http(s)://host[:port]", raw)
	}
	return u, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ParseURL splits s3://bucket/prefix into the bucket and the key prefix
// (without leading or trailing slashes; "" for the whole bucket).
func ParseURL(raw string) (bucket, prefix string, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.RawQuery != "" || u.User != nil || u.Fragment != "" {
		return "", "", fmt.Errorf("blob: store %q: want s3://bucket/prefix", raw)
	}
	if err := s3utils.CheckValidBucketName(u.Host); err != nil {
		return "", "", fmt.Errorf("blob: store %q: %w", raw, err)
	}
	prefix = strings.Trim(u.Path, "/")
	if strings.Contains(prefix, "//") {
		return "", "", fmt.Errorf("blob: store %q: empty path segment in the prefix", raw)
	}
	return u.Host, prefix, nil
}

// Object describes a stored object.
type Object struct {
	Key      string // relative to the Bucket's prefix
	Size     int64
	ETag     string // as the server gives it, without quotes
	MD5      string // hex MD5 of the content, when PutFile computed it
	Modified time.Time
	// Existed: PutFileNew found the key holding the file's bytes already
	// (an earlier upload of the same file) and wrote nothing.
	Existed bool
}

// Create is how PutFileNew keeps from replacing an object.
type Create uint8

const (
	// CreateConditional sends If-None-Match: * with the PUT, or with the
	// completion of a multipart upload: the server refuses to replace an
	// object, atomically. AWS S3 (since 2024), MinIO, Ceph RGW.
	CreateConditional Create = iota
	// CreateLookFirst asks whether the key exists, then writes without a
	// condition: for servers that do not support conditional writes. It
	// narrows the race but does not close it: a writer between the look
	// and the write is replaced.
	CreateLookFirst
)

// Bucket is a bucket and key prefix on an S3-compatible server.
type Bucket struct {
	client    *minio.Client
	transport *http.Transport // nil when Options.Transport was given
	bucket    string
	prefix    string
	opts      Options
}

// Open returns the Bucket of rawURL (s3://bucket/prefix). It makes no
// request: a store that is down fails the first call, not Open.
func Open(rawURL string, o Options) (*Bucket, error) {
	bucket, prefix, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	o.Default()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	u, _ := endpointURL(o.Endpoint) // validated
	b := &Bucket{bucket: bucket, prefix: prefix, opts: o}
	rt := o.Transport
	if rt == nil {
		b.transport = &http.Transport{
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 2 * time.Minute, // after the request body is sent: a part may take a while to store
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConnsPerHost:   o.Threads + 2,
			ForceAttemptHTTP2:     true,
		}
		rt = b.transport
	}
	lookup := minio.BucketLookupAuto
	if o.PathStyle {
		lookup = minio.BucketLookupPath
	}
	b.client, err = minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(o.AccessKey, o.SecretKey, o.SessionToken),
		Secure:       u.Scheme == "https",
		Transport:    rt,
		Region:       o.Region,
		BucketLookup: lookup,
		MaxRetries:   o.MaxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	return b, nil
}

// String is the Bucket's URL, s3://bucket/prefix.
func (b *Bucket) String() string {
	if b.prefix == "" {
		return "s3://" + b.bucket
	}
	return "s3://" + b.bucket + "/" + b.prefix
}

// Check asks the server whether the bucket exists: ErrNoBucket if it
// says no, another error if it cannot be asked (down, refused), which is
// no reason to give up on it.
func (b *Bucket) Check(ctx context.Context) error {
	ok, err := b.client.BucketExists(ctx, b.bucket)
	switch {
	case err != nil:
		return fmt.Errorf("blob: %s: %w", b, err)
	case !ok:
		return fmt.Errorf("blob: %s: %w", b, ErrNoBucket)
	}
	return nil
}

// CloseIdleConnections closes the Bucket's idle connections.
func (b *Bucket) CloseIdleConnections() {
	if b.transport != nil {
		b.transport.CloseIdleConnections()
	}
}

func (b *Bucket) full(key string) string {
	if b.prefix == "" {
		return key
	}
	return b.prefix + "/" + key
}

func (b *Bucket) rel(full string) string {
	if b.prefix == "" {
		return full
	}
	return strings.TrimPrefix(full, b.prefix+"/")
}

// classify maps the server's answers that callers act on to the package's
// sentinel errors.
func classify(op, key string, err error) error {
	switch r := minio.ToErrorResponse(err); {
	case r.Code == "NoSuchKey" || r.Code == "NotFound" && r.StatusCode == http.StatusNotFound:
		return fmt.Errorf("blob: %s %s: %w", op, key, ErrNotFound)
	case r.Code == "PreconditionFailed" || r.StatusCode == http.StatusPreconditionFailed:
		return fmt.Errorf("blob: %s %s: %w", op, key, ErrExists)
	}
	return fmt.Errorf("blob: %s %s: %w", op, key, err)
}

// putOptions are the options of a PUT of size bytes (-1: unknown).
func (b *Bucket) putOptions(size int64) minio.PutObjectOptions {
	return minio.PutObjectOptions{PartSize: uint64(b.opts.PartSize), NumThreads: uint(b.opts.Threads),
		// Over plain HTTP the client signs the payload as it streams it
		// (aws-chunked), and for an empty object it then sends no
		// Content-Length, which S3 refuses (MissingContentLength): an
		// empty payload has nothing to sign.
		DisableContentSha256: size == 0}
}

// PutFile uploads the file at path to key and verifies the stored object
// (see the package doc). The file must not change meanwhile. An object
// under key is replaced; PutFileNew does not replace one.
func (b *Bucket) PutFile(ctx context.Context, key, path string) (Object, error) {
	return b.putFile(ctx, key, path, nil)
}

// PutFileNew uploads the file at path to key as PutFile does, but only
// if no object has the key (how: CreateConditional, or CreateLookFirst;
// Options.NoConditionalPut makes every PutFileNew look first). When the
// key is taken, the object there is compared with the file: the same
// bytes (an earlier upload of this file, say one whose answer was lost,
// or recorded by nobody before a crash) make PutFileNew succeed without
// writing, Object.Existed set; other bytes fail with ErrExists, the
// object left as it was and the returned Object carrying the file's MD5.
// A server that does not support If-None-Match (501 NotImplemented)
// fails with ErrNoConditional, having written nothing.
func (b *Bucket) PutFileNew(ctx context.Context, key, path string, how Create) (Object, error) {
	if b.opts.NoConditionalPut {
		how = CreateLookFirst
	}
	return b.putFile(ctx, key, path, &how)
}

// putFile is PutFile, create-only when how is not nil.
func (b *Bucket) putFile(ctx context.Context, key, path string, how *Create) (Object, error) {
	f, err := os.Open(path)
	if err != nil {
		return Object{}, fmt.Errorf("blob: put %s: %w", key, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Object{}, fmt.Errorf("blob: put %s: %w", key, err)
	}
	size := fi.Size()
	want, err := fileDigests(f, size, b.opts.PartSize)
	if err != nil {
		return Object{}, fmt.Errorf("blob: put %s: %w", key, err)
	}
	opts := b.putOptions(size)
	if how != nil {
		switch *how {
		case CreateLookFirst:
			if _, err := b.Stat(ctx, key); err == nil {
				return b.existing(ctx, key, want)
			} else if !errors.Is(err, ErrNotFound) {
				return Object{}, fmt.Errorf("blob: put %s: %w", key, err)
			}
		default:
			if size > b.opts.PartSize {
				// minio-go's PutObject sends the header with the
				// initiation of a multipart upload only, where S3 does
				// not check it: the completion must carry it.
				return b.putParts(ctx, key, f, size, want)
			}
			opts.SetMatchETagExcept("*")
		}
	}
	// A SectionReader reads the parts in place, from offset 0 whatever the
	// file's offset, and lets the client send several at once.
	if _, err := b.client.PutObject(ctx, b.bucket, b.full(key), io.NewSectionReader(f, 0, size), size, opts); err != nil {
		if how != nil && *how == CreateConditional {
			switch r := minio.ToErrorResponse(err); {
			case r.StatusCode == http.StatusNotImplemented || r.Code == "NotImplemented":
				return Object{}, fmt.Errorf("blob: put %s: %w", key, ErrNoConditional)
			case r.Code == "PreconditionFailed" || r.StatusCode == http.StatusPreconditionFailed:
				return b.existing(ctx, key, want)
			}
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

// Put uploads what r yields to key. With size < 0 the length is unknown
// and the content is streamed as a multipart upload, a part in memory at
// a time. The stored object's size is checked against what was read.
func (b *Bucket) Put(ctx context.Context, key string, r io.Reader, size int64) (Object, error) {
	cr := &countingReader{r: r}
	if _, err := b.client.PutObject(ctx, b.bucket, b.full(key), cr, size, b.putOptions(size)); err != nil {
		return Object{}, classify("put", key, err)
	}
	obj, err := b.Stat(ctx, key)
	if err != nil {
		return Object{}, fmt.Errorf("blob: put %s: verify: %w", key, err)
	}
	if obj.Size != cr.n || size >= 0 && obj.Size != size {
		return Object{}, fmt.Errorf("blob: put %s: verify: stored %d bytes, sent %d", key, obj.Size, cr.n)
	}
	return obj, nil
}

// existing compares the object under key, found there by a create-only
// put, with the file whose digests are want: the same bytes are the
// file's upload (Existed), other bytes ErrExists. An ETag that is the
// file's MD5 (or its multipart form with the client's part size) says
// the same; a plain MD5 that differs says other bytes; any other ETag
// (a multipart upload with other parts, an encrypted object) is settled
// by reading the object.
func (b *Bucket) existing(ctx context.Context, key string, want digests) (Object, error) {
	obj, err := b.Stat(ctx, key)
	if err != nil {
		return Object{}, fmt.Errorf("blob: put %s: the key exists: %w", key, err)
	}
	same := obj.Size == want.size
	switch {
	case !same:
	case obj.ETag == want.md5 || want.multipart != "" && obj.ETag == want.multipart:
	case md5ETag.MatchString(obj.ETag) && !strings.Contains(obj.ETag, "-"):
		same = false
	default:
		if same, err = b.contentMD5(ctx, key, want.md5); err != nil {
			return Object{}, fmt.Errorf("blob: put %s: the key exists: %w", key, err)
		}
	}
	if !same {
		return Object{Key: key, Size: want.size, MD5: want.md5}, fmt.Errorf("blob: put %s: %w with other content (%d bytes, ETag %s; the file has %d bytes, MD5 %s)", key, ErrExists, obj.Size, obj.ETag, want.size, want.md5)
	}
	obj.MD5, obj.Existed = want.md5, true
	return obj, nil
}

// contentMD5 reports whether the content of key has the MD5 sum (hex).
func (b *Bucket) contentMD5(ctx context.Context, key, sum string) (bool, error) {
	r, err := b.Get(ctx, key)
	if err != nil {
		return false, err
	}
	defer r.Close()
	h := md5.New()
	if _, err := io.Copy(h, r); err != nil {
		return false, fmt.Errorf("blob: get %s: %w", key, err)
	}
	return hex.EncodeToString(h.Sum(nil)) == sum, nil
}

// PutNew creates key with data, or fails with ErrExists when the key is
// taken. It is meant for small objects such as manifests: data goes in one
// request.
func (b *Bucket) PutNew(ctx context.Context, key string, data []byte) (Object, error) {
	opts := b.putOptions(int64(len(data)))
	opts.DisableMultipart = true
	if b.opts.NoConditionalPut {
		_, err := b.Stat(ctx, key)
		if err == nil {
			return Object{}, fmt.Errorf("blob: put %s: %w", key, ErrExists)
		}
		if !errors.Is(err, ErrNotFound) {
			return Object{}, err
		}
	} else {
		opts.SetMatchETagExcept("*")
	}
	info, err := b.client.PutObject(ctx, b.bucket, b.full(key), bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return Object{}, classify("put", key, err)
	}
	return Object{Key: key, Size: info.Size, ETag: strings.Trim(info.ETag, `"`), Modified: info.LastModified}, nil
}

// Get returns the content of key. The caller closes it.
func (b *Bucket) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	return b.get(ctx, key, minio.GetObjectOptions{})
}

// GetRange returns length bytes of key from offset: a WARC record read
// from its location. A range past the end of the object yields what
// there is; the caller checks the length it needs.
func (b *Bucket) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if offset < 0 || length <= 0 {
		return nil, fmt.Errorf("blob: get %s: bad range %d+%d", key, offset, length)
	}
	var opts minio.GetObjectOptions
	if err := opts.SetRange(offset, offset+length-1); err != nil {
		return nil, fmt.Errorf("blob: get %s: %w", key, err)
	}
	return b.get(ctx, key, opts)
}

func (b *Bucket) get(ctx context.Context, key string, opts minio.GetObjectOptions) (io.ReadCloser, error) {
	obj, err := b.client.GetObject(ctx, b.bucket, b.full(key), opts)
	if err != nil {
		return nil, classify("get", key, err)
	}
	// The request goes out on first use: make it now, so that a missing
	// object is an error here rather than on the first Read.
	if _, err := obj.Stat(); err != nil {
		obj.Close()
		return nil, classify("get", key, err)
	}
	return obj, nil
}

// Stat describes key.
func (b *Bucket) Stat(ctx context.Context, key string) (Object, error) {
	info, err := b.client.StatObject(ctx, b.bucket, b.full(key), minio.StatObjectOptions{})
	if err != nil {
		return Object{}, classify("stat", key, err)
	}
	return Object{Key: key, Size: info.Size, ETag: strings.Trim(info.ETag, `"`), Modified: info.LastModified}, nil
}

// List yields the objects whose keys start with prefix, in key order. A
// failed listing yields one error and stops.
func (b *Bucket) List(ctx context.Context, prefix string) iter.Seq2[Object, error] {
	return func(yield func(Object, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // ends the client's listing goroutine when the caller stops early
		full := prefix
		if b.prefix != "" {
			full = b.prefix + "/" + prefix
		}
		for info := range b.client.ListObjects(ctx, b.bucket, minio.ListObjectsOptions{Prefix: full, Recursive: true}) {
			if info.Err != nil {
				yield(Object{}, classify("list", prefix, info.Err))
				return
			}
			o := Object{Key: b.rel(info.Key), Size: info.Size, ETag: strings.Trim(info.ETag, `"`), Modified: info.LastModified}
			if !yield(o, nil) {
				return
			}
		}
	}
}

// Delete removes key. Deleting a missing key succeeds (S3 semantics).
func (b *Bucket) Delete(ctx context.Context, key string) error {
	if err := b.client.RemoveObject(ctx, b.bucket, b.full(key), minio.RemoveObjectOptions{}); err != nil {
		return classify("delete", key, err)
	}
	return nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
