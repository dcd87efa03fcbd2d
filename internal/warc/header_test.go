package warc

import (
	"slices"
	"testing"
	"time"
)

func TestHeader(t *testing.T) {
	var h Header
	h.Add("WARC-Concurrent-To", "<urn:a>")
	h.Add("x-custom", "1")
	h.Add("warc-concurrent-to", "<urn:b>")
	if got := h.Get("WARC-CONCURRENT-TO"); got != "<urn:a>" {
		t.Errorf("Get = %q, want <urn:a>", got)
	}
	if got := h.Values("WARC-Concurrent-To"); !slices.Equal(got, []string{"<urn:a>", "<urn:b>"}) {
		t.Errorf("Values = %q", got)
	}
	h.Set("WARC-Concurrent-To", "<urn:c>")
	want := []Field{{"WARC-Concurrent-To", "<urn:c>"}, {"x-custom", "1"}}
	if got := h.Fields(); !slices.Equal(got, want) {
		t.Errorf("after Set: Fields() = %q, want %q", got, want)
	}
	h.Set("New", "v")
	h.Del("X-CUSTOM")
	want = []Field{{"WARC-Concurrent-To", "<urn:c>"}, {"New", "v"}}
	if got := h.Fields(); !slices.Equal(got, want) {
		t.Errorf("after Del: Fields() = %q, want %q", got, want)
	}
	c := h.Clone()
	c.Set("New", "changed")
	if h.Get("New") != "v" {
		t.Errorf("Clone shares storage with the original")
	}
	if h.Has("missing") || h.Get("missing") != "" || h.Len() != 2 {
		t.Errorf("Has/Get/Len on missing field wrong")
	}
}

func TestCheckField(t *testing.T) {
	tests := []struct {
		f  Field
		ok bool
	}{
		{Field{"WARC-Target-URI", "http://example.com/ä?q=1"}, true},
		{Field{"X-Tab", "a\tb"}, true},
		{Field{"", "v"}, false},
		{Field{"Bad Name", "v"}, false},
		{Field{"Bad:Name", "v"}, false},
		{Field{"N", "line\r\nInjected: 1"}, false},
		{Field{"N", "nul\x00"}, false},
		{Field{"N", "\xff\xfe"}, false},
	}
	for _, tt := range tests {
		if err := checkField(tt.f); (err == nil) != tt.ok {
			t.Errorf("checkField(%q) = %v, want ok=%v", tt.f, err, tt.ok)
		}
	}
}

func TestNewRecordID(t *testing.T) {
	a, b := NewRecordID(), NewRecordID()
	if a == b {
		t.Fatalf("NewRecordID returned %q twice", a)
	}
	// <urn:uuid:xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx>
	if len(a) != 47 || a[:10] != "<urn:uuid:" || a[24] != '4' || !isRecordID(a) {
		t.Errorf("NewRecordID() = %q, not a version 4 UUID URN", a)
	}
	if c := a[29]; c != '8' && c != '9' && c != 'a' && c != 'b' {
		t.Errorf("NewRecordID() = %q, wrong UUID variant", a)
	}
}

func TestDate(t *testing.T) {
	tm := time.Date(2025, 1, 2, 3, 4, 5, 678e6, time.FixedZone("x", 3600))
	if got, want := FormatDate(tm), "2025-01-02T02:04:05Z"; got != want {
		t.Errorf("FormatDate = %q, want %q", got, want)
	}
	for _, s := range []string{"2025-01-02T02:04:05Z", "2014-03-04T19:23:21.000Z", "2014-03-04T19:23:21.123456789Z"} {
		if _, err := ParseDate(s); err != nil {
			t.Errorf("ParseDate(%q) = %v", s, err)
		}
	}
	for _, s := range []string{"", "2025-01-02T02:04:05+01:00", "2025-01-02 02:04:05Z", "yesterday"} {
		if _, err := ParseDate(s); err == nil {
			t.Errorf("ParseDate(%q) = nil error, want one", s)
		}
	}
}

func TestParseFields(t *testing.T) {
	block := []byte("software: godwit\r\nformat: WARC File Format 1.1\r\ndescription: a long\r\n  text\r\n\r\nlf-only: yes\n")
	got, err := ParseFields(block)
	want := []Field{{"software", "godwit"}, {"format", "WARC File Format 1.1"}, {"description", "a long text"}, {"lf-only", "yes"}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseFields = %q, %v, want %q", got, err, want)
	}
	if _, err := ParseFields([]byte("no colon here\r\n")); err == nil {
		t.Errorf("ParseFields(no colon) = nil error")
	}
	fields := []Field{{"a", "1"}, {"b", "x y"}}
	if got, _ := ParseFields(FieldsBlock(fields)); !slices.Equal(got, fields) {
		t.Errorf("ParseFields(FieldsBlock(%q)) = %q", fields, got)
	}
}
