package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gowarc "github.com/nlnwa/gowarc/v2"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// warcioDir holds the pinned warcio.js and the script that drives it.
const warcioDir = "../../tools/warcio"

// TestBinaryWARCReaders is the acceptance test of the archive issue's
// reader check (docs/readers.md): the WARC files of a crawl of a web with
// chunked, gzip-encoded, truncated, redirected and missing resources (and
// duplicates and revisits, once fakeweb and the archive make them) must
// be accepted, every record and every digest, by our own verifier and by
// two independent readers, nlnwa/gowarc and warcio.js. Where a reader
// disagrees with WARC 1.1 the test names the exception and proves its
// cause on the record; it never lets an unexplained fault through.
//
// The third reader, internetarchive/gowarc, is its own command-line
// verifier, built from the pinned module in tools/iagowarc.
//
// warcio.js runs under node from tools/warcio (npm ci --prefix
// tools/warcio). Without node or that install the warcio part skips,
// unless GODWIT_REQUIRE_WARCIO=1 (CI sets it).
func TestBinaryWARCReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls a hostile web and reads its WARC files three times")
	}
	// In parallel with the package's other parallel tests (the browser
	// replays), after its sequential ones: the crawl mostly waits (on
	// timeouts and Retry-After), and nothing here is judged by time.
	t.Parallel()
	cfg := fakeweb.Config{
		Hosts:        4,
		PagesPerHost: 16,
		Seed:         23,
		PageSize:     6000,
		Sitemaps:     true, // gzip files (.xml.gz)
		PageSignals:  true, // noarchive pages: response blocks without payload
		Robots:       []fakeweb.RobotsKind{fakeweb.RobotsAllow, fakeweb.RobotsNotFound, fakeweb.RobotsAllow, fakeweb.RobotsDisallow},
		CrawlDelay:   50 * time.Millisecond,
		// Host 0 is hostile: a chunked drip cut by the timeout, a 20 MB
		// page cut by the body cap, gzip and zstd encoded bombs,
		// redirect chains, 404/410/500, 429/503. No storm host: it only
		// adds waiting; and the slow page is slow for a short while.
		Hostile:       true,
		HostileConfig: fakeweb.HostileConfig{Every: 4, StormHost: -1, RetryAfter: time.Second, SlowDelay: 300 * time.Millisecond},
	}
	cfg.Duplicates = true        // identical payloads on every host: revisit records
	cfg.ConditionalRobots = true // robots.txt answers 304 to conditional refetches
	web, addr := startWeb(t, cfg)
	s := testSettings(t, reencode(t, addr))
	s.Robots.TTL = 300 * time.Millisecond // refetched during the crawl: server-not-modified revisits
	s.WARC.MaxSize = 128 << 10            // several files, so that revisits may cross them
	// The drip is cut (a chunked body truncated by time) and the hang
	// given up on after a second, not three: each is tried three times.
	// What else the crawl meets answers within it, and what would not
	// is retried; no server-side judge counts that here.
	s.Timeout = time.Second
	res := crawlInProcess(t, s, web.Seeds())
	var paths []string
	for _, name := range res.WARCFiles {
		if strings.HasSuffix(name, ".open") {
			t.Errorf("%s still open after the crawl", name)
		}
		paths = append(paths, filepath.Join(res.WARCDir, name))
	}
	if len(paths) == 0 {
		t.Fatal("the crawl wrote no WARC file")
	}

	fault := func(_, msg string) { t.Error(msg) }
	ours := verifyOurs(t, paths, fault)
	theirs := readNlnwa(t, paths, fault)
	t.Logf("%d files, %d records: %v", len(paths), theirs.records, theirs.types)
	t.Logf("coverage: %+v", theirs.cover)
	if ours.Records != theirs.records {
		t.Errorf("warc.Verify read %d records, nlnwa/gowarc %d", ours.Records, theirs.records)
	}
	// The features this test is about must have been met.
	for what, n := range map[string]int{
		"chunked responses":         theirs.cover.chunked,
		"gzip-encoded responses":    theirs.cover.gzip,
		"cut (truncated) bodies":    theirs.cover.truncated,
		"redirects":                 theirs.cover.redirects,
		"404 responses":             theirs.cover.notFound,
		"responses without payload": theirs.cover.noPayload,
	} {
		if n == 0 {
			t.Errorf("no %s in the WARC files: the test does not test them", what)
		}
	}

	if ia := verifyIA(t, paths, fault); ia.records != theirs.records {
		t.Errorf("internetarchive/gowarc read %d records, nlnwa/gowarc %d", ia.records, theirs.records)
	}
	if theirs.types[gowarc.Revisit.String()] == 0 {
		t.Error("no revisit records: the test does not test them")
	}

	w := readWarcio(t, paths, fault)
	if w == nil {
		return
	}
	if w.Records != theirs.records || w.Files != len(paths) {
		t.Errorf("warcio read %d records in %d files, nlnwa/gowarc %d in %d", w.Records, w.Files, theirs.records, len(paths))
	}
	if w.Checked.RevisitsResolved != theirs.types[gowarc.Revisit.String()] {
		t.Errorf("warcio resolved %d revisits of %d", w.Checked.RevisitsResolved, theirs.types[gowarc.Revisit.String()])
	}
}

// faultFunc receives a reader's fault about the record with the given
// WARC-Record-ID ("" when it is about no one record).
type faultFunc func(recordID, msg string)

// reencode puts a proxy in front of fakeweb's (at upstream) that changes
// how some plain pages travel: /p/N is answered chunked when N%4 is 1,
// gzip-encoded when it is 2 (if the request accepts gzip), and both
// when it is 3. fakeweb itself sends chunked and gzip-encoded answers
// only where they are cut (the drip) or where the crawl deduplicates them
// into revisits (the exact duplicates), so without this proxy few whole
// chunked or encoded bodies would reach the WARC files. It returns the
// proxy's address.
func reencode(t *testing.T, upstream string) string {
	t.Helper()
	tr := &http.Transport{
		Proxy:              http.ProxyURL(&url.URL{Scheme: "http", Host: upstream}),
		DisableCompression: true, // pass the crawler's Accept-Encoding through as it is
	}
	t.Cleanup(tr.CloseIdleConnections)
	rp := &httputil.ReverseProxy{
		Transport: tr,
		// The request arrives in absolute form and goes on in it, to
		// fakeweb, unchanged.
		Rewrite:        func(*httputil.ProxyRequest) {},
		ModifyResponse: reencodePage,
		ErrorLog:       log.New(io.Discard, "", 0), // a hang cut by the crawler is not news
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

func reencodePage(resp *http.Response) error {
	n, err := strconv.Atoi(strings.TrimPrefix(resp.Request.URL.Path, "/p/"))
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "" || n%4 == 0 {
		return nil
	}
	if n%4 >= 2 && strings.Contains(resp.Request.Header.Get("Accept-Encoding"), "gzip") {
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(body)
		zw.Close()
		resp.Body = io.NopCloser(&z)
		resp.ContentLength = int64(z.Len())
		resp.Header.Set("Content-Length", strconv.Itoa(z.Len()))
		resp.Header.Set("Content-Encoding", "gzip")
	}
	if n%2 == 1 {
		// With no length known, ReverseProxy flushes every write and
		// net/http answers chunked.
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return nil
}

// verifyOurs runs internal/warc's verifier over all the files together,
// so that revisits resolve across files. Warnings (digests of truncated
// records, which cannot be checked) are logged, faults fail.
func verifyOurs(t *testing.T, paths []string, fault faultFunc) warc.Summary {
	t.Helper()
	v := warc.NewVerifier(warc.VerifyOptions{})
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		err = v.File(f, filepath.Base(p))
		f.Close()
		if err != nil {
			t.Fatalf("warc.Verify: %v", err)
		}
	}
	problems, sum := v.Finish()
	warnings := 0
	for _, p := range problems {
		if p.Severity == warc.Fault {
			fault(p.RecordID, "warc.Verify: "+p.String())
		} else if warnings++; warnings <= 5 {
			t.Logf("warc.Verify: %s", p)
		}
	}
	t.Logf("warc.Verify: %+v", sum)
	return sum
}

// nlnwaOptions make nlnwa/gowarc report every problem it finds, syntax,
// specification (digests and Content-Length included), unknown record
// types and unparsable HTTP headers, as validation errors of the record
// (ErrWarn, so that one problem does not hide the next: ErrFail stops at
// the first), and repair nothing.
func nlnwaOptions() []gowarc.WarcRecordOption {
	return []gowarc.WarcRecordOption{
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrWarn),
		gowarc.WithSpecViolationPolicy(gowarc.ErrWarn),
		gowarc.WithUnknownRecordTypePolicy(gowarc.ErrWarn),
		gowarc.WithBlockErrorPolicy(gowarc.ErrWarn),
		gowarc.WithAddMissingDigest(false),
		gowarc.WithFixDigest(false),
		gowarc.WithFixContentLength(false),
		gowarc.WithFixSyntaxErrors(false),
		gowarc.WithFixWarcFieldsBlockErrors(false),
		gowarc.WithAddMissingRecordId(false),
		gowarc.WithAddMissingContentLength(false),
	}
}

// coverage counts the kinds of response this test is meant to meet.
type coverage struct {
	chunked, gzip, truncated, redirects, notFound, noPayload, revisits int
}

type nlnwaResult struct {
	records int
	types   map[string]int
	cover   coverage
}

// nlnwaPayloadError is how nlnwa/gowarc reports a payload digest that
// does not match: "payload: wrong digest: expected sha1:X, computed: sha1:Y".
var nlnwaPayloadError = regexp.MustCompile(`^payload: wrong digest: expected (\S+), computed: (\S+)$`)

// nlnwaRecord is what revisit resolution needs of a record.
type nlnwaRecord struct {
	typ, uri, date, payloadDigest string
}

// readNlnwa reads every record of every file with nlnwa/gowarc (which
// validates both digests of each record while reading it) and resolves
// revisits across the files, which nlnwa/gowarc itself does not do.
func readNlnwa(t *testing.T, paths []string, fault faultFunc) nlnwaResult {
	t.Helper()
	res := nlnwaResult{types: map[string]int{}}
	byID := map[string]nlnwaRecord{}
	byURIDate := map[string]nlnwaRecord{}
	type revisit struct {
		file, id, refersTo, refURI, refDate, profile, payloadDigest string
	}
	var revisits []revisit
	exceptions := 0
	for _, path := range paths {
		file := filepath.Base(path)
		r, err := gowarc.NewWarcFileReader(path, 0, nlnwaOptions()...)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, off, validation, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				fault("", fmt.Sprintf("nlnwa/gowarc: %s at %d: %v", file, off, err))
				break
			}
			res.records++
			h := rec.WarcHeader()
			res.types[rec.Type().String()]++
			id := "<" + rec.RecordId() + ">" // gowarc drops the brackets
			uri := h.Get(gowarc.WarcTargetURI)
			info := nlnwaRecord{typ: rec.Type().String(), uri: uri, date: h.Get(gowarc.WarcDate), payloadDigest: h.Get(gowarc.WarcPayloadDigest)}
			byID[id] = info
			if rec.Type() == gowarc.Response || rec.Type() == gowarc.Resource {
				byURIDate[uri+" "+info.date] = info
			}
			if rec.Type() == gowarc.Revisit {
				res.cover.revisits++
				revisits = append(revisits, revisit{file, id, h.Get(gowarc.WarcRefersTo), h.Get(gowarc.WarcRefersToTargetURI),
					h.Get(gowarc.WarcRefersToDate), h.Get(gowarc.WarcProfile), info.payloadDigest})
			}

			var raw []byte    // the bytes after the HTTP header, as nlnwa/gowarc sees the payload
			var header []byte // the HTTP header as stored
			if blk, ok := rec.Block().(gowarc.HttpResponseBlock); ok && rec.Type() == gowarc.Response {
				header = blk.ProtocolHeaderBytes()
				switch code := blk.HttpStatusCode(); {
				case code >= 300 && code < 400:
					res.cover.redirects++
				case code == http.StatusNotFound:
					res.cover.notFound++
				}
				if headerChunked(header) {
					res.cover.chunked++
				}
				if strings.EqualFold(blk.HttpHeader().Get("Content-Encoding"), "gzip") {
					res.cover.gzip++
				}
				if v := h.Get(gowarc.WarcTruncated); v == "length" || v == "time" {
					res.cover.truncated++ // cut bodies, not noarchive pages
				}
				if !h.Has(gowarc.WarcPayloadDigest) {
					res.cover.noPayload++
				}
				pr, err := blk.PayloadBytes()
				if err != nil {
					t.Fatalf("nlnwa/gowarc: %s %s: payload: %v", file, id, err)
				}
				if raw, err = io.ReadAll(pr); err != nil {
					t.Fatalf("nlnwa/gowarc: %s %s: payload: %v", file, id, err)
				}
			}
			for _, verr := range *validation {
				if m := nlnwaPayloadError.FindStringSubmatch(verr.Error()); m != nil && header != nil {
					if why := chunkedPayloadException(m[1], m[2], raw, header); why != "" {
						exceptions++
						if exceptions <= 3 {
							t.Logf("nlnwa/gowarc: %s %s %s: %v: expected, %s", file, id, uri, verr, why)
						}
						continue
					}
				}
				fault(id, fmt.Sprintf("nlnwa/gowarc: %s at %d %s (%s %s): %v", file, off, id, rec.Type(), uri, verr))
			}
			rec.Close()
		}
		r.Close()
	}
	t.Logf("nlnwa/gowarc: %d records; %d payload digest mismatches on chunked responses, all explained (exception nlnwaHashesChunkedBytes)", res.records, exceptions)

	// Revisits: nlnwa/gowarc reads them but leaves their payload digest
	// alone (it is the original's); resolve them here from its headers.
	for _, rv := range revisits {
		var orig nlnwaRecord
		var ok bool
		switch {
		case rv.refersTo != "":
			orig, ok = byID[rv.refersTo]
		case rv.refURI != "" && rv.refDate != "":
			orig, ok = byURIDate[rv.refURI+" "+rv.refDate]
		}
		switch {
		case !ok:
			fault(rv.id, fmt.Sprintf("nlnwa/gowarc: %s revisit %s: original %s (%s at %s) not in the crawl's files", rv.file, rv.id, rv.refersTo, rv.refURI, rv.refDate))
		case orig.typ != gowarc.Response.String() && orig.typ != gowarc.Resource.String():
			fault(rv.id, fmt.Sprintf("nlnwa/gowarc: %s revisit %s refers to a %s record", rv.file, rv.id, orig.typ))
		case strings.HasSuffix(rv.profile, "/identical-payload-digest") && !sameLabelled(rv.payloadDigest, orig.payloadDigest):
			fault(rv.id, fmt.Sprintf("nlnwa/gowarc: %s revisit %s: payload digest %s, original's %s", rv.file, rv.id, rv.payloadDigest, orig.payloadDigest))
		case rv.refURI != "" && rv.refURI != orig.uri:
			fault(rv.id, fmt.Sprintf("nlnwa/gowarc: %s revisit %s: WARC-Refers-To-Target-URI %s, original's %s", rv.file, rv.id, rv.refURI, orig.uri))
		case rv.refDate != "" && rv.refDate != orig.date:
			fault(rv.id, fmt.Sprintf("nlnwa/gowarc: %s revisit %s: WARC-Refers-To-Date %s, original's %s", rv.file, rv.id, rv.refDate, orig.date))
		}
	}
	return res
}

// chunkedPayloadException explains a payload digest mismatch reported by
// nlnwa/gowarc, or returns "" when it cannot. Exception
// nlnwaHashesChunkedBytes (docs/readers.md): nlnwa/gowarc v2.0.1 takes the
// payload to be every byte after the HTTP header, chunked framing
// included, where WARC 1.1 section 6.3.2 says the payload is the entity
// body with the transfer encoding removed. It is that, and only that,
// when the response is chunked, nlnwa/gowarc's computed digest is the
// SHA-1 of the still-chunked bytes, and the recorded digest is the SHA-1
// of those bytes de-chunked (or, for a truncated record, of as much of
// them as de-chunks).
func chunkedPayloadException(expected, computed string, raw, header []byte) string {
	if !headerChunked(header) || computed != sha1Labelled(raw) {
		return ""
	}
	entity, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(raw)))
	if expected != sha1Labelled(entity) {
		return ""
	}
	if err != nil {
		return "nlnwa/gowarc hashed the chunked bytes; the record's digest is that of the de-chunked part of a truncated body"
	}
	return "nlnwa/gowarc hashed the chunked bytes; the record's digest is that of the de-chunked entity"
}

// headerChunked reports whether an HTTP response header, as stored, says
// Transfer-Encoding: chunked. (The parsed header nlnwa/gowarc offers has
// lost the field: net/http moves it out of the header map.)
func headerChunked(header []byte) bool {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(header)), nil)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return slices.Contains(resp.TransferEncoding, "chunked")
}

func sha1Labelled(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

// sameLabelled compares two WARC digests written the same way (ours are
// base32): equal, and not empty.
func sameLabelled(a, b string) bool {
	return a != "" && strings.EqualFold(a, b)
}

// warcioReport is the JSON that tools/warcio/check.mjs prints.
type warcioReport struct {
	Reader  string         `json:"reader"`
	Version string         `json:"version"`
	Files   int            `json:"files"`
	Records int            `json:"records"`
	Types   map[string]int `json:"types"`
	Checked struct {
		BlockDigests     int `json:"block_digests"`
		PayloadDigests   int `json:"payload_digests"`
		RevisitsResolved int `json:"revisits_resolved"`
		ContentsDecoded  int `json:"contents_decoded"`
	} `json:"checked"`
	Problems  []warcioRecord `json:"problems"`
	Truncated []struct {
		warcioRecord
		Reason               string `json:"reason"`
		Chunked              bool   `json:"chunked"`
		DechunkError         bool   `json:"dechunk_error"`
		PayloadDigestMatches bool   `json:"payload_digest_matches"`
	} `json:"truncated"`
	SerializerChunkedPayload []warcioRecord `json:"serializer_chunked_payload"`
}

type warcioRecord struct {
	File    string `json:"file"`
	Record  int    `json:"record"`
	Offset  int64  `json:"offset"`
	ID      string `json:"id"`
	Type    string `json:"type"`
	Target  string `json:"target"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// readWarcio runs tools/warcio/check.mjs over all the files and fails on
// every problem it reports. When warcio.js is not available, and not
// required, it says so in the test's log and returns nil: the caller
// leaves out what it would check with the report (or skips, when that
// is all it checks), and goes on with the rest.
func readWarcio(t *testing.T, paths []string, fault faultFunc) *warcioReport {
	t.Helper()
	unavailable := func(format string, args ...any) *warcioReport {
		t.Helper()
		if os.Getenv("GODWIT_REQUIRE_WARCIO") == "1" {
			t.Fatalf("warcio.js: "+format+" (GODWIT_REQUIRE_WARCIO=1)", args...)
		}
		t.Logf("warcio.js not checked: "+format+"; run npm ci --prefix tools/warcio (GODWIT_REQUIRE_WARCIO=1 makes this a failure)", args...)
		return nil
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return unavailable("node not found: %v", err)
	}
	if _, err := os.Stat(filepath.Join(warcioDir, "node_modules", "warcio", "package.json")); err != nil {
		return unavailable("not installed in %s: %v", warcioDir, err)
	}
	cmd := exec.Command(node, append([]string{filepath.Join(warcioDir, "check.mjs")}, paths...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("warcio.js: check.mjs: %v\n%s", err, tail(stderr.String(), 4000))
	}
	if stderr.Len() > 0 {
		// warcio warns on stderr (console.warn) about framing it
		// tolerates, such as a record not followed by its CRLF CRLF.
		sc := bufio.NewScanner(&stderr)
		for sc.Scan() {
			fault("", "warcio.js warned: "+sc.Text())
		}
	}
	var rep warcioReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("warcio.js: check.mjs output: %v\n%s", err, tail(stdout.String(), 4000))
	}
	for _, p := range rep.Problems {
		fault(p.ID, fmt.Sprintf("warcio.js %s: %s record %d at %d %s (%s %s): %s: %s", rep.Version, p.File, p.Record, p.Offset, p.ID, p.Type, p.Target, p.Kind, p.Message))
	}
	t.Logf("warcio.js %s: %d files, %d records %v; checked %+v; %d truncated records (digests not judged)",
		rep.Version, rep.Files, rep.Records, rep.Types, rep.Checked, len(rep.Truncated))
	for _, tr := range rep.Truncated {
		t.Logf("warcio.js: truncated (%s) %s: chunked %v, de-chunks cleanly %v, payload digest matches %v",
			tr.Reason, tr.Target, tr.Chunked, !tr.DechunkError, tr.PayloadDigestMatches)
	}
	if n := len(rep.SerializerChunkedPayload); n > 0 {
		t.Logf("warcio.js: %d chunked responses whose digest warcio.js's WARCSerializer would compute over the chunked bytes (exception warcioSerializerHashesChunkedBytes, not a fault of the file)", n)
	}
	return &rep
}

// TestWARCReadersHarness proves that each reader check of
// TestBinaryWARCReaders fails when it should: on a hand-made WARC file
// holding good records (a chunked response whose payload digest is that
// of the de-chunked entity, which nlnwa/gowarc disputes, and a revisit)
// and planted faults (a wrong payload digest, a wrong block digest, a
// chunked response whose digest is wrong either way, a revisit whose
// original is nowhere), each reader must report exactly the faulty
// records, so that the exceptions swallow nothing but what they name.
func TestWARCReadersHarness(t *testing.T) {
	const date = "2025-01-01T00:00:00Z"
	id := func(n int) string { return fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", n) }
	httpCT := [2]string{"Content-Type", "application/http;msgtype=response"}
	chunked := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
	plain := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	revisit := func(refersTo, uri string) [][2]string {
		return [][2]string{{"WARC-Target-URI", "http://a.test/plain"}, httpCT,
			{"WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"},
			{"WARC-Refers-To", refersTo}, {"WARC-Refers-To-Target-URI", uri}, {"WARC-Refers-To-Date", date},
			{"WARC-Payload-Digest", sha1Labelled([]byte("hello"))}, {"WARC-Truncated", "length"}}
	}
	records := []struct {
		fields [][2]string
		typ    string
		block  string
		bad    bool
	}{
		{typ: "warcinfo", fields: [][2]string{{"Content-Type", "application/warc-fields"}}, block: "software: harness\r\n"},
		{typ: "response", block: chunked, fields: [][2]string{{"WARC-Target-URI", "http://a.test/chunked"}, httpCT,
			{"WARC-Payload-Digest", sha1Labelled([]byte("hello world"))}}},
		{typ: "response", block: plain, fields: [][2]string{{"WARC-Target-URI", "http://a.test/plain"}, httpCT,
			{"WARC-Payload-Digest", sha1Labelled([]byte("hello"))}}},
		{typ: "revisit", block: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", fields: revisit(id(2), "http://a.test/plain")},
		{typ: "response", block: plain, bad: true, fields: [][2]string{{"WARC-Target-URI", "http://a.test/bad-payload"}, httpCT,
			{"WARC-Payload-Digest", sha1Labelled([]byte("other"))}}},
		{typ: "response", block: plain, bad: true, fields: [][2]string{{"WARC-Target-URI", "http://a.test/bad-block"}, httpCT,
			{"WARC-Payload-Digest", sha1Labelled([]byte("hello"))}, {"WARC-Block-Digest", sha1Labelled([]byte("other"))}}},
		{typ: "response", block: chunked, bad: true, fields: [][2]string{{"WARC-Target-URI", "http://a.test/bad-chunked"}, httpCT,
			{"WARC-Payload-Digest", sha1Labelled([]byte("hello world!"))}}},
		{typ: "revisit", block: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", bad: true, fields: revisit(id(99), "http://a.test/gone")},
	}
	var file bytes.Buffer
	want := map[string]bool{}
	for i, r := range records {
		fmt.Fprintf(&file, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: %s\r\nWARC-Date: %s\r\n", r.typ, id(i), date)
		digest := sha1Labelled([]byte(r.block))
		for _, f := range r.fields {
			if f[0] == "WARC-Block-Digest" {
				digest = f[1]
				continue
			}
			fmt.Fprintf(&file, "%s: %s\r\n", f[0], f[1])
		}
		fmt.Fprintf(&file, "WARC-Block-Digest: %s\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", digest, len(r.block), r.block)
		if r.bad {
			want[id(i)] = true
		}
	}
	path := filepath.Join(t.TempDir(), "harness.warc")
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, reader := range []struct {
		name string
		read func(t *testing.T, fault faultFunc)
	}{
		{"warc.Verify", func(t *testing.T, fault faultFunc) { verifyOurs(t, []string{path}, fault) }},
		{"nlnwa", func(t *testing.T, fault faultFunc) { readNlnwa(t, []string{path}, fault) }},
		{"warcio", func(t *testing.T, fault faultFunc) {
			if readWarcio(t, []string{path}, fault) == nil {
				t.Skip("warcio.js is not available")
			}
		}},
	} {
		t.Run(reader.name, func(t *testing.T) {
			got := map[string]bool{}
			reader.read(t, func(id, msg string) {
				got[id] = true
				if !want[id] {
					t.Errorf("fault on a good record: %s", msg)
				}
			})
			for id := range want {
				if !got[id] {
					t.Errorf("no fault on bad record %s", id)
				}
			}
		})
	}
}

// iaDir holds the go.mod that pins internetarchive/gowarc.
const iaDir = "../../tools/iagowarc"

type iaResult struct{ records int }

// verifyIA runs internetarchive/gowarc's own verifier ("warc verify
// --json", built from tools/iagowarc) over every file and judges each
// problem it reports. Three kinds are its own limits, not faults of the
// files, each proven on the record (docs/readers.md):
//
//   - iaVersionAliasing: v0.8.90's reader returns the record's version
//     line as a slice of a buffer it reuses, so it reports "invalid WARC
//     version" for records whose version line our reader reads as WARC/1.1;
//   - iaRequiresPayloadDigest: it wants WARC-Payload-Digest on every
//     response, which WARC 1.1 makes optional; godwit leaves it out only
//     where the block has no payload (WARC-Truncated: unspecified);
//   - iaIgnoresTruncated: it reads a cut body to the length its HTTP
//     header announced ("failed to calculate payload digest: unexpected
//     EOF") or compares the digest of the cut bytes with the payload
//     digest; WARC-Truncated says the block holds less.
func verifyIA(t *testing.T, paths []string, fault faultFunc) iaResult {
	t.Helper()
	bin, err := builds.binary("iawarc", iaDir, "github.com/internetarchive/gowarc/cmd")
	if err != nil {
		if os.Getenv("GODWIT_REQUIRE_WARCIO") == "1" {
			t.Fatalf("building internetarchive/gowarc: %v", err)
		}
		t.Logf("internetarchive/gowarc not checked: cannot build it (%v); GODWIT_REQUIRE_WARCIO=1 makes this a failure", err)
		return iaResult{}
	}
	type rec struct{ version, truncated, typ string }
	ours := map[string]rec{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := warc.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			r, err := rd.Next()
			if err != nil {
				break
			}
			ours[r.Header.Get(warc.FieldRecordID)] = rec{r.Version, r.Header.Get(warc.FieldTruncated), r.Type}
		}
		f.Close()
	}

	out, _ := exec.Command(bin, append([]string{"verify", "--json", "--threads", "1"}, paths...)...).Output()
	var res iaResult
	var versionBug, noPayload, truncated int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			Msg            string `json:"msg"`
			File           string `json:"file"`
			RecordID       string `json:"recordID"`
			Valid          bool   `json:"valid"`
			Count          int    `json:"count"`
			AllRecordsRead bool   `json:"allRecordsRead"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("internetarchive/gowarc printed %q", line)
			continue
		}
		r, known := ours[m.RecordID]
		switch {
		case strings.HasPrefix(m.Msg, "checked in "):
			res.records += m.Count
			if !m.AllRecordsRead {
				fault("", "internetarchive/gowarc could not read "+filepath.Base(m.File)+" to its end")
			}
		case m.Msg == "invalid WARC version" && known && (r.version == "WARC/1.1" || r.version == "WARC/1.0"):
			versionBug++ // iaVersionAliasing
		case m.Msg == "WARC-Payload-Digest is missing" && known && r.truncated == "unspecified":
			noPayload++ // iaRequiresPayloadDigest
		case (m.Msg == "payload digests do not match" || m.Msg == "failed to calculate payload digest") && known && r.truncated != "":
			truncated++ // iaIgnoresTruncated
		default:
			fault(m.RecordID, fmt.Sprintf("internetarchive/gowarc: %s: %s (record %s, %s, WARC-Truncated %q): %s",
				filepath.Base(m.File), m.Msg, m.RecordID, r.typ, r.truncated, line))
		}
	}
	t.Logf("internetarchive/gowarc v0.8.90: %d records; explained: %d version lines misread (iaVersionAliasing), %d responses without payload (iaRequiresPayloadDigest), %d cut bodies (iaIgnoresTruncated)",
		res.records, versionBug, noPayload, truncated)
	return res
}
