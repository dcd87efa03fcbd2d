package main

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSettingsRoundTrip: stored settings read back as they were, unset
// lists stay unset and empty ones empty, and what must not be stored is
// not: the admin token, the proxy's password, the process's own settings.
func TestSettingsRoundTrip(t *testing.T) {
	s := defaultSettings()
	s.Data = t.TempDir()
	s.Delay = 150 * time.Millisecond
	s.MaxDepth = 3
	s.AllowPrivate = true
	s.Proxy = "http://crawler:hunter2@proxy.example:3128"
	s.AdminToken = "s3cr3t"
	s.Admin = "10.0.0.1:7070"
	s.LogLevel = "debug"
	s.URL.StripParams = []string{} // strip nothing: not the same as unset
	s.Exclude.Patterns = []string{`\.pdf$`}
	s.Traps.Anomaly.Ratio = 0.5
	share := 0.6
	s.Recrawl.RevisitShare = &share

	d, err := lockData(s.Data)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if err := d.saveSettings(s, time.Now()); err != nil {
		t.Fatal(err)
	}
	f, err := d.readSettings()
	if err != nil || f == nil {
		t.Fatalf("readSettings = %v, %v", f, err)
	}
	if !f.ProxyPasswordOmitted {
		t.Error("proxy password not reported omitted")
	}
	got, err := f.settings(d.settingsPath())
	if err != nil {
		t.Fatal(err)
	}
	want := s
	want.Proxy = "http://crawler@proxy.example:3128"
	d0 := defaultSettings()
	want.Data, want.AdminToken, want.Admin, want.LogLevel, want.Recrawl.RevisitShare = d0.Data, "", d0.Admin, d0.LogLevel, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back:\n%+v\nwant\n%+v", got, want)
	}
	if got.URL.StripParams == nil || got.URL.SessionParams != nil {
		t.Errorf("url lists read back as %#v, %#v; want [] and unset", got.URL.StripParams, got.URL.SessionParams)
	}
	node, _ := storedSettings(s)
	for _, kv := range flattenSettings(node) {
		if notStored[kv.key] || strings.Contains(kv.value, "s3cr3t") || strings.Contains(kv.value, "hunter2") {
			t.Errorf("stored %s: %s", kv.key, kv.value)
		}
	}
}
