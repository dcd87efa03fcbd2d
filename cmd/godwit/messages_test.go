package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit-crawler/godwit/internal/fakeweb"
)

// TestBinaryMessages: the built binary's messages go all the way: every
// bad line of a seeds file is named, in words without package prefixes;
// an unknown flag gets the nearest known one; --version works like the
// version command.
func TestBinaryMessages(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seeds, []byte("http://ok.example/\nexample.com/a\n# fine\nftp://files.example/\nhttp://bad host/\n"), 0o644)
	res := runBinary(t, "crawl", "--seeds", seeds, "--data", filepath.Join(dir, "data"))
	if res.code != exitBadInput {
		t.Errorf("three bad seeds: exit %d, want %d", res.code, exitBadInput)
	}
	for _, want := range []string{
		"3 bad seed URLs (use --skip-bad-seeds to go on without them):",
		seeds + `:2: bad seed URL "example.com/a": not an absolute URL; did you mean https://example.com/a?`,
		seeds + `:4: bad seed URL "ftp://files.example/": godwit crawls only http and https URLs (this one has scheme "ftp")`,
		seeds + `:5: bad seed URL "http://bad host/": forbidden character ' ' in host`,
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if strings.Contains(res.stderr, "urlnorm:") {
		t.Errorf("a package prefix in a user's message:\n%s", res.stderr)
	}

	res = runBinary(t, "crawl", "--seeds", filepath.Join(dir, "nope.txt"), "--data", filepath.Join(dir, "data"))
	if want := "godwit: seeds file " + filepath.Join(dir, "nope.txt") + " does not exist\n"; res.stderr != want {
		t.Errorf("missing seeds file: stderr %q, want %q", res.stderr, want)
	}

	res = runBinary(t, "crawl", "--max-dpeth", "3", "http://example.com/")
	if want := "godwit: unknown flag: --max-dpeth; did you mean --max-depth?"; res.code != exitBadInput || !strings.HasPrefix(res.stderr, want) {
		t.Errorf("misspelt flag: exit %d, stderr %q; want %d and %q", res.code, res.stderr, exitBadInput, want)
	}
	res = runBinary(t, "status", "--dat", dir)
	if want := "did you mean --data?"; !strings.Contains(res.stderr, want) {
		t.Errorf("misspelt flag of status: stderr %q, want %q", res.stderr, want)
	}
	if res = runBinary(t, "crawl", "--turbo"); strings.Contains(res.stderr, "did you mean") {
		t.Errorf("a flag near none: %q, want no suggestion", res.stderr)
	}

	ver := runBinary(t, "version")
	for _, args := range [][]string{{"--version"}, {"-v"}} {
		res = runBinary(t, args...)
		if res.code != 0 || res.stdout != ver.stdout || !strings.HasPrefix(res.stdout, "godwit ") {
			t.Errorf("godwit %s: exit %d, %q; want 0 and %q, as godwit version", args[0], res.code, res.stdout, ver.stdout)
		}
	}
}

// TestBinaryStatusShowsDefaults: godwit status --data shows the value a
// crawl runs with for the settings it left at their default (stored as
// zero), marked so, rather than the zero; sections of features the crawl
// does not use are left out.
func TestBinaryStatusShowsDefaults(t *testing.T) {
	web, addr := startWeb(t, fakeweb.Config{Hosts: 1, PagesPerHost: 2, Seed: 3})
	s := testSettings(t, addr)
	s.Delay = 5 * time.Millisecond
	crawlInProcess(t, s, web.Seeds())
	res := runBinary(t, "status", "--data", s.Data)
	if res.code != 0 {
		t.Fatalf("status: exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{
		"    allow_after: 720h0m0s # default\n",
		"    retries: 2 # default\n", // adapt.retries
		"    max_path_repeats: 3 # default\n",
		"    host_pages: 100000 # default\n",
		"    near_duplicates: record # default\n",
		"    max_nesting: 3 # default\n",
		"  delay: 5ms\n", // set: shown as it is
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, res.stdout)
		}
	}
	if strings.Contains(res.stdout, "retries: 0") || strings.Contains(res.stdout, "allow_after: 0s") {
		t.Errorf("status shows a zero for a default:\n%s", res.stdout)
	}
	// A single-node crawl without a store: no cluster or store section of
	// empty values.
	if strings.Contains(res.stdout, "\n  cluster:\n") || strings.Contains(res.stdout, "\n  store:\n") {
		t.Errorf("status shows the cluster or store settings of a crawl that uses neither:\n%s", res.stdout)
	}
	js := runBinary(t, "status", "--data", s.Data, "--json")
	if !strings.Contains(js.stdout, `"adapt.retries": "2"`) || !strings.Contains(js.stdout, `"adapt.retries",`) {
		t.Errorf("status --json: want adapt.retries 2 and listed among the defaults:\n%s", js.stdout)
	}
}

func TestUserMessage(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`seed 1: urlnorm: invalid URL "x"`, `seed 1: invalid URL "x"`},
		{`jetstream: crawl name "a b": want 1-64 letters`, `crawl name "a b": want 1-64 letters`},
		{`resume: frontier: open: kv: corrupt`, `resume: open: corrupt`},
		{`cluster: nats://127.0.0.1:1: nats: no servers available for connection`, `cluster: nats://127.0.0.1:1: no NATS server answers there`},
		{`config: open /x.yaml: no such file or directory`, `config: /x.yaml does not exist`},
		{`admin server at a:1 unreachable: dial tcp 127.0.0.1:1: connect: connection refused`, `admin server at a:1 unreachable: nothing answers at 127.0.0.1:1 (connection refused)`},
		{`fetch: context deadline exceeded`, `timed out`},
		{`the warc: file`, `the warc: file`}, // not at the start of a part
	} {
		if got := userMessage(errors.New(tc.in)); got != tc.want {
			t.Errorf("userMessage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	res := runBinary(t, "warc", "ls", filepath.Join(t.TempDir(), "nope.warc.gz"))
	if !strings.HasSuffix(res.stderr, "nope.warc.gz does not exist\n") || strings.Contains(res.stderr, "no such file") {
		t.Errorf("warc ls of a missing file: %q, want it said in words", res.stderr)
	}
}
