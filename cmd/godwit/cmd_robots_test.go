package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// robotsFile is a robots.txt with a "*" group and a godwit group; the
// line numbers matter to the -v tests.
const robotsFile = `# example.com
User-agent: *
Disallow: /private/
Allow: /private/press/

User-agent: GodWit
User-agent: archivebot
Disallow: /*.pdf$
Allow: /docs/index.html
Disallow: /docs/
Disallow: /café

Sitemap: https://example.com/sitemap.xml
`

func writeRobots(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "robots.txt")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRobotsCheck(t *testing.T) {
	file := writeRobots(t, robotsFile)
	tests := []struct {
		name  string
		args  []string
		stdin string
		out   string
	}{
		{
			name: "godwit has its own group",
			args: []string{"https://example.com/private/a", "https://example.com/a/b.pdf", "https://example.com/a/b.pdf?x", "https://example.com/docs/x", "https://example.com/docs/"},
			out: "allowed https://example.com/private/a\ndisallowed https://example.com/a/b.pdf\nallowed https://example.com/a/b.pdf?x\n" +
				"disallowed https://example.com/docs/x\nallowed https://example.com/docs/\n",
		},
		{
			name: "other agents get the star group",
			args: []string{"--agent", "otherbot", "https://example.com/private/a", "https://example.com/private/press/kit", "https://example.com/a.pdf"},
			out:  "disallowed https://example.com/private/a\nallowed https://example.com/private/press/kit\nallowed https://example.com/a.pdf\n",
		},
		{
			name: "agent is case-insensitive",
			args: []string{"--agent", "ARCHIVEBOT", "https://example.com/x.pdf"},
			out:  "disallowed https://example.com/x.pdf\n",
		},
		{
			name: "URLs are checked as fetched: normalized, IDN and percent-encoding",
			args: []string{"HTTPS://EXAMPLE.com:443/docs/./a/../b", "https://example.com/caf%c3%a9/menu", "https://example.com/café", "https://example.com/%64ocs/x"},
			out:  "disallowed HTTPS://EXAMPLE.com:443/docs/./a/../b\ndisallowed https://example.com/caf%c3%a9/menu\ndisallowed https://example.com/café\ndisallowed https://example.com/%64ocs/x\n",
		},
		{
			name: "verbose",
			args: []string{"-v", "https://example.com/a.pdf", "https://example.com/docs/", "https://example.com/private/a", "https://example.com/robots.txt", "https://example.com/café"},
			out: `disallowed https://example.com/a.pdf  (Disallow: /*.pdf$ at line 8, group "godwit, archivebot")
allowed https://example.com/docs/  (Allow: /docs/$ at line 9, group "godwit, archivebot")
allowed https://example.com/private/a  (no rule of group "godwit, archivebot" matches)
allowed https://example.com/robots.txt  (/robots.txt is always allowed)
disallowed https://example.com/café  (Disallow: /caf%C3%A9 at line 11, group "godwit, archivebot")
`,
		},
		{
			name: "verbose, star group",
			args: []string{"--verbose", "--agent", "otherbot", "https://example.com/private/a", "https://example.com/x"},
			out: `disallowed https://example.com/private/a  (Disallow: /private/ at line 3, group "*")
allowed https://example.com/x  (no rule of group "*" matches)
`,
		},
		{
			name:  "URLs on standard input",
			args:  nil,
			stdin: "# to check\nhttps://example.com/a.pdf\n\n  https://example.com/ok  \n",
			out:   "disallowed https://example.com/a.pdf\nallowed https://example.com/ok\n",
		},
		{
			name:  "empty standard input",
			stdin: "",
			out:   "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"robots", "check", "--file", file}, tt.args...)
			out, errOut, code := runCmd(t, tt.stdin, args...)
			if out != tt.out || code != 0 || errOut != "" {
				t.Errorf("godwit %s = %q, stderr %q, exit %d; want\n%q, exit 0", strings.Join(args, " "), out, errOut, code, tt.out)
			}
		})
	}
}

func TestRobotsCheckFileFromStdin(t *testing.T) {
	out, errOut, code := runCmd(t, robotsFile, "robots", "check", "--file", "-", "-v", "https://example.com/a.pdf")
	want := "disallowed https://example.com/a.pdf  (Disallow: /*.pdf$ at line 8, group \"godwit, archivebot\")\n"
	if out != want || code != 0 {
		t.Errorf("--file -: %q, %q, exit %d; want %q", out, errOut, code, want)
	}
}

func TestRobotsCheckNoGroup(t *testing.T) {
	file := writeRobots(t, "User-agent: otherbot\nDisallow: /\n")
	out, _, code := runCmd(t, "", "robots", "check", "-f", file, "-v", "https://example.com/")
	if want := "allowed https://example.com/  (no group applies)\n"; out != want || code != 0 {
		t.Errorf("no group: %q, exit %d; want %q", out, code, want)
	}
}

func TestRobotsCheckLargeFile(t *testing.T) {
	// A rule past the 500 KiB that are parsed does not count, and the user
	// is told why.
	var b strings.Builder
	b.WriteString("User-agent: *\nDisallow: /early\n")
	for b.Len() < 510<<10 {
		b.WriteString("# padding padding padding padding padding padding\n")
	}
	b.WriteString("Disallow: /late\n")
	file := writeRobots(t, b.String())
	out, errOut, code := runCmd(t, "", "robots", "check", "-f", file, "https://example.com/early", "https://example.com/late")
	if want := "disallowed https://example.com/early\nallowed https://example.com/late\n"; out != want || code != 0 {
		t.Errorf("large file: %q, exit %d; want %q", out, code, want)
	}
	if !strings.Contains(errOut, "500 KiB") {
		t.Errorf("large file: stderr %q, want a note about the 500 KiB limit", errOut)
	}
}

// TestBinaryRobotsCheck runs the built binary: verdicts, exit statuses and
// one-line errors on bad input.
func TestBinaryRobotsCheck(t *testing.T) {
	file := writeRobots(t, robotsFile)
	res := runBinary(t, "robots", "check", "--file", file, "https://example.com/a.pdf", "https://example.com/private/a")
	if want := "disallowed https://example.com/a.pdf\nallowed https://example.com/private/a\n"; res.code != 0 || res.stdout != want || res.stderr != "" {
		t.Errorf("robots check: exit %d, stdout %q, stderr %q; want 0, %q", res.code, res.stdout, res.stderr, want)
	}
	res = runBinary(t, "robots", "check", "--help")
	if res.code != 0 || !strings.Contains(res.stdout, "exit status is 0 whatever the verdicts") {
		t.Errorf("robots check --help: exit %d, stdout %q", res.code, res.stdout)
	}

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"not http", []string{"--file", file, "https://example.com/", "ftp://example.com/x"}, "argument 2"},
		{"relative URL", []string{"--file", file, "/private/a"}, "not an absolute URL"},
		{"bad host", []string{"--file", file, "http://exa mple.com/"}, `bad URL (argument 1) "http://exa mple.com/": forbidden character`},
		{"missing file", []string{"--file", filepath.Join(t.TempDir(), "nope.txt"), "https://example.com/"}, "nope.txt"},
		{"no file", []string{"https://example.com/"}, "file"},
		{"bad agent", []string{"--file", file, "--agent", "Godwit/1.0", "https://example.com/"}, "--agent"},
		{"empty agent", []string{"--file", file, "--agent", "", "https://example.com/"}, "--agent"},
		{"file and URLs both on stdin", []string{"--file", "-"}, "--file -"},
		{"unknown flag", []string{"--file", file, "--fast", "https://example.com/"}, "fast"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runBinary(t, append([]string{"robots", "check"}, tt.args...)...)
			if res.code != 2 {
				t.Errorf("exit status %d, want 2\nstderr: %s", res.code, res.stderr)
			}
			if res.stdout != "" {
				t.Errorf("stdout %q, want nothing checked", res.stdout)
			}
			lines := strings.Split(strings.TrimSpace(res.stderr), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tt.want) {
				t.Errorf("stderr = %q, want one line mentioning %q", res.stderr, tt.want)
			}
		})
	}
}

// TestBinaryRobotsCheckStdin feeds the binary its URLs, or its robots.txt,
// on standard input.
func TestBinaryRobotsCheckStdin(t *testing.T) {
	file := writeRobots(t, robotsFile)
	run := func(stdin string, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(godwitBinary(t), append([]string{"robots", "check"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), code
	}
	out, errOut, code := run("https://example.com/a.pdf\n# comment\nhttps://example.com/b\n", "--file", file)
	if want := "disallowed https://example.com/a.pdf\nallowed https://example.com/b\n"; out != want || code != 0 {
		t.Errorf("URLs on stdin: %q, %q, exit %d; want %q", out, errOut, code, want)
	}
	out, errOut, code = run(robotsFile, "--file", "-", "--agent", "otherbot", "https://example.com/private/x")
	if want := "disallowed https://example.com/private/x\n"; out != want || code != 0 {
		t.Errorf("robots.txt on stdin: %q, %q, exit %d; want %q", out, errOut, code, want)
	}
	// A bad URL on line 3 of the input: nothing is checked.
	out, errOut, code = run("https://example.com/a\nhttps://example.com/b\nmailto:x@example.com\n", "--file", file)
	if out != "" || code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "URL 3 of standard input") {
		t.Errorf("bad URL on stdin: %q, %q, exit %d; want one error line naming URL 3, exit 2", out, errOut, code)
	}
}
