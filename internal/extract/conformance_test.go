package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	xcharset "golang.org/x/net/html/charset"
)

// html5libDir holds the encoding tests of html5lib-tests, shared by the
// repository's conformance suites (see its README).
const html5libDir = "../../../shared/conformance/html5lib-encoding"

// encodingCase is one #data/#encoding case of an html5lib .dat file.
type encodingCase struct {
	name     string // file:ordinal
	data     []byte
	encoding string // expected, as written: "Windows-1252", "iso-8859-2"
}

// parseEncodingDat reads the cases of an html5lib encoding .dat file: a
// "#data" line, the document, a "#encoding" line, the expected label.
func parseEncodingDat(name string, b []byte) []encodingCase {
	var cases []encodingCase
	for _, block := range bytes.Split(b, []byte("#data\n"))[1:] {
		data, enc, ok := bytes.Cut(block, []byte("\n#encoding\n"))
		if !ok {
			continue
		}
		label, _, _ := bytes.Cut(enc, []byte("\n"))
		cases = append(cases, encodingCase{
			name:     name + ":" + strconv.Itoa(len(cases)+1),
			data:     data,
			encoding: string(bytes.TrimSpace(label)),
		})
	}
	return cases
}

// knownEncodingDisagreements are the html5lib cases where godwit's
// answer differs from html5lib's, and why: none. For the record, the
// cases that need more than the standard's 1024-byte prescan:
//
//	tests1.dat:48-53  <meta charset=iso8859-2> after a comment of 2048 to
//	                  8193 characters: past the prescan, found by the
//	                  tokenizer, which changes the tentative windows-1252
//	                  (the page is scanned again)
//	tests1.dat:54     the same after a long comment and three <script>s
//
// and those golang.org/x/net/html/charset.DetermineEncoding also misses,
// as its prescan is the tokenizer (72/82 in all):
//
//	tests1.dat:55     <meta> in a <script>'s document.write string
//	tests1.dat:56     <meta> in <script type=text/plain>
//	tests1.dat:57     <meta> in <style type=text/plain>
//
// (A prescan of the first 1024 bytes alone agrees on 75.)
var knownEncodingDisagreements = map[string]string{}

// TestConformanceHTML5libEncoding runs encoding determination (no
// Content-Type, as the tests expect the prescan) on the html5lib encoding
// tests and compares canonical names.
func TestConformanceHTML5libEncoding(t *testing.T) {
	if _, err := os.Stat(html5libDir); err != nil {
		t.Skipf("html5lib encoding tests not found: %v", err)
	}
	var cases []encodingCase
	for _, f := range []string{"tests1.dat", "tests2.dat", "test-yahoo-jp.dat"} {
		b, err := os.ReadFile(filepath.Join(html5libDir, f))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, parseEncodingDat(f, b)...)
	}
	agreed, prescanned, xnet := 0, 0, 0
	for _, c := range cases {
		want, _, ok := lookup(c.encoding)
		if !ok {
			t.Errorf("%s: expected label %q is not an encoding", c.name, c.encoding)
			continue
		}
		if determine(c.data, "").name == want {
			prescanned++
		}
		if _, name, _ := xcharset.DetermineEncoding(c.data, ""); name == want {
			xnet++
		}
		d, err := HTML(page, c.data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.Encoding == want {
			agreed++
			if why, ok := knownEncodingDisagreements[c.name]; ok {
				t.Errorf("%s: agrees now, remove it from knownEncodingDisagreements (%s)", c.name, why)
			}
			continue
		}
		why, known := knownEncodingDisagreements[c.name]
		if !known {
			why = "UNEXPLAINED"
		}
		t.Logf("%s: got %s (%s), html5lib %s: %s; data %.80q", c.name, d.Encoding, d.EncodingSource, want, why, c.data)
		if !known {
			t.Errorf("%s: HTML(%.80q).Encoding = %q, want %q", c.name, c.data, d.Encoding, want)
		}
	}
	t.Logf("html5lib encoding: %d/%d agreed (prescan alone: %d; golang.org/x/net/html/charset.DetermineEncoding: %d)",
		agreed, len(cases), prescanned, xnet)
	// 82 cases: 59 in tests1.dat, 22 in tests2.dat, 1 in test-yahoo-jp.dat.
	const minAgreed = 72
	if agreed < minAgreed || len(cases) != 82 {
		t.Errorf("agreed on %d of %d cases, want at least %d of 82", agreed, len(cases), minAgreed)
	}

	// test_big5.txt is Big5 text without markup: html5lib-python's test
	// of its optional statistical detector (chardet), which the HTML
	// standard leaves to the user agent and godwit does not have. Logged,
	// not counted.
	if b, err := os.ReadFile(filepath.Join(html5libDir, "test_big5.txt")); err == nil {
		d, err := HTML(page, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("test_big5.txt: %s (%s); html5lib with chardet: big5", d.Encoding, d.EncodingSource)
	}
}
