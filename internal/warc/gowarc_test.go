package warc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gowarc "github.com/nlnwa/gowarc/v2"
)

// TestGowarcReadsOurOutput reads our files with an independent reader,
// nlnwa/gowarc, in strict mode: every record must parse without a
// validation error, and its digests and offsets must agree with ours.
func TestGowarcReadsOurOutput(t *testing.T) {
	for _, alg := range []string{"sha1", "sha256"} {
		t.Run(alg, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.Digest = alg
			w, err := NewWriter(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var written []*Record
			var locs []Location
			for i, n := range []int{0, 100, 20 << 10} {
				req, resp := exchange(fmt.Sprintf("http://example.com/%d?q=ä", i), n)
				for _, group := range []func() []*Record{
					func() []*Record { return []*Record{req, resp} },
					func() []*Record { return otherRecords(resp) }, // needs resp's ID
				} {
					group := group()
					l, err := w.Write(group...)
					if err != nil {
						t.Fatal(err)
					}
					written = append(written, group...)
					locs = append(locs, l...)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(cfg.Dir, w.Files()[0])

			gr, err := gowarc.NewWarcFileReader(path, 0, gowarcStrict()...)
			if err != nil {
				t.Fatal(err)
			}
			defer gr.Close()
			for i := 0; ; i++ {
				rec, off, val, err := gr.Next()
				if errors.Is(err, io.EOF) {
					if i != len(written)+1 {
						t.Errorf("gowarc read %d records, want %d", i, len(written)+1)
					}
					break
				}
				if err != nil {
					t.Fatalf("gowarc record %d: %v", i, err)
				}
				if !val.Valid() {
					t.Errorf("gowarc record %d (%s): %v", i, rec.Type(), val)
				}
				// Reading the block to its end makes gowarc check both digests.
				if err := rec.ValidateDigest(val); err != nil || !val.Valid() {
					t.Errorf("gowarc record %d (%s) digests: %v %v", i, rec.Type(), err, val)
				}
				if i > 0 {
					want := written[i-1]
					if got := rec.WarcHeader().Get(FieldBlockDigest); got != want.Header.Get(FieldBlockDigest) {
						t.Errorf("record %d: gowarc block digest %q, ours %q", i, got, want.Header.Get(FieldBlockDigest))
					}
					if "<"+rec.RecordId()+">" != want.Header.Get(FieldRecordID) { // gowarc drops the brackets
						t.Errorf("record %d: gowarc ID %q, ours %q", i, rec.RecordId(), want.Header.Get(FieldRecordID))
					}
					if off != locs[i-1].Offset {
						t.Errorf("record %d: gowarc offset %d, ours %d", i, off, locs[i-1].Offset)
					}
				}
				_ = rec.Close()
			}
		})
	}
}

// gowarcStrict makes gowarc report every problem it finds (ErrWarn collects
// them in the Validation) and repair nothing.
func gowarcStrict() []gowarc.WarcRecordOption {
	return []gowarc.WarcRecordOption{
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrWarn),
		gowarc.WithSpecViolationPolicy(gowarc.ErrWarn),
		gowarc.WithUnknownRecordTypePolicy(gowarc.ErrWarn),
		gowarc.WithAddMissingDigest(false),
		gowarc.WithFixDigest(false),
		gowarc.WithFixContentLength(false),
		gowarc.WithFixSyntaxErrors(false),
		gowarc.WithFixWarcFieldsBlockErrors(false),
	}
}

// TestGowarcHarness proves the options above make gowarc complain: a
// record with a wrong block digest must not pass.
func TestGowarcHarness(t *testing.T) {
	bad := plainRecord("WARC/1.1", "WARC-Type: resource\r\n"+
		"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000000>\r\n"+
		"WARC-Date: 2025-01-01T00:00:00Z\r\nContent-Type: text/plain\r\n"+
		"WARC-Block-Digest: "+Digest("sha1", []byte("other"))+"\r\n", "abc")
	gr, err := gowarc.NewWarcFileReaderFromStream(strings.NewReader(bad), 0, gowarcStrict()...)
	if err != nil {
		t.Fatal(err)
	}
	defer gr.Close()
	rec, _, val, err := gr.Next()
	if err == nil {
		err = rec.ValidateDigest(val)
		_ = rec.Close()
	}
	if err == nil && val.Valid() {
		t.Fatalf("gowarc accepted a wrong block digest; the harness checks nothing")
	}
}

// TestOffsetsAgreeWithGowarc compares record offsets on the good samples
// from other producers.
func TestOffsetsAgreeWithGowarc(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("WARC samples not available at %s: %v", conformanceDir, err)
	}
	for _, file := range []string{
		"generated/iagowarc-0.8.101-chunked-revisit.warc.gz",
		"generated/wget-1.21.3-loopback.warc.gz",
		"warcio-js/example-wget-bad-target-uri.warc.gz",
		"warcio-py/example.warc",
		"warcio-py/example.warc.gz",
		"warcio-js/post-test.warc.gz",
	} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join(conformanceDir, file)
			_, ours, err := readAll(t, readFile(t, path))
			if err != nil {
				t.Fatal(err)
			}
			gr, err := gowarc.NewWarcFileReader(path, 0, gowarc.WithNoValidation())
			if err != nil {
				t.Fatal(err)
			}
			defer gr.Close()
			var theirs []int64
			for {
				rec, off, _, err := gr.Next()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Fatalf("gowarc: %v", err)
					}
					break
				}
				theirs = append(theirs, off)
				_ = rec.Close()
			}
			if len(theirs) != len(ours) {
				t.Fatalf("gowarc read %d records, we read %d", len(theirs), len(ours))
			}
			for i := range ours {
				if ours[i].Offset != theirs[i] {
					t.Errorf("record %d: offset %d, gowarc %d", i, ours[i].Offset, theirs[i])
				}
			}
		})
	}
}
