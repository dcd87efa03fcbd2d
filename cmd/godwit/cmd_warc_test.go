package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/warc"
)

// warcFixture is a WARC file written by warc.Writer: warcinfo (1), request
// (2), response (3, gzip-encoded body), request (4), chunked response (5),
// revisit of 3 (6), resource (7).
type warcFixture struct {
	path string
	body string // the response's decoded entity
	resp *warc.Record
}

func newWARCFixture(t *testing.T, dir string) warcFixture {
	t.Helper()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	w, err := warc.NewWriter(warc.WriterConfig{Dir: dir, Node: "test", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("<p>hello archive</p>\n", 20)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(body))
	zw.Close()

	exchange := func(url, head string, entity, payload []byte) (*warc.Record, *warc.Record) {
		req := &warc.Record{Type: warc.TypeRequest, Block: []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")}
		req.Header.Set(warc.FieldTargetURI, url)
		req.Header.Set(warc.FieldContentType, warc.ContentTypeHTTPRequest)
		resp := &warc.Record{Type: warc.TypeResponse, Block: append([]byte(head), entity...)}
		resp.Header.Set(warc.FieldRecordID, warc.NewRecordID())
		resp.Header.Set(warc.FieldTargetURI, url)
		resp.Header.Set(warc.FieldContentType, warc.ContentTypeHTTPResponse)
		resp.Header.Set(warc.FieldPayloadDigest, warc.Digest("sha1", payload))
		req.Header.Set(warc.FieldConcurrentTo, resp.Header.Get(warc.FieldRecordID))
		return req, resp
	}
	req1, resp1 := exchange("https://example.com/", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n", gz.Bytes(), gz.Bytes())
	req2, resp2 := exchange("https://example.com/chunked", "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n",
		[]byte("4\r\ngone\r\n0\r\n\r\n"), []byte("gone"))
	for _, g := range [][]*warc.Record{{req1, resp1}, {req2, resp2}} {
		if _, err := w.Write(g...); err != nil {
			t.Fatal(err)
		}
	}
	rv := revisitRecord(resp1)
	res := &warc.Record{Type: warc.TypeResource, Block: []byte("a resource\n")}
	res.Header.Set(warc.FieldTargetURI, "https://example.com/notes.txt")
	res.Header.Set(warc.FieldContentType, "text/plain")
	if _, err := w.Write(rv); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(res); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return warcFixture{path: filepath.Join(dir, w.Files()[0]), body: body, resp: resp1}
}

// revisitRecord is an identical-payload-digest revisit of resp.
func revisitRecord(resp *warc.Record) *warc.Record {
	rv := &warc.Record{Type: warc.TypeRevisit, Block: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")}
	rv.Header.Set(warc.FieldTargetURI, resp.Header.Get(warc.FieldTargetURI))
	rv.Header.Set(warc.FieldContentType, warc.ContentTypeHTTPResponse)
	rv.Header.Set(warc.FieldProfile, warc.ProfileIdenticalPayloadDigest)
	rv.Header.Set(warc.FieldRefersTo, resp.Header.Get(warc.FieldRecordID))
	rv.Header.Set(warc.FieldRefersToTargetURI, resp.Header.Get(warc.FieldTargetURI))
	rv.Header.Set(warc.FieldRefersToDate, resp.Header.Get(warc.FieldDate))
	rv.Header.Set(warc.FieldPayloadDigest, resp.Header.Get(warc.FieldPayloadDigest))
	rv.Header.Set(warc.FieldTruncated, "length")
	return rv
}

// tornCopy writes a copy of path without its last n bytes.
func tornCopy(t *testing.T, path string, n int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(t.TempDir(), "torn.warc.gz")
	if err := os.WriteFile(torn, data[:len(data)-n], 0o644); err != nil {
		t.Fatal(err)
	}
	return torn
}

func TestWARCLs(t *testing.T) {
	fx := newWARCFixture(t, t.TempDir())
	out, errOut, code := runCmd(t, "", "warc", "ls", fx.path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []struct{ typ, uri, status string }{
		{"warcinfo", "-", "-"},
		{"request", "https://example.com/", "-"},
		{"response", "https://example.com/", "200"},
		{"request", "https://example.com/chunked", "-"},
		{"response", "https://example.com/chunked", "404"},
		{"revisit", "https://example.com/", "200"},
		{"resource", "https://example.com/notes.txt", "-"},
	}
	if len(lines) != len(want) {
		t.Fatalf("ls printed %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	var next int64
	for i, w := range want {
		f := strings.Fields(lines[i])
		if len(f) != 8 {
			t.Fatalf("line %q: %d fields, want 8", lines[i], len(f))
		}
		if f[0] != fmt.Sprint(i+1) || f[1] != fmt.Sprint(next) || f[3] != w.typ || f[4] != "2025-06-01T12:00:00Z" || f[5] != w.uri || f[6] != w.status {
			t.Errorf("line %d = %q, want number %d offset %d type %s uri %s status %s", i, lines[i], i+1, next, w.typ, w.uri, w.status)
		}
		var n int64
		fmt.Sscan(f[2], &n)
		next += n
	}
	if f := strings.Fields(lines[2]); f[7] != fx.resp.Header.Get(warc.FieldPayloadDigest) {
		t.Errorf("response digest = %s, want %s", f[7], fx.resp.Header.Get(warc.FieldPayloadDigest))
	}

	// A torn file is listed up to the tear, then exit status 1.
	out, errOut, code = runCmd(t, "", "warc", "ls", tornCopy(t, fx.path, 20))
	if code != 1 || strings.Count(out, "\n") != len(want)-1 || !strings.Contains(errOut, "torn tail") {
		t.Errorf("ls torn: exit %d, %d lines, stderr %q; want 1, %d lines, a torn tail", code, strings.Count(out, "\n"), errOut, len(want)-1)
	}
	for _, args := range [][]string{{"warc", "ls"}, {"warc", "ls", filepath.Join(t.TempDir(), "missing.warc.gz")}, {"warc", "ls", t.TempDir()}} {
		if _, _, code := runCmd(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestWARCCat(t *testing.T) {
	fx := newWARCFixture(t, t.TempDir())
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(fx.body))
	zw.Close()
	tests := []struct {
		args     []string
		out      string
		code     int
		errorHas string
	}{
		{args: []string{"--record", "3", "--decode"}, out: fx.body},
		{args: []string{"--url", "https://example.com/", "--decode"}, out: fx.body},
		{args: []string{"--url", "http://www.example.com"}, out: gz.String()}, // same SURT key; still encoded
		{args: []string{"--record", "5"}, out: "gone"},                        // de-chunked
		{args: []string{"--record", "5", "--block"}, out: "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n4\r\ngone\r\n0\r\n\r\n"},
		{args: []string{"--record", "7"}, out: "a resource\n"},
		{args: []string{"--record", "6"}, out: "", errorHas: "is a revisit; its payload is that of <urn:uuid:"},
		{args: []string{"--record", "8"}, code: 1, errorHas: "has no record 8"},
		{args: []string{"--url", "https://example.com/none"}, code: 1, errorHas: "no response or resource record for https://example.com/none"},
		{args: nil, code: 2, errorHas: "give exactly one of"},
		{args: []string{"--record", "1", "--url", "https://example.com/"}, code: 2, errorHas: "give exactly one of"},
		{args: []string{"--record", "3", "--decode", "--block"}, code: 2, errorHas: "exclude each other"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := runCmd(t, "", append([]string{"warc", "cat", fx.path}, tt.args...)...)
			if code != tt.code || (tt.code == 0 && out != tt.out) || !strings.Contains(errOut, tt.errorHas) {
				t.Errorf("cat %v: exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", tt.args, code, out, errOut, tt.code, tt.out, tt.errorHas)
			}
		})
	}
}

func TestWARCVerify(t *testing.T) {
	dir := t.TempDir()
	fx := newWARCFixture(t, dir)
	out, errOut, code := runCmd(t, "", "warc", "verify", fx.path)
	if code != 0 || out != "checked 7 records in 1 files: 0 faults, 0 warnings\n" {
		t.Errorf("verify clean: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	torn := tornCopy(t, fx.path, 20)
	out, _, code = runCmd(t, "", "warc", "verify", torn)
	if code != 1 || !strings.Contains(out, torn+": record 7 at offset ") || !strings.Contains(out, ": fault: torn tail: ") ||
		!strings.HasSuffix(out, "checked 6 records in 1 files: 1 faults, 0 warnings\n") {
		t.Errorf("verify torn: exit %d, stdout %q", code, out)
	}

	// A revisit in a file of its own resolves only with its original.
	dir2 := t.TempDir()
	w, err := warc.NewWriter(warc.WriterConfig{Dir: dir2, Node: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(revisitRecord(fx.resp)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(dir2, w.Files()[0])
	out, _, code = runCmd(t, "", "warc", "verify", second)
	if code != 1 || !strings.Contains(out, "is not in the files verified") {
		t.Errorf("verify revisit alone: exit %d, stdout %q", code, out)
	}
	out, _, code = runCmd(t, "", "warc", "verify", "--external-revisits", second)
	if code != 0 || !strings.Contains(out, ": warning: revisit target") {
		t.Errorf("verify --external-revisits: exit %d, stdout %q", code, out)
	}
	out, _, code = runCmd(t, "", "warc", "verify", fx.path, second)
	if code != 0 || out != "checked 9 records in 2 files: 0 faults, 0 warnings\n" {
		t.Errorf("verify both: exit %d, stdout %q", code, out)
	}

	// The revisit's original is in the torn file, before the tear.
	out, _, code = runCmd(t, "", "warc", "verify", "--json", torn, second)
	var res struct {
		Files, Records, Faults, Warnings int
		Problems                         []struct {
			File, Severity, Message string
			RecordID                string `json:"record_id"`
			Record                  int
			Offset                  int64
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, out)
	}
	if code != 1 || res.Files != 2 || res.Records != 8 || res.Faults != 1 || res.Warnings != 0 || len(res.Problems) != 1 ||
		res.Problems[0].File != torn || res.Problems[0].Severity != "fault" || res.Problems[0].Record != 7 {
		t.Errorf("verify --json: exit %d, %+v", code, res)
	}

	for _, args := range [][]string{{"warc", "verify"}, {"warc", "verify", filepath.Join(dir, "missing")}, {"warc", "verify", "--bogus", fx.path}} {
		if _, _, code := runCmd(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestWARCCdx(t *testing.T) {
	dir := t.TempDir()
	fx := newWARCFixture(t, dir)
	out, errOut, code := runCmd(t, "", "warc", "cdx", fx.path)
	index := strings.TrimSuffix(fx.path, ".warc.gz") + ".cdxj"
	if code != 0 || out != index+": 4 captures\n" {
		t.Fatalf("cdx: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	wantKeys := []string{"com,example)/ 20250601120000", "com,example)/ 20250601120000", "com,example)/chunked 20250601120000", "com,example)/notes.txt 20250601120000"}
	if len(lines) != len(wantKeys) {
		t.Fatalf("index has %d lines, want %d:\n%s", len(lines), len(wantKeys), data)
	}
	for i, k := range wantKeys {
		if !strings.HasPrefix(lines[i], k+" {") {
			t.Errorf("line %d = %q, want key and timestamp %q", i, lines[i], k)
		}
	}
	if !strings.Contains(string(data), `"mime": "warc/revisit"`) || !strings.Contains(string(data), `"status": "404"`) {
		t.Errorf("index lacks the revisit or the 404:\n%s", data)
	}

	out, _, code = runCmd(t, "", "warc", "cdx", "-o", "-", fx.path)
	if code != 0 || out != string(data) {
		t.Errorf("cdx -o -: exit %d, stdout differs from the file:\n%s", code, out)
	}
	merged := filepath.Join(t.TempDir(), "all.cdxj")
	out, _, code = runCmd(t, "", "warc", "cdx", "-o", merged, fx.path, fx.path)
	if got, _ := os.ReadFile(merged); code != 0 || out != merged+": 8 captures\n" || strings.Count(string(got), "\n") != 8 {
		t.Errorf("cdx -o OUT: exit %d, stdout %q, %d lines", code, out, strings.Count(string(got), "\n"))
	}

	torn := tornCopy(t, fx.path, 20)
	_, errOut, code = runCmd(t, "", "warc", "cdx", torn)
	if _, err := os.Stat(strings.TrimSuffix(torn, ".warc.gz") + ".cdxj"); code != 1 || !strings.Contains(errOut, "torn tail") || err == nil {
		t.Errorf("cdx torn: exit %d, stderr %q, index stat %v; want 1, a torn tail, no index", code, errOut, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(torn)); len(entries) != 1 {
		t.Errorf("cdx torn left %d files, want only the WARC", len(entries))
	}
	if _, _, code := runCmd(t, "", "warc", "cdx"); code != 2 {
		t.Errorf("cdx without files: exit %d, want 2", code)
	}
}
