package events

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/process"
)

func page(i int) crawl.PageEvent {
	return crawl.PageEvent{
		URL: "http://a.test/" + strconv.Itoa(i), Status: 200, Time: time.Date(2026, 11, 25, 1, 0, i, 0, time.UTC),
		SimHash: 0xabc, HasSimHash: true, Title: "t", ContentType: "text/html",
		Capture:     crawl.Capture{File: "f.warc.gz", Offset: int64(i * 100), Length: 99, RecordID: "<urn:uuid:x>", Digest: "sha1:AAAA"},
		Annotations: []process.Annotation{{Key: "lang", Value: "en"}},
		Outlinks:    []string{"http://a.test/x"},
	}
}

func lines(t *testing.T, path string) []Event {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []Event
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, e)
	}
	return out
}

func TestFileRotatesAndResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "events.jsonl")
	write := func(from, to int) {
		f, err := Open(Config{Path: path, MaxSize: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for i := from; i < to; i++ {
			if err := f.Page(t.Context(), page(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write(0, 10)
	write(10, 20) // a resumed crawl appends, and numbers on
	rotated, err := Rotated(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rotated) < 2 {
		t.Fatalf("rotated = %v, want several files at 1000 bytes", rotated)
	}
	var all []Event
	for i, f := range append(rotated, path) {
		if want := path + "." + strconv.Itoa(i+1); i < len(rotated) && f != want {
			t.Errorf("rotated file %d = %s, want %s", i, f, want)
		}
		if fi, _ := os.Stat(f); fi.Size() > 1000 {
			t.Errorf("%s is %d bytes, over the 1000 allowed", f, fi.Size())
		}
		all = append(all, lines(t, f)...)
	}
	if len(all) != 20 {
		t.Fatalf("%d events, want 20", len(all))
	}
	for i, e := range all {
		if e.URL != page(i).URL {
			t.Fatalf("event %d is %s, want %s: out of order", i, e.URL, page(i).URL)
		}
	}
	e := all[3]
	if e.Event != "page" || e.SimHash != "0000000000000abc" || e.Digest != "sha1:AAAA" || e.WARC.Offset != 300 ||
		e.WARC.Length != 99 || string(e.Annotations["lang"]) != `"en"` || len(e.Outlinks) != 1 || !e.Time.Equal(page(3).Time) {
		t.Errorf("event = %+v, not what was written", e)
	}
}

func TestOpenRefuses(t *testing.T) {
	if _, err := Open(Config{}); err == nil {
		t.Error("Open without a path: no error")
	}
	if _, err := Open(Config{Path: filepath.Join(t.TempDir(), "e"), MaxSize: -1}); err == nil {
		t.Error("Open with a negative size: no error")
	}
}

// TestSchemaMatchesEvent: docs/events.schema.json names exactly the
// fields an Event has, and requires those never omitted.
func TestSchemaMatchesEvent(t *testing.T) {
	b, err := os.ReadFile("../../docs/events.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	full, err := json.Marshal(Encode(page(1)))
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	json.Unmarshal(full, &fields)
	for k := range fields {
		if _, ok := schema.Properties[k]; !ok {
			t.Errorf("event field %q not in the schema", k)
		}
	}
	for k := range schema.Properties {
		if _, ok := fields[k]; !ok {
			t.Errorf("schema property %q not in a full event", k)
		}
	}
	minimal, _ := json.Marshal(Encode(crawl.PageEvent{}))
	fields = nil
	json.Unmarshal(minimal, &fields)
	for _, k := range schema.Required {
		if _, ok := fields[k]; !ok {
			t.Errorf("required %q is omitted from an empty event", k)
		}
	}
}
