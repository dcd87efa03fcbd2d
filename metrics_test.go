package godwit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMetricsDocumented: every metric godwit registers (a name literal in
// a prometheus *Opts composite literal or the first argument of a call,
// as in prometheus.NewDesc("godwit_…") or counter("godwit_…")) is named in
// docs/admin.md, "Metrics".
func TestMetricsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "admin.md"))
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`^godwit_[a-z0-9_]+$`)
	found := map[string]string{} // metric → file
	for _, root := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			note := func(e ast.Expr) {
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && name.MatchString(s) {
						found[s] = path
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if len(n.Args) > 0 {
						note(n.Args[0])
					}
				case *ast.CompositeLit:
					if sel, ok := n.Type.(*ast.SelectorExpr); ok && strings.HasSuffix(sel.Sel.Name, "Opts") {
						for _, el := range n.Elts {
							if kv, ok := el.(*ast.KeyValueExpr); ok {
								if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
									note(kv.Value)
								}
							}
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(found) < 20 {
		t.Fatalf("found %d metrics in the code, want the 30-odd godwit registers: the scan is broken", len(found))
	}
	for m, file := range found {
		if !strings.Contains(string(doc), "`"+m+"`") && !strings.Contains(string(doc), "`"+m+"{") {
			t.Errorf("metric %s (%s) is not in docs/admin.md, \"Metrics\"", m, file)
		}
	}
}
