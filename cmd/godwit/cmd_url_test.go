package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCmd runs one godwit command line in process, with stdin.
func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRootCmd(&out, &errOut)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	code = 0
	if err := root.Execute(); err != nil {
		errOut.WriteString("godwit: " + err.Error() + "\n")
		code = 2
		var f failure
		if errors.As(err, &f) {
			code = 1
		}
	}
	return out.String(), errOut.String(), code
}

func TestURLNormalize(t *testing.T) {
	tests := []struct {
		args     []string
		stdin    string
		out      string
		code     int
		errorHas string
	}{
		{
			args: []string{"url", "normalize", "HTTP://Example.COM:80/a/./b?utm_source=x&b=2&a=1#top", "http://0x7f.1/cart;jsessionid=42?PHPSESSID=9"},
			out:  "http://example.com/a/b?a=1&b=2\nhttp://127.0.0.1/cart\n",
		},
		{
			args: []string{"url", "normalize", "--surt", "https://www.Example.com/Page/?b=1&a=2"},
			out:  "com,example)/page?a=2&b=1\n",
		},
		{
			args:  []string{"url", "normalize"},
			stdin: "# a comment\nhttp://b%C3%BCcher.example/%7ea\n\n  https://example.com  \n",
			out:   "http://xn--bcher-kva.example/~a\nhttps://example.com/\n",
		},
		{
			args:     []string{"url", "normalize", "http://ok.example/", "mailto:x@example.com", "http://exa mple/"},
			out:      "http://ok.example/\n",
			code:     2,
			errorHas: "2 of 3 URLs",
		},
	}
	for _, tt := range tests {
		out, errOut, code := runCmd(t, tt.stdin, tt.args...)
		if out != tt.out || code != tt.code || !strings.Contains(errOut, tt.errorHas) {
			t.Errorf("godwit %s = %q, %q, exit %d; want %q, exit %d, error with %q",
				strings.Join(tt.args, " "), out, errOut, code, tt.out, tt.code, tt.errorHas)
		}
	}
}

// TestURLNormalizeConfig: the url: settings of a config file change the
// key, as they would in a crawl.
func TestURLNormalizeConfig(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "crawl.yaml")
	if err := os.WriteFile(cfg, []byte("url:\n  strip_params: [ref]\n  session_params: []\n  keep_query_order: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd(t, "", "url", "normalize", "--config", cfg, "http://example.com/a;sid=1?z=1&ref=2&utm_source=x")
	if want := "http://example.com/a;sid=1?z=1&utm_source=x\n"; out != want || code != 0 {
		t.Errorf("with %s: %q, %q, exit %d; want %q", cfg, out, errOut, code, want)
	}
}
