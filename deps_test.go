// Package godwit_test holds repository-wide checks of the rules in
// STYLE.md and DESIGN.md that a compiler does not enforce: the direction
// of imports, package documentation, and a few banned calls.
package godwit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/godwit-crawler/godwit/"

// layers maps each package (path below the module) to its layer. A new
// package must be added here, which is the moment to decide where it sits.
var layers = map[string]string{
	"cmd/godwit": "program",

	"internal/cluster/coord": "coordinator",

	"internal/frontier":          "adapter",
	"internal/archive":           "adapter",
	"internal/events":            "adapter",
	"internal/admin":             "adapter",
	"internal/cluster":           "adapter",
	"internal/cluster/jetstream": "adapter",

	"internal/crawl": "core",

	"internal/urlnorm":    "leaf",
	"internal/robots":     "leaf",
	"internal/extract":    "leaf",
	"internal/sitemap":    "leaf",
	"internal/fetch":      "leaf",
	"internal/politeness": "leaf",
	"internal/dedup":      "leaf",
	"internal/simhash":    "leaf",
	"internal/htmltok":    "leaf",
	"internal/kv":         "leaf",
	"internal/warc":       "leaf",
	"internal/freshness":  "leaf",
	"internal/datadir":    "leaf",
	"internal/blob":       "leaf",
	"internal/upload":     "leaf",
	"internal/process":    "leaf",
	"internal/lifecycle":  "leaf",
	"internal/render":     "leaf",
	"internal/atomicfile": "leaf",
	"internal/wacz":       "leaf",
	"internal/shard":      "leaf",

	"internal/crawltest": "testsupport",
	"internal/fakeweb":   "testsupport",
	"internal/blobtest":  "testsupport",
}

// allowed reports whether package from (in layer fl) may import package to (in layer tl).
func allowed(from, fl, to, tl string) bool {
	switch fl {
	case "program":
		return true
	case "testsupport":
		return true
	case "coordinator":
		// A coordinator runs adapters together (a cluster crawl's node
		// session: its jetstream.Node, cluster.Node and frontier).
		return tl == "adapter" || tl == "core" || tl == "leaf"
	case "adapter":
		if tl == "adapter" {
			return from == "internal/cluster/jetstream" && to == "internal/cluster"
		}
		return tl == "core" || tl == "leaf"
	case "core":
		return tl == "leaf"
	case "leaf":
		return tl == "leaf"
	}
	return false
}

type goPackage struct {
	dir     string
	files   []*ast.File
	imports map[string][]string // import path → files importing it
}

// loadPackages parses the non-test Go files of every package in the module.
func loadPackages(t *testing.T) map[string]*goPackage {
	t.Helper()
	pkgs := map[string]*goPackage{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		p := pkgs[dir]
		if p == nil {
			p = &goPackage{dir: dir, imports: map[string][]string{}}
			pkgs[dir] = p
		}
		p.files = append(p.files, f)
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			p.imports[ip] = append(p.imports[ip], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func TestImportDirection(t *testing.T) {
	for dir, p := range loadPackages(t) {
		fl, ok := layers[dir]
		if !ok {
			t.Errorf("package %s has no layer: add it to layers in deps_test.go (see DESIGN.md, Package layout)", dir)
			continue
		}
		for ip, files := range p.imports {
			if strings.Contains(ip, "cockroachdb/pebble") && dir != "internal/kv" {
				t.Errorf("%s imports %s: only internal/kv may import Pebble", files[0], ip)
			}
			if !strings.HasPrefix(ip, module) {
				continue
			}
			to := strings.TrimPrefix(ip, module)
			tl, ok := layers[to]
			if !ok {
				t.Errorf("%s imports %s, which has no layer", files[0], to)
				continue
			}
			if !allowed(dir, fl, to, tl) {
				t.Errorf("%s (%s) imports %s (%s): imports must point down (DESIGN.md, Package layout)", files[0], fl, to, tl)
			}
		}
	}
}

func TestPackagesHaveDocs(t *testing.T) {
	for dir, p := range loadPackages(t) {
		documented := slices.ContainsFunc(p.files, func(f *ast.File) bool {
			return f.Doc != nil && strings.HasPrefix(f.Doc.Text(), "Package "+f.Name.Name+" ") ||
				f.Doc != nil && f.Name.Name == "main" && strings.HasPrefix(f.Doc.Text(), "Command ")
		})
		if !documented {
			t.Errorf("package %s has no doc comment (\"Package x implements …\" in doc.go)", dir)
		}
	}
}

// TestBannedCalls keeps shared mutable clients and stray printing out of
// the library packages (STYLE.md §4, §12).
func TestBannedCalls(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch name := x.Name + "." + sel.Sel.Name; {
			case name == "http.DefaultClient", name == "http.DefaultTransport", name == "http.Get", name == "http.Post":
				t.Errorf("%s: %s is shared global state; build a client (internal/fetch)", fset.Position(sel.Pos()), name)
			case x.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Print"):
				t.Errorf("%s: %s outside cmd/: log with *slog.Logger or return the text", fset.Position(sel.Pos()), name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
