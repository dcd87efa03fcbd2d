package warc

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRecords writes recs with a Writer, one group per record, and
// returns every record of the file as read back (warcinfo first) and the
// file's bytes.
func writeRecords(t *testing.T, recs ...*Record) ([]*Record, []byte) {
	t.Helper()
	cfg := testConfig(t)
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if _, err := w.Write(r); err != nil {
			t.Fatalf("Write(%s): %v", r.Type, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(cfg.Dir, w.Files()[0]))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := readAll(t, data)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	return got, data
}

// encodeGz serializes recs as the Writer lays them out (one gzip member
// each) but with their headers exactly as they are, so tests can corrupt
// a field or the block without the Writer repairing it.
func encodeGz(t *testing.T, recs []*Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, rec := range recs {
		gz := gzip.NewWriter(&buf)
		head := appendHeader(nil, rec)
		if rec.Version != "" && rec.Version != Version {
			head = append([]byte(rec.Version), head[len(Version):]...)
		}
		gz.Write(head)
		gz.Write(rec.Block)
		gz.Write([]byte(trailer))
		if err := gz.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// capture returns a request/response pair for url whose response already
// has its record ID and date, so revisits can name it before it is written.
func capture(url string, n int) (req, resp *Record) {
	req, resp = exchange(url, n)
	resp.Header.Set(FieldRecordID, NewRecordID())
	resp.Header.Set(FieldDate, "2025-03-04T05:06:07Z")
	return req, resp
}

// revisitOf returns an identical-payload-digest revisit of resp, shaped as
// godwit writes it.
func revisitOf(resp *Record) *Record {
	rv := &Record{Type: TypeRevisit, Block: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")}
	rv.Header.Set(FieldTargetURI, resp.Header.Get(FieldTargetURI))
	rv.Header.Set(FieldContentType, ContentTypeHTTPResponse)
	rv.Header.Set(FieldProfile, ProfileIdenticalPayloadDigest)
	rv.Header.Set(FieldRefersTo, resp.Header.Get(FieldRecordID))
	rv.Header.Set(FieldRefersToTargetURI, resp.Header.Get(FieldTargetURI))
	rv.Header.Set(FieldRefersToDate, resp.Header.Get(FieldDate))
	rv.Header.Set(FieldPayloadDigest, resp.Header.Get(FieldPayloadDigest))
	rv.Header.Set(FieldTruncated, "length")
	return rv
}

func verifyBytes(t *testing.T, data []byte, opts VerifyOptions) ([]Problem, Summary) {
	t.Helper()
	ps, sum, err := Verify(bytes.NewReader(data), "test.warc.gz", opts)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return ps, sum
}

// wantProblems checks that ps holds exactly one problem per entry of want
// (severity and a substring of the message, at record number rec).
type wantProblem struct {
	rec int
	sev Severity
	msg string
}

func checkProblems(t *testing.T, ps []Problem, want []wantProblem) {
	t.Helper()
	if len(ps) != len(want) {
		t.Errorf("got %d problems, want %d:", len(ps), len(want))
		for _, p := range ps {
			t.Errorf("  %v", p)
		}
		return
	}
	for i, w := range want {
		p := ps[i]
		if p.Record != w.rec || p.Severity != w.sev || !strings.Contains(p.Message, w.msg) {
			t.Errorf("problem %d = %v, want record %d %v containing %q", i, p, w.rec, w.sev, w.msg)
		}
	}
}

func TestVerifyClean(t *testing.T) {
	req, resp := capture("http://example.com/", 3000)
	recs := []*Record{req, resp}
	recs = append(recs, otherRecords(resp)...)
	recs = append(recs, revisitOf(resp))
	_, data := writeRecords(t, recs...)
	ps, sum := verifyBytes(t, data, VerifyOptions{})
	checkProblems(t, ps, nil)
	if sum.Files != 1 || sum.Records != len(recs)+1 || sum.Faults != 0 || sum.Warnings != 0 {
		t.Errorf("summary = %+v, want 1 file, %d records, no problems", sum, len(recs)+1)
	}
}

func TestVerifyCorruptRecords(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(recs []*Record) // recs[0] warcinfo, [1] request, [2] response
		want    []wantProblem
	}{
		{"block digest", func(recs []*Record) {
			recs[2].Block[len(recs[2].Block)-1] ^= 1
		}, []wantProblem{
			{3, Fault, "block digest mismatch: header sha1:"},
			{3, Fault, "payload digest mismatch: header sha1:"},
		}},
		{"block digest header", func(recs []*Record) {
			recs[1].Header.Set(FieldBlockDigest, "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
		}, []wantProblem{{2, Fault, "block digest mismatch: header sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA, computed sha1:"}}},
		{"hex digest", func(recs []*Record) {
			d, _ := decodeDigest(recs[1].Header.Get(FieldBlockDigest))
			recs[1].Header.Set(FieldBlockDigest, "sha1:"+fmt.Sprintf("%x", d.sum))
		}, nil},
		{"sha256 base16 digest mismatch", func(recs []*Record) {
			recs[1].Header.Set(FieldBlockDigest, "sha256:"+strings.Repeat("ab", 32))
		}, []wantProblem{{2, Fault, "block digest mismatch: header sha256:abab"}}},
		{"undecodable digest", func(recs []*Record) {
			recs[1].Header.Set(FieldBlockDigest, "sha1:1112H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ")
		}, []wantProblem{{2, Fault, "block digest sha1:1112H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ cannot be decoded"}}},
		{"unknown digest algorithm", func(recs []*Record) {
			recs[1].Header.Set(FieldBlockDigest, "crc32:ABCD")
		}, []wantProblem{{2, Warning, "not checked"}}},
		{"payload digest", func(recs []*Record) {
			recs[2].Header.Set(FieldPayloadDigest, Digest("sha1", []byte("other")))
		}, []wantProblem{{3, Fault, "payload digest mismatch: header sha1:"}}},
		{"truncated payload", func(recs []*Record) {
			recs[2].Header.Set(FieldPayloadDigest, Digest("sha1", []byte("other")))
			recs[2].Header.Set(FieldTruncated, "length")
		}, []wantProblem{{3, Warning, "expected, as the record is truncated (WARC-Truncated: length)"}}},
		{"missing date", func(recs []*Record) {
			recs[1].Header.Del(FieldDate)
		}, []wantProblem{{2, Fault, "missing mandatory field WARC-Date"}}},
		{"bad date", func(recs []*Record) {
			recs[1].Header.Set(FieldDate, "2025-13-01T00:00:00Z")
		}, []wantProblem{{2, Fault, `WARC-Date "2025-13-01T00:00:00Z" is not a W3C-ISO8601 UTC date`}}},
		{"bad record ID", func(recs []*Record) {
			recs[1].Header.Set(FieldRecordID, "urn:uuid:1234")
		}, []wantProblem{{2, Fault, `WARC-Record-ID "urn:uuid:1234" is not a <URI>`}}},
		{"missing record ID", func(recs []*Record) {
			recs[1].Header.Del(FieldRecordID)
		}, []wantProblem{{2, Fault, "missing mandatory field WARC-Record-ID"}}},
		{"version", func(recs []*Record) {
			recs[1].Version = "WARC/0.17"
		}, []wantProblem{{2, Fault, `version "WARC/0.17": want WARC/1.0 or WARC/1.1`}}},
		{"missing target", func(recs []*Record) {
			recs[2].Header.Del(FieldTargetURI)
		}, []wantProblem{{3, Fault, "response record without WARC-Target-URI"}}},
		{"repeated field", func(recs []*Record) {
			recs[2].Header.Add(FieldPayloadDigest, recs[2].Header.Get(FieldPayloadDigest))
		}, []wantProblem{{3, Fault, "field WARC-Payload-Digest repeated 2 times"}}},
		{"duplicate ID", func(recs []*Record) {
			recs[2].Header.Set(FieldRecordID, recs[1].Header.Get(FieldRecordID))
		}, []wantProblem{{3, Warning, "is not unique: record 2 of test.warc.gz has it too"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, resp := exchange("http://example.com/", 100)
			recs, _ := writeRecords(t, req, resp)
			tt.corrupt(recs)
			ps, _ := verifyBytes(t, encodeGz(t, recs), VerifyOptions{})
			checkProblems(t, ps, tt.want)
		})
	}
}

func TestVerifyFraming(t *testing.T) {
	req, resp := exchange("http://example.com/", 2000)
	recs, data := writeRecords(t, req, resp)
	tests := []struct {
		name string
		data []byte
		want []wantProblem
	}{
		{"torn gzip member", data[:len(data)-100], []wantProblem{{3, Fault, "torn tail: stream ends inside the"}}},
		{"zero-filled tail", append(append([]byte(nil), data...), make([]byte, 4096)...), []wantProblem{{4, Fault, "torn tail: zero-filled tail"}}},
		{"empty", nil, []wantProblem{{0, Fault, "no WARC records: the file is empty"}}},
		{"content length", func() []byte {
			recs[2].Header.Set(FieldContentLength, fmt.Sprint(len(recs[2].Block)-1))
			return encodeGz(t, recs)
		}(), []wantProblem{{3, Fault, "malformed: expected CRLF CRLF after the"}}},
		{"arc", []byte("filedesc://x.arc 0.0.0.0 20140101000000 text/plain 76\n1 0 x\n"), []wantProblem{{1, Fault, "(an ARC file?)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, _ := verifyBytes(t, tt.data, VerifyOptions{})
			checkProblems(t, ps, tt.want)
		})
	}
	// A damaged member in the middle: reading resumes at the next one when
	// the input can seek, and stops otherwise.
	rd, _ := NewReader(bytes.NewReader(data))
	var offs []int64
	for {
		if _, err := rd.Next(); err != nil {
			break
		}
		offs = append(offs, rd.Offset()+rd.Length())
	}
	bad := append([]byte(nil), data...)
	bad[offs[1]-8] ^= 0xff // the request member's CRC-32
	ps, sum := verifyBytes(t, bad, VerifyOptions{})
	checkProblems(t, ps, []wantProblem{{2, Fault, fmt.Sprintf("gzip: invalid checksum; %d bytes skipped, reading resumed at offset %d", offs[1]-offs[0], offs[1])}})
	if sum.Records != 2 {
		t.Errorf("records = %d, want 2 (warcinfo and response)", sum.Records)
	}
	ps, _, err := Verify(struct{ io.Reader }{bytes.NewReader(bad)}, "pipe", VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkProblems(t, ps, []wantProblem{{2, Fault, "invalid checksum; the rest of the file was not checked"}})

	// The torn tail's offset is where the whole records end.
	ps, _ = verifyBytes(t, data[:len(data)-100], VerifyOptions{})
	rd, _ = NewReader(bytes.NewReader(data))
	var end int64
	for i := 0; i < 2; i++ {
		rd.Next()
		end = rd.Offset() + rd.Length()
	}
	if len(ps) == 1 && ps[0].Offset != end {
		t.Errorf("torn tail at offset %d, want %d", ps[0].Offset, end)
	}
}

func TestVerifyUncompressedAndChunked(t *testing.T) {
	body := []byte("hello, chunked world")
	chunked := fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n", body[:5], len(body)-5, body[5:])
	mk := func(digest string) *Record {
		r := &Record{Type: TypeResponse, Block: []byte(chunked)}
		r.Header.Set(FieldTargetURI, "http://example.com/c")
		r.Header.Set(FieldContentType, ContentTypeHTTPResponse)
		r.Header.Set(FieldPayloadDigest, digest)
		return r
	}
	raw := []byte(chunked[strings.Index(chunked, "\r\n\r\n")+4:])
	recs, _ := writeRecords(t, mk(Digest("sha1", body)), mk(Digest("sha1", raw)))
	// Uncompressed: the records back to back.
	var plain []byte
	for _, r := range recs {
		plain = append(appendHeader(plain, r), r.Block...)
		plain = append(plain, trailer...)
	}
	ps, sum := verifyBytes(t, plain, VerifyOptions{})
	checkProblems(t, ps, []wantProblem{{3, Warning, "payload digest covers the chunked body"}})
	if sum.Records != 3 {
		t.Errorf("records = %d, want 3", sum.Records)
	}
}

func TestVerifyRevisits(t *testing.T) {
	req, resp := capture("http://example.com/", 500)
	_, other := capture("http://example.com/other", 600)
	tests := []struct {
		name string
		opts VerifyOptions
		recs func() []*Record
		want []wantProblem // record numbers count the warcinfo as 1
	}{
		{"by id", VerifyOptions{}, func() []*Record { return []*Record{req, resp, revisitOf(resp)} }, nil},
		{"by uri and date", VerifyOptions{}, func() []*Record {
			rv := revisitOf(resp)
			rv.Header.Del(FieldRefersTo)
			return []*Record{req, resp, rv}
		}, nil},
		{"no reference", VerifyOptions{}, func() []*Record {
			rv := revisitOf(resp)
			rv.Header.Del(FieldRefersTo)
			rv.Header.Del(FieldRefersToDate)
			return []*Record{req, resp, rv}
		}, []wantProblem{{4, Warning, "the original capture cannot be located"}}},
		{"target missing", VerifyOptions{}, func() []*Record {
			return []*Record{revisitOf(resp)}
		}, []wantProblem{{2, Fault, "revisit target WARC-Refers-To " + resp.Header.Get(FieldRecordID) + " is not in the files verified"}}},
		{"target missing external", VerifyOptions{ExternalTargets: true}, func() []*Record {
			return []*Record{revisitOf(resp)}
		}, []wantProblem{{2, Warning, "is not in the files verified"}}},
		{"target missing by uri", VerifyOptions{}, func() []*Record {
			rv := revisitOf(resp)
			rv.Header.Del(FieldRefersTo)
			return []*Record{rv}
		}, []wantProblem{{2, Fault, "revisit target http://example.com/ at " + resp.Header.Get(FieldDate) + " is not in the files verified"}}},
		{"revisit of a revisit", VerifyOptions{}, func() []*Record {
			rv := revisitOf(resp)
			rv.Header.Set(FieldRecordID, NewRecordID())
			rv2 := revisitOf(resp)
			rv2.Header.Set(FieldRefersTo, rv.Header.Get(FieldRecordID))
			return []*Record{req, resp, rv, rv2}
		}, []wantProblem{{5, Fault, "revisit refers to another revisit (record 4 of test.warc.gz)"}}},
		{"revisit of a request", VerifyOptions{}, func() []*Record {
			rv := revisitOf(resp)
			rv.Header.Set(FieldRefersTo, req.Header.Get(FieldRecordID))
			return []*Record{req, resp, rv}
		}, []wantProblem{{4, Fault, "revisit refers to a request record (record 2 of test.warc.gz)"}}},
		{"wrong payload digest", VerifyOptions{}, func() []*Record {
			rv := revisitOf(resp)
			rv.Header.Set(FieldPayloadDigest, other.Header.Get(FieldPayloadDigest))
			return []*Record{req, resp, rv}
		}, []wantProblem{{4, Fault, "payload digest " + other.Header.Get(FieldPayloadDigest) + " differs from the target's " + resp.Header.Get(FieldPayloadDigest)}}},
		{"refers-to date disagrees", VerifyOptions{}, func() []*Record {
			rv := revisitOf(resp)
			rv.Header.Set(FieldRefersToDate, "2001-01-01T00:00:00Z")
			return []*Record{req, resp, rv}
		}, []wantProblem{{4, Warning, "WARC-Refers-To-Date 2001-01-01T00:00:00Z differs from the target's WARC-Date"}}},
		{"unknown profile", VerifyOptions{}, func() []*Record {
			rv := revisitOf(resp)
			rv.Header.Set(FieldProfile, "http://example.org/revisit/similar-payload")
			return []*Record{req, resp, rv}
		}, []wantProblem{{4, Warning, "unknown revisit profile"}}},
		{"server not modified by date", VerifyOptions{}, func() []*Record {
			rv := &Record{Type: TypeRevisit}
			rv.Header.Set(FieldTargetURI, "http://example.com/")
			rv.Header.Set(FieldProfile, ProfileServerNotModified)
			rv.Header.Set(FieldRefersToDate, resp.Header.Get(FieldDate))
			return []*Record{req, resp, rv}
		}, nil},
		{"server not modified, original missing", VerifyOptions{}, func() []*Record {
			rv := &Record{Type: TypeRevisit}
			rv.Header.Set(FieldTargetURI, "http://example.com/")
			rv.Header.Set(FieldProfile, ProfileServerNotModified)
			rv.Header.Set(FieldRefersToDate, "2020-01-01T00:00:00Z")
			return []*Record{req, resp, rv}
		}, []wantProblem{{4, Fault, "revisit target http://example.com/ at 2020-01-01T00:00:00Z is not in the files verified"}}},
		{"server not modified", VerifyOptions{}, func() []*Record {
			rv := &Record{Type: TypeRevisit}
			rv.Header.Set(FieldTargetURI, "http://example.com/")
			rv.Header.Set(FieldProfile, ProfileServerNotModified)
			rv.Header.Set(FieldRefersTo, resp.Header.Get(FieldRecordID))
			rv.Header.Set(FieldRefersToDate, resp.Header.Get(FieldDate))
			return []*Record{req, resp, rv}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, data := writeRecords(t, tt.recs()...)
			ps, _ := verifyBytes(t, data, tt.opts)
			checkProblems(t, ps, tt.want)
		})
	}
}

// TestVerifyRevisitMissingPayloadDigest corrupts a revisit the Writer
// would refuse to write.
func TestVerifyRevisitMissingPayloadDigest(t *testing.T) {
	req, resp := capture("http://example.com/", 500)
	recs, _ := writeRecords(t, req, resp, revisitOf(resp))
	recs[3].Header.Del(FieldPayloadDigest)
	recs[3].Header.Del(FieldTruncated)
	recs[3].Header.Del(FieldProfile)
	recs2, _ := writeRecords(t, req, resp, revisitOf(resp))
	recs2[3].Header.Del(FieldPayloadDigest)
	ps, _ := verifyBytes(t, encodeGz(t, recs), VerifyOptions{})
	checkProblems(t, ps, []wantProblem{{4, Fault, "revisit record without WARC-Profile"}})
	ps, _ = verifyBytes(t, encodeGz(t, recs2), VerifyOptions{})
	checkProblems(t, ps, []wantProblem{{4, Fault, "identical-payload-digest revisit without WARC-Payload-Digest"}})
}

// TestVerifyAcrossFiles resolves a revisit against the original in
// another file.
func TestVerifyAcrossFiles(t *testing.T) {
	req, resp := capture("http://example.com/", 500)
	_, first := writeRecords(t, req, resp)
	_, second := writeRecords(t, revisitOf(resp))

	v := NewVerifier(VerifyOptions{})
	if err := v.File(bytes.NewReader(first), "a.warc.gz"); err != nil {
		t.Fatal(err)
	}
	if err := v.File(bytes.NewReader(second), "b.warc.gz"); err != nil {
		t.Fatal(err)
	}
	ps, sum := v.Finish()
	checkProblems(t, ps, nil)
	if sum.Files != 2 || sum.Records != 5 {
		t.Errorf("summary = %+v, want 2 files, 5 records", sum)
	}

	ps, _ = verifyBytes(t, second, VerifyOptions{})
	checkProblems(t, ps, []wantProblem{{2, Fault, "is not in the files verified"}})
}

func TestProblemString(t *testing.T) {
	p := Problem{File: "a.warc.gz", Record: 3, Offset: 1234, RecordID: "<urn:x:1>", Severity: Fault, Message: "block digest mismatch"}
	want := "a.warc.gz: record 3 at offset 1234 <urn:x:1>: fault: block digest mismatch"
	if got := p.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
