package godwit_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxProgramLines is the most lines a non-test file of cmd/godwit may
// have (issue 24): the program holds commands, flags and output, one
// concern per file (docs/architecture.md, "The program").
const maxProgramLines = 400

func TestProgramFilesStaySmall(t *testing.T) {
	files, err := filepath.Glob("cmd/godwit/*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n++
		if lines := bytes.Count(b, []byte("\n")); lines > maxProgramLines {
			t.Errorf("%s has %d lines, more than %d: split it by concern (docs/architecture.md, \"The program\")", f, lines, maxProgramLines)
		}
	}
	if n == 0 {
		t.Fatal("no files in cmd/godwit")
	}
}
