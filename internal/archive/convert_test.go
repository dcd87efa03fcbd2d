package archive

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// TestConvertRecords: a rendered page is a conversion record referring to
// the page's response record, its screenshot a resource record
// concurrent to it, both with valid digests.
func TestConvertRecords(t *testing.T) {
	dir := t.TempDir()
	a, err := New(warc.WriterConfig{Dir: dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	c, err := a.Record(ctx, crawl.Task{}, response("http://a.test/", `<div id="root"></div>`), crawl.Decision{})
	if err != nil {
		t.Fatal(err)
	}
	html := []byte(`<html><body><div id="root"><a href="/x">x</a></div></body></html>`)
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	if err := a.Convert(ctx, c, "http://a.test/", html, png); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"+warc.Ext))
	if len(files) != 1 {
		t.Fatalf("files %v, want 1", files)
	}
	var types []string
	var convID string
	for _, rec := range records(t, dir) {
		types = append(types, rec.Type)
		body := rec.Block
		switch rec.Type {
		case warc.TypeConversion:
			convID = rec.Header.Get(warc.FieldRecordID)
			if got := rec.Header.Get(warc.FieldRefersTo); got != c.RecordID || got == "" {
				t.Errorf("conversion WARC-Refers-To = %q, want the response's %q", got, c.RecordID)
			}
			if got := rec.Header.Get(warc.FieldTargetURI); got != "http://a.test/" {
				t.Errorf("conversion WARC-Target-URI = %q", got)
			}
			if got := rec.Header.Get(warc.FieldContentType); got != "text/html; charset=utf-8" {
				t.Errorf("conversion Content-Type = %q", got)
			}
			if !bytes.Equal(body, html) {
				t.Errorf("conversion block = %q, want the rendered DOM", body)
			}
		case warc.TypeResource:
			if got := rec.Header.Get(warc.FieldConcurrentTo); got != convID || got == "" {
				t.Errorf("screenshot WARC-Concurrent-To = %q, want the conversion's %q", got, convID)
			}
			if got := rec.Header.Get(warc.FieldTargetURI); got != "urn:screenshot:http://a.test/" {
				t.Errorf("screenshot WARC-Target-URI = %q", got)
			}
			if !bytes.Equal(body, png) {
				t.Errorf("screenshot block = %q", body)
			}
		}
		if rec.Type != warc.TypeWarcinfo {
			if err := warc.VerifyBlockDigest(rec); err != nil {
				t.Errorf("%s: %v", rec.Type, err)
			}
		}
	}
	if got := fmt.Sprint(types); got != "[warcinfo request response conversion resource]" {
		t.Errorf("records %s", got)
	}
}
