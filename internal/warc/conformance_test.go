package warc

import (
	"os"
	"path/filepath"
	"testing"
)

// conformanceDir holds WARC files from other producers (warcio, Heritrix,
// wget, gowarc). They are read in place, never copied into the repository.
const conformanceDir = "../../../shared/conformance/warc"

// TestConformanceSamples reads every sample: good files fully, known-bad
// ones to a clear error. Block digests are checked where the producer wrote
// them.
func TestConformanceSamples(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("WARC samples not available at %s: %v", conformanceDir, err)
	}
	tests := []struct {
		file    string
		records int
		err     error // nil, ErrMalformed or ErrTornTail
		// badDigests counts records whose WARC-Block-Digest the samples get
		// wrong on purpose.
		badDigests int
	}{
		{file: "generated/iagowarc-0.8.101-chunked-revisit.warc.gz", records: 5},
		{file: "generated/wget-1.21.3-loopback.warc.gz", records: 10},
		{file: "iipc-dedup-samples/20130729-heritrix-original.warc.gz", records: 1},
		{file: "iipc-dedup-samples/20130729-heritrix-revisit-with-http-headers.warc.gz", records: 1},
		// Heritrix ends this zero-length record with one CRLF, not two.
		{file: "iipc-dedup-samples/20141124-heritrix-server-not-modified.warc.gz", records: 1},
		{file: "iipc-dedup-samples/20141129-heritrix-original.warc.gz", records: 1},
		{file: "iipc-dedup-samples/20141129-heritrix-revisit-with-http-headers-and-new-warc-headers.warc.gz", records: 1},
		// Content-Length one short of the block.
		{file: "warcio-js/example-bad-length.warc", records: 2, err: ErrMalformed},
		// Digests in base16.
		{file: "warcio-js/example-iana.org-chunked.warc", records: 3},
		{file: "warcio-js/example-resource.warc.gz", records: 1},
		// The warcinfo block includes the closing CRLF CRLF in its length.
		{file: "warcio-js/example-url-agnostic-revisit.warc.gz", records: 2},
		{file: "warcio-js/example-wget-bad-target-uri.warc.gz", records: 6},
		{file: "warcio-js/example.warc", records: 7},
		{file: "warcio-js/example.warc.gz", records: 6},
		{file: "warcio-js/post-test-more.warc", records: 6}, // gzip despite its name
		{file: "warcio-js/post-test.warc.gz", records: 6},
		{file: "warcio-js/redirect.warc", records: 2},
		{file: "warcio-py/bad.arc", err: ErrMalformed},
		// The whole file is one gzip member.
		{file: "warcio-py/example-bad-non-chunked.warc.gz", err: ErrMalformed},
		{file: "warcio-py/example-bad.warc.gz.bad", err: ErrMalformed},
		{file: "warcio-py/example-digest.warc", records: 4},
		{file: "warcio-py/example-iana.org-chunked.warc", records: 3},
		{file: "warcio-py/example-resource.warc.gz", records: 3},
		{file: "warcio-py/example-space-in-target-uri.warc.gz", records: 2},
		{file: "warcio-py/example-space-in-url.arc", err: ErrMalformed},
		// Content-Length two short of the block.
		{file: "warcio-py/example-trunc.warc", records: 2, err: ErrMalformed},
		{file: "warcio-py/example-wget-bad-target-uri.warc.gz", records: 6},
		// A record split over several gzip members.
		{file: "warcio-py/example-wrong-chunks.warc.gz", err: ErrMalformed},
		{file: "warcio-py/example.arc", err: ErrMalformed},
		{file: "warcio-py/example.arc.gz", err: ErrMalformed},
		{file: "warcio-py/example.warc", records: 6},
		{file: "warcio-py/example.warc.gz", records: 6},
		{file: "warcio-py/post-test.warc.gz", records: 6},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(conformanceDir, tt.file))
			if err != nil {
				t.Skipf("sample %s: %v", tt.file, err)
			}
			recs, _, err := readAll(t, data)
			if tt.err == nil && err != nil {
				t.Fatalf("read: %v", err)
			}
			if tt.err != nil {
				wantReadError(t, err, tt.err)
				t.Logf("%v", err)
			}
			if len(recs) != tt.records {
				t.Errorf("read %d records, want %d", len(recs), tt.records)
			}
			bad := 0
			for i, r := range recs {
				if !r.Header.Has(FieldBlockDigest) {
					continue
				}
				if err := VerifyBlockDigest(r); err != nil {
					bad++
					t.Logf("record %d (%s): %v", i, r.Type, err)
				}
			}
			if bad != tt.badDigests {
				t.Errorf("%d block digests failed, want %d", bad, tt.badDigests)
			}
		})
	}
	checkSamplesListed(t, seen)
}

// checkSamplesListed fails t for each sample of the conformance suite
// that a table does not list (seen): samples added later must be
// classified.
func checkSamplesListed(t *testing.T, seen map[string]bool) {
	t.Helper()
	_ = filepath.WalkDir(conformanceDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) == ".md" {
			return err
		}
		rel, _ := filepath.Rel(conformanceDir, path)
		if !seen[filepath.ToSlash(rel)] {
			t.Errorf("sample %s is not in the table", rel)
		}
		return nil
	})
}
