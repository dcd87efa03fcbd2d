package archive

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/warc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func response(url, body string) *fetch.Response {
	return &fetch.Response{
		URL:        url,
		Status:     200,
		Proto:      "HTTP/1.1",
		Header:     http.Header{"Content-Type": {"text/html"}},
		Body:       []byte(body),
		IP:         "192.0.2.7",
		Start:      time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		End:        time.Date(2026, 11, 21, 12, 0, 1, 0, time.UTC),
		RawRequest: []byte("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n"),
		RawHeader:  []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"),
	}
}

// TestRecordAndLoad: every exchange becomes a request and a response
// record, and a capture reads back as the response it came from, before
// and after its file is closed and renamed.
func TestRecordAndLoad(t *testing.T) {
	dir := t.TempDir()
	a, err := New(warc.WriterConfig{Dir: dir, MaxSize: 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	var caps []crawl.Capture
	for i, u := range []string{"http://a.test/", "http://a.test/x"} {
		c, err := a.Record(ctx, crawl.Task{}, response(u, strings.Repeat("x", i+1)), crawl.Decision{})
		if err != nil {
			t.Fatal(err)
		}
		caps = append(caps, c)
	}
	check := func(when string) {
		for i, c := range caps {
			got, err := a.Load(ctx, c)
			if err != nil {
				t.Fatalf("%s: Load(%+v): %v", when, c, err)
			}
			want := response([]string{"http://a.test/", "http://a.test/x"}[i], strings.Repeat("x", i+1))
			if got.URL != want.URL || got.Status != 200 || !bytes.Equal(got.Body, want.Body) ||
				got.Header.Get("Content-Type") != "text/html" || got.IP != want.IP {
				t.Errorf("%s: Load(%+v) = %+v, want %+v", when, c, got, want)
			}
		}
	}
	check("while writing")
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	check("after close")

	// Each file: warcinfo, then request + response with the expected fields.
	files, _ := filepath.Glob(filepath.Join(dir, "*"+warc.Ext))
	if len(files) != 2 {
		t.Fatalf("%d files %v, want 2 (MaxSize 1 rotates after every group)", len(files), files)
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := warc.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		var reqConcurrent, respID string
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			types = append(types, rec.Type)
			switch rec.Type {
			case warc.TypeRequest:
				reqConcurrent = rec.Header.Get(warc.FieldConcurrentTo)
			case warc.TypeResponse:
				respID = rec.Header.Get(warc.FieldRecordID)
				if got := rec.Header.Get(warc.FieldPayloadDigest); got != warc.Digest("sha1", response("", "x").Body) &&
					got != warc.Digest("sha1", []byte("xx")) {
					t.Errorf("payload digest %s does not match the body", got)
				}
				if err := warc.VerifyBlockDigest(rec); err != nil {
					t.Error(err)
				}
			}
		}
		f.Close()
		if strings.Join(types, ",") != "warcinfo,request,response" {
			t.Errorf("%s: records %v", filepath.Base(name), types)
		}
		if reqConcurrent == "" || reqConcurrent != respID {
			t.Errorf("request's WARC-Concurrent-To %q, response's ID %q", reqConcurrent, respID)
		}
	}
}

func TestTruncatedIsMarked(t *testing.T) {
	dir := t.TempDir()
	a, err := New(warc.WriterConfig{Dir: dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	resp := response("http://a.test/big", "cut here")
	resp.Truncated = fetch.TruncatedLength
	c, err := a.Record(t.Context(), crawl.Task{}, resp, crawl.Decision{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Load(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got.Truncated != fetch.TruncatedLength {
		t.Errorf("WARC-Truncated = %q, want %q", got.Truncated, fetch.TruncatedLength)
	}
}

func TestLoadRejectsPaths(t *testing.T) {
	a, err := New(warc.WriterConfig{Dir: t.TempDir()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Load(t.Context(), crawl.Capture{File: "../etc/passwd"}); err == nil {
		t.Error("Load accepted a path outside the WARC directory")
	}
}

// TestNoArchiveOmitsBody: a noarchive page's response record keeps only
// the HTTP header, and a metadata record says why.
func TestNoArchiveOmitsBody(t *testing.T) {
	dir := t.TempDir()
	a, err := New(warc.WriterConfig{Dir: dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	resp := response("http://a.test/secret", "do not keep me")
	if _, err := a.Record(t.Context(), crawl.Task{}, resp, crawl.Decision{OmitBody: true, Signals: []string{"noarchive"}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	var respID string
	var sawMeta bool
	for _, rec := range records(t, dir) {
		switch rec.Type {
		case warc.TypeResponse:
			respID = rec.Header.Get(warc.FieldRecordID)
			if bytes.Contains(rec.Block, []byte("do not keep me")) || rec.Header.Get(warc.FieldTruncated) != "unspecified" ||
				rec.Header.Get(warc.FieldPayloadDigest) != "" {
				t.Errorf("noarchive response record kept its body or lacks the truncation mark: %q %v", rec.Block, rec.Header.Fields())
			}
		case warc.TypeMetadata:
			sawMeta = true
			if rec.Header.Get(warc.FieldRefersTo) != respID || !strings.Contains(string(rec.Block), "robots: noarchive") ||
				!strings.Contains(string(rec.Block), "payload omitted") {
				t.Errorf("metadata record = %v %q", rec.Header.Fields(), rec.Block)
			}
		}
	}
	if !sawMeta {
		t.Error("no metadata record")
	}
}

// TestLoadChunked: a capture stored with its chunked framing loads back
// de-chunked, and one cut mid-chunk loads the entity received so far.
func TestLoadChunked(t *testing.T) {
	a, err := New(warc.WriterConfig{Dir: t.TempDir()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, tt := range []struct {
		raw, want, truncated string
	}{
		{"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world", ""},
		{"5\r\nhello\r\n6\r\n wo", "hello wo", "length"},
	} {
		resp := response("http://a.test/c", tt.want)
		resp.RawHeader = []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
		resp.RawBody = []byte(tt.raw)
		resp.Truncated = tt.truncated
		c, err := a.Record(t.Context(), crawl.Task{}, resp, crawl.Decision{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.Load(t.Context(), c)
		if err != nil || string(got.Body) != tt.want || got.Truncated != tt.truncated {
			t.Errorf("Load(%q) = %q (truncated %q), %v; want %q", tt.raw, got.Body, got.Truncated, err, tt.want)
		}
	}
}

// TestMetadataEmbeds: a page's requisites are listed in its metadata
// record as embed fields after its outlinks; a stylesheet with requisites
// and nothing else gets a metadata record for them.
func TestMetadataEmbeds(t *testing.T) {
	for _, tc := range []struct {
		d    crawl.Decision
		want []string
	}{
		{crawl.Decision{Title: "T", Outlinks: []string{"http://a.test/x"}, Embeds: []string{"http://a.test/s.css", "http://cdn.test/i.png"}},
			[]string{"title T", "outlink http://a.test/x", "embed http://a.test/s.css", "embed http://cdn.test/i.png"}},
		{crawl.Decision{Embeds: []string{"http://a.test/font.woff2"}}, []string{"embed http://a.test/font.woff2"}},
	} {
		rec := metadataRecord(response("http://a.test/", "x"), "<urn:uuid:1>", tc.d, false, original{}, 0, false)
		if rec == nil {
			t.Fatalf("no metadata record for %+v", tc.d)
		}
		fields, err := warc.ParseFields(rec.Block)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fields {
			if f.Name != "fetch-time-ms" && f.Name != "ttfb-ms" {
				got = append(got, f.Name+" "+f.Value)
			}
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("metadata fields %q, want %q", got, tc.want)
		}
	}
}

// TestProtocolFields: the request and response records name the
// exchange's protocols, one WARC-Protocol field each, HTTP first.
func TestProtocolFields(t *testing.T) {
	dir := t.TempDir()
	a, err := New(warc.WriterConfig{Dir: dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	resp := response("https://a.test/", "over h2")
	resp.Protocol, resp.TLSVersion, resp.Proto = "h2", "tls/1.3", "HTTP/2.0"
	resp.RawHeader = []byte("HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n\r\n") // fetch's HTTP/1.1 form
	c, err := a.Record(t.Context(), crawl.Task{}, resp, crawl.Decision{})
	if err != nil {
		t.Fatal(err)
	}
	// The crawler's own replay reads the HTTP/1.1 form back.
	if got, err := a.Load(t.Context(), c); err != nil || string(got.Body) != "over h2" || got.Header.Get("Content-Type") != "text/html" {
		t.Errorf("Load of the h2 capture = %+v, %v", got, err)
	}
	plain := response("http://a.test/", "plain")
	plain.Protocol = "http/1.1"
	if _, err := a.Record(t.Context(), crawl.Task{}, plain, crawl.Decision{}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"https://a.test/": "h2,tls/1.3", "http://a.test/": "http/1.1"}
	n := 0
	for _, rec := range records(t, dir) {
		if rec.Type != warc.TypeRequest && rec.Type != warc.TypeResponse {
			continue
		}
		n++
		uri := rec.Header.Get(warc.FieldTargetURI)
		if got := strings.Join(rec.Header.Values(warc.FieldProtocol), ","); got != want[uri] {
			t.Errorf("%s record of %s: WARC-Protocol %q, want %q", rec.Type, uri, got, want[uri])
		}
	}
	if n != 4 {
		t.Errorf("%d request and response records, want 4", n)
	}
}

// TestRecordFailure: a request that got no response is one metadata
// record of its own, with the failure's fields, dated when the request
// started, referring to nothing; the CDXJ index has no line for it, and
// the file verifies.
func TestRecordFailure(t *testing.T) {
	dir := t.TempDir()
	a, err := New(warc.WriterConfig{Dir: dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := a.Record(ctx, crawl.Task{}, response("http://a.test/", "x"), crawl.Decision{}); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	f := crawl.Failure{
		URL: "https://b.test/robots.txt", Start: start, End: start.Add(42 * time.Millisecond), Attempt: 1,
		Kind: "tls-expired", Class: "permanent", Detail: "TLS failed (expired): x509: certificate has expired", IP: "192.0.2.9",
	}
	if err := a.RecordFailure(ctx, f); err != nil {
		t.Fatal(err)
	}
	if got := a.Stats().Failures; got != 1 {
		t.Errorf("Stats().Failures = %d, want 1", got)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	var meta []*warc.Record
	for _, rec := range records(t, dir) {
		if rec.Header.Get(warc.FieldTargetURI) == f.URL {
			meta = append(meta, rec)
		}
	}
	if len(meta) != 1 || meta[0].Type != warc.TypeMetadata {
		t.Fatalf("records of %s: %d, want one metadata record", f.URL, len(meta))
	}
	h := meta[0].Header
	for field, want := range map[string]string{
		warc.FieldDate: "2026-11-27T04:00:00Z", warc.FieldIPAddress: "192.0.2.9",
		warc.FieldContentType: warc.ContentTypeWarcFields, warc.FieldRefersTo: "",
	} {
		if got := h.Get(field); got != want {
			t.Errorf("%s = %q, want %q", field, got, want)
		}
	}
	fields, err := warc.ParseFields(meta[0].Block)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fl := range fields {
		got = append(got, fl.Name+": "+fl.Value)
	}
	want := []string{"fetch-error: tls-expired", "fetch-error-class: permanent",
		"fetch-error-detail: TLS failed (expired): x509: certificate has expired", "fetch-attempt: 1", "fetch-time-ms: 42"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("fields %q, want %q", got, want)
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*"+warc.Ext))
	if len(files) != 1 {
		t.Fatalf("%d files, want 1", len(files))
	}
	index, err := os.ReadFile(warc.CDXJName(files[0]))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(index), "\n"); lines != 1 || strings.Contains(string(index), "b.test") {
		t.Errorf("index %q: want the page's response alone", index)
	}
	v := warc.NewVerifier(warc.VerifyOptions{})
	fh, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if err := v.File(fh, filepath.Base(files[0])); err != nil {
		t.Fatal(err)
	}
	if problems, _ := v.Finish(); len(problems) > 0 {
		t.Errorf("the file does not verify: %v", problems)
	}
}

// TestSimhashHex: the metadata record's simhash value is what
// fmt.Sprintf("%016x") gave before simhashHex replaced it.
func TestSimhashHex(t *testing.T) {
	for _, v := range []uint64{0, 1, 0x09f47f6d1b8848d4, 0xf000000000000000, ^uint64(0)} {
		if got, want := simhashHex(v), fmt.Sprintf("%016x", v); got != want {
			t.Errorf("simhashHex(%#x) = %q, want %q", v, got, want)
		}
	}
}
