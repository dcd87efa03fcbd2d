package warc

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestWriteCDXJ(t *testing.T) {
	cfg := testConfig(t)
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req1, resp1 := capture("http://www.example.com/b?z=1&a=2", 300)
	req2, resp2 := capture("http://example.com/a", 200)
	resp2.Header.Set(FieldDate, "2024-01-01T00:00:00Z") // earlier than resp1
	rv := revisitOf(resp1)
	rv.Header.Set(FieldDate, "2025-06-01T00:00:00Z")
	res := &Record{Type: TypeResource, Block: []byte("résumé")}
	res.Header.Set(FieldTargetURI, "http://example.com/r%C3%A9sum%C3%A9.txt")
	res.Header.Set(FieldContentType, "text/plain; charset=utf-8")
	meta := otherRecords(resp1)[:1] // a metadata record, not indexed
	var atWrite []string            // lines from CDXJLine as records are written
	for _, g := range [][]*Record{{req1, resp1}, {req2, resp2}, {rv}, {res}, meta} {
		locs, err := w.Write(g...)
		if err != nil {
			t.Fatal(err)
		}
		for i, rec := range g {
			if line, ok := CDXJLine(rec, locs[i]); ok {
				atWrite = append(atWrite, line)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfg.Dir, w.Files()[0])
	var out bytes.Buffer
	if err := WriteCDXJ(&out, path); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(out.String(), "\n")
	lines = lines[:len(lines)-1]
	if !slices.IsSorted(lines) {
		t.Errorf("lines not sorted:\n%s", out.String())
	}
	slices.Sort(atWrite)
	if !slices.Equal(atWrite, lines) {
		t.Errorf("CDXJLine at write time:\n%s\nWriteCDXJ of the file:\n%s", strings.Join(atWrite, ""), out.String())
	}
	type entry struct {
		URL, Mime, Status, Digest, Length, Offset, Filename string
	}
	want := []struct {
		key, ts string
		e       entry
		id      string
	}{
		{"com,example)/a", "20240101000000", entry{URL: "http://example.com/a", Mime: "text/html", Status: "200", Digest: strings.TrimPrefix(resp2.Header.Get(FieldPayloadDigest), "sha1:")}, resp2.Header.Get(FieldRecordID)},
		{"com,example)/b?a=2&z=1", "20250304050607", entry{URL: "http://www.example.com/b?z=1&a=2", Mime: "text/html", Status: "200", Digest: strings.TrimPrefix(resp1.Header.Get(FieldPayloadDigest), "sha1:")}, resp1.Header.Get(FieldRecordID)},
		{"com,example)/b?a=2&z=1", "20250601000000", entry{URL: "http://www.example.com/b?z=1&a=2", Mime: "warc/revisit", Status: "200", Digest: strings.TrimPrefix(resp1.Header.Get(FieldPayloadDigest), "sha1:")}, rv.Header.Get(FieldRecordID)},
		{"com,example)/r%c3%a9sum%c3%a9.txt", "", entry{URL: "http://example.com/r%C3%A9sum%C3%A9.txt", Mime: "text/plain", Digest: strings.TrimPrefix(Digest("sha1", res.Block), "sha1:")}, res.Header.Get(FieldRecordID)},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		key, rest, _ := strings.Cut(lines[i], " ")
		ts, js, _ := strings.Cut(rest, " ")
		if key != w.key || (w.ts != "" && ts != w.ts) || len(ts) != 14 {
			t.Errorf("line %d = %q, want key %q timestamp %q", i, lines[i], w.key, w.ts)
		}
		var e entry
		if err := json.Unmarshal([]byte(js), &e); err != nil {
			t.Fatalf("line %d: JSON: %v", i, err)
		}
		if e.URL != w.e.URL || e.Mime != w.e.Mime || e.Status != w.e.Status || e.Digest != w.e.Digest || e.Filename != filepath.Base(path) {
			t.Errorf("line %d = %+v, want %+v", i, e, w.e)
		}
		// The offset and length address exactly the record's gzip member.
		off, _ := strconv.ParseInt(e.Offset, 10, 64)
		n, _ := strconv.ParseInt(e.Length, 10, 64)
		rd, err := NewReader(bytes.NewReader(data[off : off+n]))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := rd.Next()
		if err != nil {
			t.Fatalf("line %d: record at %d+%d: %v", i, off, n, err)
		}
		if got := rec.Header.Get(FieldRecordID); got != w.id {
			t.Errorf("line %d: record at offset %d is %s, want %s", i, off, got, w.id)
		}
		if _, err := rd.Next(); err == nil {
			t.Errorf("line %d: length %d covers more than one record", i, n)
		}
	}
	// JSON keys in pywb's order, with pywb's separators.
	if !strings.Contains(lines[0], `{"url": "http://example.com/a", "mime": "text/html", "status": "200", "digest": "`) ||
		!strings.HasSuffix(lines[0], `", "filename": "`+filepath.Base(path)+"\"}\n") {
		t.Errorf("line 0 = %q: not in pywb's layout", lines[0])
	}
}

func TestWriteCDXJTornFile(t *testing.T) {
	req, resp := capture("http://example.com/", 1000)
	_, data := writeRecords(t, req, resp)
	path := filepath.Join(t.TempDir(), "torn.warc.gz")
	if err := os.WriteFile(path, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := WriteCDXJ(&out, path)
	if err == nil || !strings.Contains(err.Error(), "torn tail") {
		t.Errorf("WriteCDXJ(torn) = %v, want a torn tail error", err)
	}
	if out.Len() != 0 {
		t.Errorf("WriteCDXJ(torn) wrote %q, want nothing", out.String())
	}
}

func TestSURTKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://www.example.com/A/?b=1&a=2", "com,example)/a?a=2&b=1"},
		{"https://example.com/?utm_source=x&id=1", "com,example)/?id=1&utm_source=x"}, // pywb keeps tracking parameters
		{"http://example.com/p;jsessionid=ABC", "com,example)/p;jsessionid=abc"},
		{"metadata://gnu.org/software/wget/warc/wget.log", "org,gnu)/software/wget/warc/wget.log"},
		{"dns:Example.com", "dns:example.com"},
	}
	for _, tt := range tests {
		if got := SURTKey(tt.in); got != tt.want {
			t.Errorf("SURTKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTimestamp14(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2017-03-06T04:02:06Z", "20170306040206"},
		{"2026-11-21T19:25:43.984586407Z", "20261121192543"},
		{"2014-03-04T19:23:21.000Z", "20140304192321"},
		{"2014-03-04", "20140304000000"},
	}
	for _, tt := range tests {
		if got := timestamp14(tt.in); got != tt.want {
			t.Errorf("timestamp14(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestWriteJSONString pins Python's json.dumps escaping, which pywb's
// lines use.
func TestWriteJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://example.com/a?b=<c>&d", `"http://example.com/a?b=<c>&d"`},
		{`quote " backslash \ slash /`, `"quote \" backslash \\ slash /"`},
		{"é\t\x01\x7f", `"\u00e9\t\u0001` + "\x7f" + `"`},
		{"😀", `"\ud83d\ude00"`},
	}
	for _, tt := range tests {
		var b strings.Builder
		writeJSONString(&b, tt.in)
		if got := b.String(); got != tt.want {
			t.Errorf("writeJSONString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestConformanceCDXJ compares our lines with those pywb's cdxj-indexer
// gives for warcio's samples (from its test suite, test_indexing.py).
func TestConformanceCDXJ(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("WARC samples not available at %s: %v", conformanceDir, err)
	}
	tests := []struct {
		file string
		want []string // lines expected among the output
		n    int      // lines in all
	}{
		{"warcio-py/post-test.warc.gz", []string{
			`org,httpbin)/post 20140610000859 {"url": "http://httpbin.org/post", "mime": "application/json", "status": "200", "digest": "M532K5WS4GY2H4OVZO6HRPOP47A7KDWU", "length": "720", "offset": "0", "filename": "post-test.warc.gz"}`,
			`org,httpbin)/post 20140610001151 {"url": "http://httpbin.org/post", "mime": "application/json", "status": "200", "digest": "M7YCTM7HS3YKYQTAWQVMQSQZBNEOXGU2", "length": "723", "offset": "1196", "filename": "post-test.warc.gz"}`,
			`org,httpbin)/post?foo=bar 20140610001255 {"url": "http://httpbin.org/post?foo=bar", "mime": "application/json", "status": "200", "digest": "B6E5P6JUZI6UPDTNO4L2BCHMGLTNCUAJ", "length": "723", "offset": "2395", "filename": "post-test.warc.gz"}`,
		}, 3},
		// cdxj-indexer's expected revisit line is for an older copy of
		// this file whose request records were shorter; the response line
		// is byte for byte the same.
		{"warcio-py/example.warc.gz", []string{
			`com,example)/ 20170306040206 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK", "length": "1228", "offset": "784", "filename": "example.warc.gz"}`,
			`com,example)/ 20170306040348 {"url": "http://example.com/", "mime": "warc/revisit", "status": "200", "digest": "G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK", "length": "586", "offset": "2621", "filename": "example.warc.gz"}`,
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var out bytes.Buffer
			if err := WriteCDXJ(&out, filepath.Join(conformanceDir, tt.file)); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(got) != tt.n {
				t.Errorf("got %d lines, want %d:\n%s", len(got), tt.n, out.String())
			}
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("missing line %s\ngot:\n%s", w, out.String())
				}
			}
		})
	}
}
