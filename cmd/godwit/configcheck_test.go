package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigErrorsInWords: each kind of bad value in a config file gets
// one line naming the key and the value in words, never Go's types.
func TestConfigErrorsInWords(t *testing.T) {
	tests := []struct {
		kind, yaml string
		want       []string
	}{
		{"duration quoted", `delay: "5"`, []string{`delay: "5" is not a duration (e.g. 5s, 200ms`}},
		{"duration number", "delay: 5", []string{"delay: 5 is not a duration"}},
		{"nested duration", "robots:\n  backoff: soon", []string{"line 2: robots.backoff: \"soon\" is not a duration"}},
		{"size", `memory_limit: lots`, []string{`"lots" is not a positive size such as 512MiB`}},
		{"int", "workers: many", []string{`workers: "many" is not a whole number`}},
		{"int64", "max_body: 10MB", []string{`max_body: "10MB" is not a whole number`}},
		{"float", "recrawl:\n  revisit_share: half", []string{`recrawl.revisit_share: "half" is not a number`}},
		{"bool", "allow_private: yes", []string{`allow_private: "yes" is not true or false`}},
		{"enum", "scope: planet", []string{`"planet": want host, domain or any`}},
		{"unknown key", "delay: 1s\nspeed: fast", []string{"line 2: unknown key speed (known here:", "delay"}},
		{"unknown nested key", "robots:\n  tries: 3", []string{"unknown key robots.tries (known here: allow_after, backoff"}},
		{"list", "exclude:\n  prefixes: http://a/", []string{"exclude.prefixes: want a list"}},
		{"bad YAML", "delay: 1s\n  workers: 3", []string{"line 2: not valid YAML:"}},
		{"old and new key", "max_body_bytes: 1\nmax_body: 2", []string{"max_body_bytes is the old name of max_body"}},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.kind, " ", "-")+".yaml")
			os.WriteFile(p, []byte(tt.yaml+"\n"), 0o644)
			var stdout, stderr bytes.Buffer
			code := run([]string{"crawl", "--config", p, "--data", filepath.Join(dir, "data"), "http://example.com/"}, &stdout, &stderr)
			msg := strings.ReplaceAll(stderr.String(), p, "FILE")
			if code != 2 || strings.Count(msg, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and one line", code, msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q lacks %q", msg, w)
				}
			}
			for _, goSpeak := range []string{"!!", "unmarshal", "time.Duration", "int64", "float64", "main.", "yaml:"} {
				if strings.Contains(msg, goSpeak) {
					t.Errorf("stderr %q speaks Go (%q)", msg, goSpeak)
				}
			}
		})
	}
}

// TestConfigOldKeyName: the old key max_body_bytes still sets the body
// cap, with a warning naming the new one.
func TestConfigOldKeyName(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(p, []byte("# body cap\nmax_body_bytes: 4096\ndelay: 2s\n"), 0o644)
	s := defaultSettings()
	if err := loadConfigFile(p, &s); err != nil {
		t.Fatal(err)
	}
	if s.MaxBodyBytes != 4096 || s.Delay.Seconds() != 2 {
		t.Errorf("max body %d, delay %v; want 4096, 2s", s.MaxBodyBytes, s.Delay)
	}
	if len(s.warnings) != 1 || !strings.Contains(s.warnings[0], "max_body_bytes is now called max_body") {
		t.Errorf("warnings = %q", s.warnings)
	}
	os.WriteFile(p, []byte("max_body: 8192\n"), 0o644)
	s = defaultSettings()
	if err := loadConfigFile(p, &s); err != nil || s.MaxBodyBytes != 8192 || len(s.warnings) != 0 {
		t.Errorf("max_body: %d, %v, warnings %q", s.MaxBodyBytes, err, s.warnings)
	}
}
