package warc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWriteRoundTrip(t *testing.T) {
	cfg := testConfig(t)
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var written []*Record
	var locs []Location
	for i, n := range []int{0, 1, 20 << 10} {
		req, resp := exchange(fmt.Sprintf("http://example.com/%d", i), n)
		l, err := w.Write(req, resp)
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, req, resp)
		locs = append(locs, l...)
	}
	others := otherRecords(written[1])
	l, err := w.Write(others...)
	if err != nil {
		t.Fatal(err)
	}
	written = append(written, others...)
	locs = append(locs, l...)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	name := w.Files()[0]
	if want := "godwit-20250304050607010-00000-node1.warc.gz"; name != want {
		t.Errorf("file name = %q, want %q", name, want)
	}
	data := readFile(t, filepath.Join(cfg.Dir, name))
	got, gotLocs, err := readAll(t, data)
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	if len(got) != len(written)+1 {
		t.Fatalf("read %d records, want %d (warcinfo + %d)", len(got), len(written)+1, len(written))
	}
	info := got[0]
	if info.Type != TypeWarcinfo || info.Header.Get(FieldFilename) != name ||
		info.Header.Get(FieldContentType) != ContentTypeWarcFields || info.Header.Has(FieldWarcinfoID) {
		t.Errorf("warcinfo header = %q", info.Header.Fields())
	}
	fields, err := ParseFields(info.Block)
	if err != nil {
		t.Fatal(err)
	}
	wantInfo := Header{fields: fields}
	for name, want := range map[string]string{
		"software": "godwit/test", "operator": "tests", "format": "WARC File Format 1.1", "conformsTo": ConformsTo,
	} {
		if got := wantInfo.Get(name); got != want {
			t.Errorf("warcinfo %s = %q, want %q", name, got, want)
		}
	}
	infoID := info.Header.Get(FieldRecordID)
	for i, rec := range got[1:] {
		want := written[i]
		if rec.Version != Version || rec.Type != want.Type || !bytes.Equal(rec.Block, want.Block) {
			t.Errorf("record %d: %s %s %d bytes, want %s %d bytes", i, rec.Version, rec.Type, len(rec.Block), want.Type, len(want.Block))
		}
		if !slices.Equal(rec.Header.Fields(), want.Header.Fields()) {
			t.Errorf("record %d header:\n got %q\nwant %q", i, rec.Header.Fields(), want.Header.Fields())
		}
		if err := VerifyBlockDigest(rec); err != nil {
			t.Errorf("record %d: VerifyBlockDigest: %v", i, err)
		}
		if got := rec.Header.Get(FieldWarcinfoID); got != infoID {
			t.Errorf("record %d: %s = %q, want %q", i, FieldWarcinfoID, got, infoID)
		}
		loc := locs[i]
		if loc.File != name || loc.Offset != gotLocs[i+1].Offset || loc.Length != gotLocs[i+1].Length {
			t.Errorf("record %d: Location = %+v, reader saw %+v", i, loc, gotLocs[i+1])
		}
		// A location alone gives exactly one record.
		one, _, err := readAll(t, data[loc.Offset:loc.Offset+loc.Length])
		if err != nil || len(one) != 1 || one[0].Header.Get(FieldRecordID) != rec.Header.Get(FieldRecordID) {
			t.Errorf("record %d: reading at its Location gave %d records, %v", i, len(one), err)
		}
	}
	// One capture event, one WARC-Date.
	if written[0].Header.Get(FieldDate) != written[1].Header.Get(FieldDate) {
		t.Errorf("request and response dates differ: %q, %q", written[0].Header.Get(FieldDate), written[1].Header.Get(FieldDate))
	}
	// Field order: WARC-Type, ID, date first; computed fields last.
	names := func(r *Record) []string {
		var ns []string
		for _, f := range r.Header.Fields() {
			ns = append(ns, f.Name)
		}
		return ns
	}
	wantNames := []string{FieldType, FieldRecordID, FieldDate, FieldTargetURI, FieldConcurrentTo, FieldIPAddress,
		FieldContentType, FieldPayloadDigest, FieldWarcinfoID, FieldBlockDigest, FieldContentLength}
	if got := names(written[1]); !slices.Equal(got, wantNames) {
		t.Errorf("response field order = %q, want %q", got, wantNames)
	}
	// Uncompressed, the file is the same records.
	plain, _, err := readAll(t, gunzip(t, data))
	if err != nil || len(plain) != len(got) {
		t.Errorf("reading the gunzipped file: %d records, %v; want %d", len(plain), err, len(got))
	}
}

func TestWriteKeepsCallerFields(t *testing.T) {
	w, err := NewWriter(testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec := &Record{Block: []byte("x")}
	rec.Header.Set(FieldType, TypeResource)
	rec.Header.Set(FieldTargetURI, "urn:x")
	rec.Header.Set(FieldRecordID, "<urn:uuid:00000000-0000-4000-8000-000000000000>")
	rec.Header.Set(FieldDate, "2001-02-03T04:05:06.789Z")
	rec.Header.Set(FieldContentLength, "999")
	rec.Header.Set(FieldBlockDigest, "sha1:WRONG")
	rec.Header.Set(FieldWarcinfoID, "<urn:other-file>")
	if _, err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	h := &rec.Header
	if rec.Type != TypeResource || h.Get(FieldRecordID) != "<urn:uuid:00000000-0000-4000-8000-000000000000>" ||
		h.Get(FieldDate) != "2001-02-03T04:05:06.789Z" || h.Get(FieldContentLength) != "1" ||
		h.Get(FieldBlockDigest) != Digest("sha1", []byte("x")) || h.Get(FieldWarcinfoID) == "<urn:other-file>" {
		t.Errorf("header after Write = %q", h.Fields())
	}
	if n := len(h.Values(FieldContentLength)); n != 1 {
		t.Errorf("%d Content-Length fields", n)
	}
}

func TestWriteRejects(t *testing.T) {
	const uri = "http://example.com/"
	tests := []struct {
		name string
		rec  *Record
		want string // in the error
	}{
		{"nil", nil, "nil record"},
		{"no type", &Record{}, "no type"},
		{"type mismatch", rec(TypeResource, FieldTargetURI, uri, FieldType, TypeResponse), "disagrees"},
		{"CRLF in value", rec(TypeResource, FieldTargetURI, "http://x/\r\nWARC-Type: response"), "control byte"},
		{"bad name", rec(TypeResource, FieldTargetURI, uri, "Bad Name", "v"), "invalid byte"},
		{"bad record ID", rec(TypeResource, FieldTargetURI, uri, FieldRecordID, "urn:uuid:no-brackets"), "not a <uri>"},
		{"bad concurrent-to", rec(TypeResource, FieldTargetURI, uri, FieldConcurrentTo, "<with space>"), "not a <uri>"},
		{"bad date", rec(TypeResource, FieldTargetURI, uri, FieldDate, "2001-02-03"), "date"},
		{"repeated date", rec(TypeResource, FieldTargetURI, uri, FieldDate, "2001-02-03T04:05:06Z", FieldDate, "2001-02-03T04:05:07Z"), "repeated"},
		{"repeated in other case", rec(TypeResource, FieldTargetURI, uri, FieldRefersTo, "<urn:x:1>", "warc-refers-to", "<urn:x:2>"), "WARC-Refers-To repeated"},
		{"bad refers-to in other case", rec(TypeResource, FieldTargetURI, uri, "warc-refers-to", "urn:x:1"), "not a <uri>"},
		{"no target URI", rec(TypeResponse), "without WARC-Target-URI"},
		{"target URI on warcinfo", rec(TypeWarcinfo, FieldTargetURI, uri), "warcinfo record with"},
		{"space in target URI", rec(TypeResponse, FieldTargetURI, "http://x/a b"), "RFC 3986"},
		{"revisit without profile", rec(TypeRevisit, FieldTargetURI, uri), "without WARC-Profile"},
		{"revisit without payload digest", rec(TypeRevisit, FieldTargetURI, uri, FieldProfile, ProfileIdenticalPayloadDigest), "without WARC-Payload-Digest"},
		{"revisit block not marked truncated", &Record{Type: TypeRevisit, Block: []byte("HTTP/1.1 200 OK\r\n\r\n"), Header: rec("",
			FieldTargetURI, uri, FieldProfile, ProfileIdenticalPayloadDigest, FieldPayloadDigest, Digest("sha1", nil)).Header}, "WARC-Truncated"},
	}
	w, err := NewWriter(testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			locs, err := w.Write(resource(), tt.rec)
			if err == nil || !strings.HasPrefix(err.Error(), "warc: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Write = %v, %v; want a warc: error mentioning %q", locs, err, tt.want)
			}
		})
	}
	if files := w.Files(); len(files) != 0 {
		t.Errorf("rejected groups opened files %v", files)
	}
}

func resource() *Record { return rec(TypeResource, FieldTargetURI, "urn:x") }

func rec(typ string, kv ...string) *Record {
	r := &Record{Type: typ}
	for i := 0; i < len(kv); i += 2 {
		r.Header.Add(kv[i], kv[i+1])
	}
	return r
}

func TestWriterOpensNothingUntilWrite(t *testing.T) {
	cfg := testConfig(t)
	cfg.Dir = filepath.Join(cfg.Dir, "sub", "dir")
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("NewWriter created %s (%v)", cfg.Dir, err)
	}
	if locs, err := w.Write(); locs != nil || err != nil {
		t.Errorf("Write() = %v, %v; want nothing", locs, err)
	}
	if err := w.Sync(); err != nil {
		t.Errorf("Sync before any write: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an unused Writer created %s", cfg.Dir)
	}
}

func TestWriterClose(t *testing.T) {
	cfg := testConfig(t)
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(resource()); err != nil {
		t.Fatal(err)
	}
	name := w.Files()[0]
	if _, err := os.Stat(filepath.Join(cfg.Dir, name+OpenSuffix)); err != nil {
		t.Errorf("file being written is not named %s: %v", name+OpenSuffix, err)
	}
	if err := w.Sync(); err != nil {
		t.Error(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if _, err := w.Write(resource()); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
	if err := w.Rotate(); !errors.Is(err, ErrClosed) {
		t.Errorf("Rotate after Close = %v, want ErrClosed", err)
	}
	entries, _ := os.ReadDir(cfg.Dir)
	if len(entries) != 1 || entries[0].Name() != name {
		t.Errorf("directory holds %v, want only %s", entries, name)
	}
}

func TestRotation(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxSize = 4 << 10
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var groups [][]Location
	for i := range 12 {
		req, resp := exchange(fmt.Sprintf("http://example.com/%d", i), 1500)
		locs, err := w.Write(req, resp)
		if err != nil {
			t.Fatal(err)
		}
		groups = append(groups, locs)
		if i == 5 {
			if err := w.Rotate(); err != nil {
				t.Fatal(err)
			}
			continue // Rotate left no file open
		}
		// Only the current file is open.
		files := w.Files()
		for j, f := range files {
			_, errOpen := os.Stat(filepath.Join(cfg.Dir, f+OpenSuffix))
			_, errDone := os.Stat(filepath.Join(cfg.Dir, f))
			if last := j == len(files)-1; (errOpen == nil) != last || (errDone == nil) == last {
				t.Fatalf("after group %d, file %s: open %v, complete %v", i, f, errOpen == nil, errDone == nil)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	if len(files) < 3 {
		t.Fatalf("Files() = %v, want several files", files)
	}
	entries, err := os.ReadDir(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, e := range entries {
		onDisk = append(onDisk, e.Name())
	}
	if !slices.Equal(onDisk, files) { // names sort by time, then serial
		t.Errorf("directory = %v, Files() = %v", onDisk, files)
	}
	for i, f := range files {
		if !strings.Contains(f, fmt.Sprintf("-%05d-node1", i)) {
			t.Errorf("file %d is %s: serial out of order", i, f)
		}
		data := readFile(t, filepath.Join(cfg.Dir, f))
		recs, _, err := readAll(t, data)
		if err != nil || len(recs) < 3 || recs[0].Type != TypeWarcinfo || recs[0].Header.Get(FieldFilename) != f {
			t.Fatalf("file %s: %d records, %v; want warcinfo naming the file first", f, len(recs), err)
		}
		if len(recs)%2 != 1 {
			t.Errorf("file %s: a group was split (%d records)", f, len(recs))
		}
		if size := int64(len(data)); i < len(files)-1 && size < cfg.MaxSize && f != groups[5][0].File {
			t.Errorf("file %s rotated at %d bytes, before MaxSize %d", f, size, cfg.MaxSize)
		}
	}
	for i, g := range groups {
		if g[0].File != g[1].File || g[1].Offset != g[0].Offset+g[0].Length {
			t.Errorf("group %d split or not contiguous: %+v", i, g)
		}
	}
}

// TestRotationTinyMaxSize: with a MaxSize smaller than a warcinfo record,
// every file still holds its warcinfo and exactly one group, never a
// warcinfo alone.
func TestRotationTinyMaxSize(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxSize = 1
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		req, resp := exchange(fmt.Sprintf("http://example.com/%d", i), 10)
		if _, err := w.Write(req, resp); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	if len(files) != 3 {
		t.Fatalf("Files() = %v, want one file per group", files)
	}
	for _, f := range files {
		recs, _, err := readAll(t, readFile(t, filepath.Join(cfg.Dir, f)))
		if err != nil || len(recs) != 3 || recs[0].Type != TypeWarcinfo {
			t.Errorf("file %s: %d records, %v; want warcinfo + request + response", f, len(recs), err)
		}
	}
}

// TestConcurrentWrites runs workers sharing one Writer with rotation
// happening under them: every group must stay whole, in one file, pointing
// at that file's warcinfo.
func TestConcurrentWrites(t *testing.T) {
	cfg := testConfig(t)
	cfg.Now = nil // the real clock: fixedClock is not safe for concurrent use
	cfg.MaxSize = 16 << 10
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const workers, perWorker = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := range workers {
		wg.Go(func() {
			for i := range perWorker {
				req, resp := exchange(fmt.Sprintf("http://example.com/%d/%d", g, i), 100*i)
				if _, err := w.Write(req, resp); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range w.Files() {
		recs, _, err := readAll(t, readFile(t, filepath.Join(cfg.Dir, f)))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		infoID := recs[0].Header.Get(FieldRecordID)
		for i := 1; i < len(recs); i += 2 {
			req, resp := recs[i], recs[i+1]
			if req.Type != TypeRequest || resp.Header.Get(FieldConcurrentTo) != req.Header.Get(FieldRecordID) {
				t.Fatalf("%s: records %d, %d are not one group", f, i, i+1)
			}
			for _, r := range []*Record{req, resp} {
				if r.Header.Get(FieldWarcinfoID) != infoID {
					t.Errorf("%s: record %s points at warcinfo %s, want %s", f, r.Header.Get(FieldRecordID), r.Header.Get(FieldWarcinfoID), infoID)
				}
				if err := VerifyBlockDigest(r); err != nil {
					t.Error(err)
				}
			}
			total++
		}
	}
	if total != workers*perWorker {
		t.Errorf("read %d groups, wrote %d", total, workers*perWorker)
	}
}

func TestSHA256(t *testing.T) {
	cfg := testConfig(t)
	cfg.Digest = "sha256"
	_, resp, _ := writeOne(t, cfg, 100)
	d := resp.Header.Get(FieldBlockDigest)
	if !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+56 || !strings.HasSuffix(d, "====") {
		t.Errorf("block digest = %q, want sha256: and padded base32", d)
	}
	if err := VerifyBlockDigest(resp); err != nil {
		t.Error(err)
	}
}

func TestFileName(t *testing.T) {
	tm := time.Date(2024, 12, 31, 23, 59, 58, 7654321, time.FixedZone("CET", 3600))
	if got, want := FileName("crawl", tm, 42, "host-1"), "crawl-20241231225958007-00042-host-1.warc.gz"; got != want {
		t.Errorf("FileName = %q, want %q", got, want)
	}
}

func TestFileNameCollision(t *testing.T) {
	cfg := testConfig(t)
	cfg.Now = func() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) }
	taken := filepath.Join(cfg.Dir, FileName(DefaultPrefix, cfg.Now(), 0, cfg.Node))
	if err := os.WriteFile(taken, []byte("earlier run"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(resource()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.Files(); len(got) != 1 || !strings.Contains(got[0], "-00001-") {
		t.Errorf("Files() = %v, want serial 1 after a taken serial 0", got)
	}
	if string(readFile(t, taken)) != "earlier run" {
		t.Errorf("existing file was overwritten")
	}
}

func TestConfig(t *testing.T) {
	var c WriterConfig
	c.Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("zero config after Default: %v", err)
	}
	if c.Dir != "." || c.Prefix != "godwit" || c.MaxSize != 1<<30 || c.Digest != "sha1" || c.Node == "" {
		t.Errorf("defaults = %+v", c)
	}
	info := Header{fields: c.Info}
	for _, name := range []string{"software", "format", "conformsTo"} {
		if !info.Has(name) {
			t.Errorf("default Info lacks %s", name)
		}
	}
	mine := []Field{{"software", "mine"}}
	c2 := WriterConfig{Info: mine[:1:1]}
	c2.Default()
	if mine[0].Value != "mine" || (&Header{fields: c2.Info}).Get("software") != "mine" {
		t.Errorf("Default overrode or modified the caller's Info")
	}

	tests := []struct {
		name   string
		modify func(*WriterConfig)
	}{
		{"no dir", func(c *WriterConfig) { c.Dir = "" }},
		{"slash in prefix", func(c *WriterConfig) { c.Prefix = "a/b" }},
		{"dot-dot node", func(c *WriterConfig) { c.Node = ".." }},
		{"space in node", func(c *WriterConfig) { c.Node = "my host" }},
		{"negative size", func(c *WriterConfig) { c.MaxSize = -1 }},
		{"md5", func(c *WriterConfig) { c.Digest = "md5" }},
		{"no clock", func(c *WriterConfig) { c.Now = nil }},
		{"bad info", func(c *WriterConfig) { c.Info = []Field{{"a b", "c"}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := WriterConfig{}
			c.Default()
			tt.modify(&c)
			if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), "warc: ") {
				t.Errorf("Validate() = %v, want a warc: error", err)
			}
		})
	}
	if got := sanitizeName("crawl01.example.org"); got != "crawl01.example.org" {
		t.Errorf("sanitizeName kept = %q", got)
	}
	if got := sanitizeName("a b/c"); got != "a-b-c" {
		t.Errorf("sanitizeName(%q) = %q, want a-b-c", "a b/c", got)
	}
	if got := sanitizeName(""); got != "localhost" {
		t.Errorf("sanitizeName(\"\") = %q", got)
	}
}

func TestDigest(t *testing.T) {
	if got, want := Digest("sha1", nil), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"; got != want {
		t.Errorf("Digest(sha1, empty) = %q, want %q", got, want)
	}
	d, err := NewDigester("sha256")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(d, "ab")
	_, _ = io.WriteString(d, "c")
	if got := d.String(); got != Digest("sha256", []byte("abc")) {
		t.Errorf("streamed digest %q differs from Digest", got)
	}
	if _, err := NewDigester("crc32"); err == nil {
		t.Errorf("NewDigester(crc32) = nil error")
	}
}

func TestVerifyBlockDigest(t *testing.T) {
	block := []byte("hello")
	tests := []struct {
		digest string
		ok     bool
	}{
		{Digest("sha1", block), true},
		{Digest("sha256", block), true},
		{"sha1:aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d", true}, // base16
		{"SHA-1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N", true},        // label variants
		{"sha1:qvTGHdzF6KLavt4PO0gs2a6pQ00=", true},             // base64
		{"sha1:vl2mmho4yxukfwv63yhtwsbm3gxksq2n", true},         // lower-case base32
		{"md5:5d41402abc4b2a76b9719d911017c592", true},          // base16 md5
		{"sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", false},        // empty block's
		{"sha1:short", false},                                   // no encoding fits
		{"crc32:1234", false},                                   // unknown algorithm
		{"nolabel", false},                                      // no label
		{"", false},                                             // absent
	}
	for _, tt := range tests {
		r := &Record{Block: block}
		if tt.digest != "" {
			r.Header.Set(FieldBlockDigest, tt.digest)
		}
		if err := VerifyBlockDigest(r); (err == nil) != tt.ok {
			t.Errorf("VerifyBlockDigest(%q) = %v, want ok=%v", tt.digest, err, tt.ok)
		}
	}
	r := &Record{Block: []byte("other")}
	r.Header.Set(FieldBlockDigest, Digest("sha1", block))
	if err := VerifyBlockDigest(r); !errors.Is(err, ErrDigestMismatch) {
		t.Errorf("VerifyBlockDigest(mismatch) = %v, want ErrDigestMismatch", err)
	}
}

// TestWriteMore: a block given in two parts is written, measured and
// digested as one.
func TestWriteMore(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(WriterConfig{Dir: dir, Prefix: "t", Node: "n"})
	if err != nil {
		t.Fatal(err)
	}
	whole := &Record{Type: TypeResource, Block: []byte("header\r\n\r\nbody bytes")}
	whole.Header.Set(FieldTargetURI, "http://a.test/")
	split := &Record{Type: TypeResource, Block: []byte("header\r\n\r\n"), More: []byte("body bytes")}
	split.Header.Set(FieldTargetURI, "http://a.test/")
	if _, err := w.Write(whole, split); err != nil {
		t.Fatal(err)
	}
	if whole.Header.Get(FieldBlockDigest) != split.Header.Get(FieldBlockDigest) ||
		whole.Header.Get(FieldContentLength) != split.Header.Get(FieldContentLength) {
		t.Errorf("split block header %v, whole %v", split.Header.Fields(), whole.Header.Fields())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Type == TypeResource {
			blocks = append(blocks, string(rec.Block))
			if err := VerifyBlockDigest(rec); err != nil {
				t.Error(err)
			}
		}
	}
	if len(blocks) != 2 || blocks[0] != blocks[1] {
		t.Errorf("blocks read back %q", blocks)
	}
}
