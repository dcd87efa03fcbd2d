package admin

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// The warnings the linters may give, each justified in docs/admin.md
// ("The OpenAPI document"): a rule named here and not given is fine; a
// rule given and not named here fails the test.
var (
	redoclyAllowed  = []string{"info-license"} // godwit states no license yet
	spectralAllowed = []string{}
)

// TestOpenAPILint lints the document the server serves with Redocly CLI
// (lint, recommended rules) and Spectral (spectral:oas), both pinned in
// tools/openapilint: no error, and no warning but those justified. It
// skips when they are not installed (npm ci --prefix tools/openapilint),
// unless GODWIT_REQUIRE_OPENAPI_LINT=1 (CI sets it).
func TestOpenAPILint(t *testing.T) {
	tools, err := filepath.Abs(filepath.Join("..", "..", "tools", "openapilint"))
	if err != nil {
		t.Fatal(err)
	}
	redocly := filepath.Join(tools, "node_modules", ".bin", "redocly")
	spectral := filepath.Join(tools, "node_modules", ".bin", "spectral")
	for _, bin := range []string{redocly, spectral} {
		if _, err := os.Stat(bin); err != nil {
			if os.Getenv("GODWIT_REQUIRE_OPENAPI_LINT") == "1" {
				t.Fatalf("%v (GODWIT_REQUIRE_OPENAPI_LINT=1)", err)
			}
			t.Skipf("%v; run npm ci --prefix tools/openapilint (GODWIT_REQUIRE_OPENAPI_LINT=1 makes this a failure)", err)
		}
	}
	ts, _ := newTestServer(t, &fakeBackend{}, Options{})
	r := do(t, ts, "GET", "/api/openapi.json", "")
	if r.status != 200 {
		t.Fatalf("GET /api/openapi.json: %d", r.status)
	}
	doc := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(doc, []byte(r.body), 0o644); err != nil {
		t.Fatal(err)
	}
	lint := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = tools
		cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1")
		out, err := cmd.Output()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("%s: %v", name, err)
		}
		return out // a non-zero exit is a finding, read from the report
	}

	var rep struct {
		Totals struct {
			Errors, Warnings int
		} `json:"totals"`
		Problems []struct {
			RuleID   string `json:"ruleId"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Location []struct {
				Pointer string `json:"pointer"`
			} `json:"location"`
		} `json:"problems"`
	}
	out := lint("redocly", redocly, "lint", doc, "--format", "json")
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("redocly: %v: %s", err, out)
	}
	for _, p := range rep.Problems {
		where := ""
		if len(p.Location) > 0 {
			where = p.Location[0].Pointer
		}
		if p.Severity == "error" || !slices.Contains(redoclyAllowed, p.RuleID) {
			t.Errorf("redocly: %s %s at %s: %s", p.Severity, p.RuleID, where, p.Message)
		}
	}

	var found []struct {
		Code     string   `json:"code"`
		Message  string   `json:"message"`
		Path     []string `json:"path"`
		Severity int      `json:"severity"` // 0 error, 1 warning, 2 info, 3 hint
	}
	out = lint("spectral", spectral, "lint", "--ruleset", filepath.Join(tools, "spectral.yaml"), "--format", "json", "--quiet", doc)
	if err := json.Unmarshal(out, &found); err != nil {
		t.Fatalf("spectral: %v: %s", err, out)
	}
	warnings := 0
	for _, f := range found {
		if f.Severity == 1 {
			warnings++
		}
		if f.Severity == 0 || (f.Severity == 1 && !slices.Contains(spectralAllowed, f.Code)) {
			t.Errorf("spectral: severity %d %s at %v: %s", f.Severity, f.Code, f.Path, f.Message)
		}
	}
	if warnings > 5 {
		t.Errorf("spectral: %d warnings, want at most 5", warnings)
	}
}
