package warc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestConformanceWARCVerify verifies every sample of other producers in
// place. Each file is verified alone (a revisit must find its original in
// the same file), so the table lists every problem a file legitimately
// has; files not listed with a fault must have none. Problems are matched
// by record number, severity and a piece of the message.
func TestConformanceWARCVerify(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("WARC samples not available at %s: %v", conformanceDir, err)
	}
	wgetBrackets := func(from, to int) []wantProblem {
		var ps []wantProblem
		for i := from; i <= to; i++ {
			ps = append(ps, wantProblem{i, Warning, "WARC-Target-URI <"})
		}
		return ps
	}
	warcioRevisit := []wantProblem{{5, Warning, "identical-payload-digest revisit with a 369-byte block but no WARC-Truncated: length"}}
	warcioChunked := []wantProblem{{2, Warning, "payload digest covers the chunked body"}}
	tests := []struct {
		file string
		want []wantProblem
	}{
		// gowarc digests the de-chunked entity, as WARC 1.1 asks.
		{"generated/iagowarc-0.8.101-chunked-revisit.warc.gz", nil},
		// wget writes WARC-Target-URI in <> (WARC 1.0's grammar read literally).
		{"generated/wget-1.21.3-loopback.warc.gz", wgetBrackets(2, 10)},
		{"iipc-dedup-samples/20130729-heritrix-original.warc.gz", nil},
		// Heritrix 2013 wrote revisits without any reference to the original.
		{"iipc-dedup-samples/20130729-heritrix-revisit-with-http-headers.warc.gz", []wantProblem{{1, Warning, "the original capture cannot be located"}}},
		{"iipc-dedup-samples/20141124-heritrix-server-not-modified.warc.gz", []wantProblem{{1, Warning, "the original capture cannot be located"}}},
		{"iipc-dedup-samples/20141129-heritrix-original.warc.gz", nil},
		// Its original is in 20141129-heritrix-original (see the set below).
		{"iipc-dedup-samples/20141129-heritrix-revisit-with-http-headers-and-new-warc-headers.warc.gz", []wantProblem{{1, Fault, "revisit target http://bl.uk/subjects/news-media/ at 2014-11-29T09:18:39Z is not in the files verified"}}},
		// Content-Length one short of the block, on the response and, two
		// short, on the revisit: reading resumes after each.
		{"warcio-js/example-bad-length.warc", []wantProblem{
			{3, Fault, "malformed: expected CRLF CRLF after the 974-byte block, found \"\\x00\\r\\n\\r\" (wrong Content-Length?); 1369 bytes skipped, reading resumed at offset 2566"},
			{5, Fault, "malformed: expected CRLF CRLF after the 371-byte block"},
		}},
		// warcio digests the chunked body; digests in base16.
		{"warcio-js/example-iana.org-chunked.warc", warcioChunked},
		{"warcio-js/example-resource.warc.gz", nil},
		// The original (urn:uuid:c0b8a812-…) is in no sample.
		{"warcio-js/example-url-agnostic-revisit.warc.gz", []wantProblem{{2, Fault, "revisit target WARC-Refers-To <urn:uuid:c0b8a812-1a11-4cd1-9189-58bc8eb6457f> is not in the files verified"}}},
		{"warcio-js/example-wget-bad-target-uri.warc.gz", wgetBrackets(2, 6)},
		// warcio writes revisits with the HTTP header but no WARC-Truncated;
		// the revisit resolves to the response by URI and date.
		{"warcio-js/example.warc", warcioRevisit},
		{"warcio-js/example.warc.gz", warcioRevisit},
		// The last request's body is chunked, and digested chunked.
		{"warcio-js/post-test-more.warc", []wantProblem{{6, Warning, "payload digest covers the chunked body"}}},
		{"warcio-js/post-test.warc.gz", nil},
		{"warcio-js/redirect.warc", nil},
		{"warcio-py/bad.arc", []wantProblem{{1, Fault, `not a WARC record: first line "filedesc://bad.arc.gz`}}},
		// Whole-file gzip: the Reader wants one record per member, so that
		// offsets address records.
		{"warcio-py/example-bad-non-chunked.warc.gz", []wantProblem{{1, Fault, "whole-file gzip is not supported"}}},
		{"warcio-py/example-bad.warc.gz.bad", []wantProblem{{1, Fault, "whole-file gzip is not supported"}}},
		// warcio's digest test file: an undecodable payload digest, one ID
		// on four records, base64 and URL-safe base64 digests (which match).
		{"warcio-py/example-digest.warc", []wantProblem{
			{1, Fault, "payload digest sha1:1112H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ cannot be decoded"},
			{2, Warning, "is not unique: record 1 of"},
			{3, Warning, "is not unique: record 1 of"},
			{4, Warning, "is not unique: record 1 of"},
		}},
		{"warcio-py/example-iana.org-chunked.warc", warcioChunked},
		{"warcio-py/example-resource.warc.gz", nil},
		{"warcio-py/example-space-in-target-uri.warc.gz", []wantProblem{{2, Warning, `WARC-Target-URI "file:///example with spaces.png" contains white space`}}},
		{"warcio-py/example-space-in-url.arc", []wantProblem{{1, Fault, "(an ARC file?)"}}},
		// Content-Length two short of the block.
		{"warcio-py/example-trunc.warc", []wantProblem{{3, Fault, "malformed: expected CRLF CRLF after the 973-byte block, found \"\\x00\\x00\\r\\n\" (wrong Content-Length?); 1369 bytes skipped, reading resumed at offset 2566"}}},
		{"warcio-py/example-wget-bad-target-uri.warc.gz", wgetBrackets(2, 6)},
		// A record split over several gzip members.
		// The members after the split record are read again.
		{"warcio-py/example-wrong-chunks.warc.gz", []wantProblem{{1, Fault, "gzip member ends inside the block (Content-Length 1613, got 343 bytes); 1130 bytes skipped, reading resumed at offset 1130"}}},
		{"warcio-py/example.arc", []wantProblem{{1, Fault, "(an ARC file?)"}}},
		{"warcio-py/example.arc.gz", []wantProblem{{1, Fault, "(an ARC file?)"}}},
		{"warcio-py/example.warc", warcioRevisit},
		{"warcio-py/example.warc.gz", warcioRevisit},
		{"warcio-py/post-test.warc.gz", nil},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(conformanceDir, tt.file))
			if err != nil {
				t.Skipf("sample %s: %v", tt.file, err)
			}
			defer f.Close()
			ps, sum, err := Verify(f, tt.file, VerifyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				t.Log(p)
			}
			checkProblems(t, ps, tt.want)
			faulty := slices.ContainsFunc(tt.want, func(w wantProblem) bool { return w.sev == Fault })
			if (sum.Faults > 0) != faulty {
				t.Errorf("summary %+v, want faults: %v", sum, faulty)
			}
		})
	}
	checkSamplesListed(t, seen)
}

// TestConformanceWARCVerifySets verifies samples together, as
// `godwit warc verify` does with several files: revisits resolve across
// files.
func TestConformanceWARCVerifySets(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("WARC samples not available at %s: %v", conformanceDir, err)
	}
	tests := []struct {
		name  string
		files []string
		opts  VerifyOptions
		want  []string // "file#record severity: message piece", in order
	}{
		{
			name:  "heritrix dedup",
			files: []string{"20130729-heritrix-original.warc.gz", "20130729-heritrix-revisit-with-http-headers.warc.gz", "20141124-heritrix-server-not-modified.warc.gz", "20141129-heritrix-original.warc.gz", "20141129-heritrix-revisit-with-http-headers-and-new-warc-headers.warc.gz"},
			// The 2014 revisit resolves by WARC-Refers-To-Target-URI and
			// -Date to the 2014 original, whose payload digest it carries.
			want: []string{
				"20130729-heritrix-revisit-with-http-headers.warc.gz#1 warning: the original capture cannot be located",
				"20141124-heritrix-server-not-modified.warc.gz#1 warning: the original capture cannot be located",
			},
		},
		{
			name:  "external original",
			files: []string{"20141129-heritrix-revisit-with-http-headers-and-new-warc-headers.warc.gz"},
			opts:  VerifyOptions{ExternalTargets: true},
			want: []string{
				"20141129-heritrix-revisit-with-http-headers-and-new-warc-headers.warc.gz#1 warning: is not in the files verified",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewVerifier(tt.opts)
			for _, name := range tt.files {
				f, err := os.Open(filepath.Join(conformanceDir, "iipc-dedup-samples", name))
				if err != nil {
					t.Skip(err)
				}
				err = v.File(f, name)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			ps, sum := v.Finish()
			if sum.Files != len(tt.files) || sum.Faults != 0 {
				t.Errorf("summary %+v, want %d files, no faults", sum, len(tt.files))
			}
			if len(ps) != len(tt.want) {
				t.Fatalf("got %d problems %v, want %d", len(ps), ps, len(tt.want))
			}
			for i, w := range tt.want {
				where, msg, _ := strings.Cut(w, ": ")
				p := ps[i]
				if got := fmt.Sprintf("%s#%d %s", p.File, p.Record, p.Severity); got != where || !strings.Contains(p.Message, msg) {
					t.Errorf("problem %d = %v, want %s", i, p, w)
				}
			}
		})
	}
}
