// Package blobtest runs a real S3 API server in-process for tests:
// gofakes3 with its in-memory backend, over plain HTTP on loopback (it
// corrupts multipart uploads over TLS). A switch makes it answer 503 to
// everything, as a store that is down; every request is recorded, so tests
// judge uploads from the server side.
//
// Conditional writes are served as AWS S3 serves them: a PUT, or the
// completion of a multipart upload, with If-None-Match: * is refused with
// 412 PreconditionFailed when the key exists (gofakes3 checks PUTs; the
// completion is checked here). SetNoConditional makes the server answer
// such requests 501 NotImplemented instead, as stores without conditional
// writes do.
package blobtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/godwit-crawler/godwit/internal/blob"
)

// Credentials the server is given (gofakes3 does not check them, but the
// client signs with them).
const (
	AccessKey = "godwit-test"
	SecretKey = "godwit-test-secret"
	Region    = "us-east-1"
)

// Request is one request the server received.
type Request struct {
	Method string
	Path   string // /bucket/key
	Query  string
	Status int // 503 while down
}

// Server is an S3 API server on loopback.
type Server struct {
	URL    string // http://127.0.0.1:port
	Bucket string

	backend *s3mem.Backend
	srv     *httptest.Server
	down    atomic.Bool
	noCond  atomic.Bool

	mu       sync.Mutex
	requests []Request
}

// New starts a server with one bucket and stops it when the test ends.
func New(t testing.TB, bucket string) *Server {
	t.Helper()
	s := &Server{Bucket: bucket, backend: s3mem.New()}
	if err := s.backend.CreateBucket(bucket); err != nil {
		t.Fatalf("blobtest: create bucket: %v", err)
	}
	fake := gofakes3.New(s.backend, gofakes3.WithoutVersioning())
	h := fake.Server()
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
		if s.down.Load() {
			req.Status = http.StatusServiceUnavailable
			s.record(req)
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>down for a test</Message></Error>`)
			return
		}
		if r.Header.Get("If-None-Match") != "" && s.noCond.Load() {
			req.Status = http.StatusNotImplemented
			s.record(req)
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotImplemented)
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>A header you provided implies functionality that is not implemented</Message><Header>If-None-Match</Header></Error>`)
			return
		}
		if r.Method == http.MethodPost && r.URL.Query().Has("uploadId") && r.Header.Get("If-None-Match") == "*" {
			// gofakes3 completes a multipart upload whatever the
			// condition: check it here, as S3 does.
			bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
			if _, err := s.backend.HeadObject(bucket, key); err == nil {
				req.Status = http.StatusPreconditionFailed
				s.record(req)
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusPreconditionFailed)
				_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>`)
				return
			}
		}
		if r.Method == http.MethodPut && r.URL.Query().Has("partNumber") &&
			r.Header.Get("X-Amz-Content-Sha256") == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" {
			// gofakes3 decodes aws-chunked bodies of whole objects but
			// stores the parts of a multipart upload still framed: decode
			// them here, as a real server does.
			n, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64)
			if err != nil {
				http.Error(w, "no X-Amz-Decoded-Content-Length", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(&chunkedReader{r: bufio.NewReader(r.Body)})
			r.ContentLength = n
			r.Header.Set("Content-Length", strconv.FormatInt(n, 10))
			r.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
			r.Header.Del("Content-Encoding")
		}
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		req.Status = rec.status
		s.record(req)
	}))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
}

// SetDown makes the server answer every request with 503 SlowDown (true)
// or serve again (false).
func (s *Server) SetDown(down bool) { s.down.Store(down) }

// SetNoConditional makes the server answer every request with an
// If-None-Match header 501 NotImplemented (true), as a store without
// conditional writes, or honour the header again (false).
func (s *Server) SetNoConditional(no bool) { s.noCond.Store(no) }

// Put stores data under key directly in the backend (another writer's
// object).
func (s *Server) Put(t testing.TB, key string, data []byte) {
	t.Helper()
	meta := map[string]string{"Last-Modified": time.Now().UTC().Format(http.TimeFormat)}
	if _, err := s.backend.PutObject(s.Bucket, key, meta, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatalf("blobtest: put %s: %v", key, err)
	}
}

// Options are blob.Options that reach the server: path style, one try
// per request, the smallest part size.
func (s *Server) Options() blob.Options {
	return blob.Options{
		Endpoint:   s.URL,
		Region:     Region,
		AccessKey:  AccessKey,
		SecretKey:  SecretKey,
		PathStyle:  true,
		PartSize:   blob.MinPartSize,
		MaxRetries: 1,
	}
}

// Env is the environment that points a godwit process at the server.
func (s *Server) Env() []string {
	return []string{
		"AWS_ENDPOINT_URL_S3=" + s.URL,
		"AWS_REGION=" + Region,
		"AWS_ACCESS_KEY_ID=" + AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + SecretKey,
	}
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Puts counts the successful requests that stored a whole object under
// key (a PUT without a part number, or the completion of a multipart
// upload).
func (s *Server) Puts(key string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Path != "/"+s.Bucket+"/"+key || r.Status/100 != 2 {
			continue
		}
		switch {
		case r.Method == http.MethodPut && !strings.Contains(r.Query, "partNumber="):
			n++
		case r.Method == http.MethodPost && strings.Contains(r.Query, "uploadId="):
			n++
		}
	}
	return n
}

// Keys lists the bucket's keys that start with prefix, read from the
// backend directly.
func (s *Server) Keys(t testing.TB, prefix string) []string {
	t.Helper()
	p := gofakes3.NewPrefix(&prefix, nil)
	list, err := s.backend.ListBucket(s.Bucket, &p, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatalf("blobtest: list: %v", err)
	}
	var keys []string
	for _, c := range list.Contents {
		keys = append(keys, c.Key)
	}
	slices.Sort(keys)
	return keys
}

// Object returns the content of key, read from the backend directly.
func (s *Server) Object(t testing.TB, key string) []byte {
	t.Helper()
	obj, err := s.backend.GetObject(s.Bucket, key, nil)
	if err != nil {
		t.Fatalf("blobtest: get %s: %v", key, err)
	}
	defer obj.Contents.Close()
	b, err := io.ReadAll(obj.Contents)
	if err != nil {
		t.Fatalf("blobtest: get %s: %v", key, err)
	}
	return b
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// chunkedReader decodes an aws-chunked body (SigV4 streaming upload):
// chunks of "hex-size;chunk-signature=...\r\n" data "\r\n", the last of
// size 0. Signatures are not checked.
type chunkedReader struct {
	r    *bufio.Reader
	left int64
	done bool
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	for c.left == 0 {
		if c.done {
			return 0, io.EOF
		}
		line, err := c.r.ReadString('\n')
		if err != nil {
			return 0, fmt.Errorf("blobtest: aws-chunked: %w", err)
		}
		size, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		n, err := strconv.ParseInt(size, 16, 64)
		if err != nil || n < 0 {
			return 0, errors.New("blobtest: aws-chunked: bad chunk size")
		}
		if n == 0 {
			c.done = true
			return 0, io.EOF
		}
		c.left = n
	}
	m, err := c.r.Read(p[:min(int64(len(p)), c.left)])
	c.left -= int64(m)
	if c.left == 0 && err == nil {
		if _, err = c.r.Discard(2); err != nil { // the chunk's trailing CRLF
			return m, fmt.Errorf("blobtest: aws-chunked: %w", err)
		}
	}
	return m, err
}
