package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// declaredFlags reads the flagInfo literals of flags.go: the one place a
// flag's name and help are written.
func declaredFlags(t *testing.T) []flagInfo {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "flags.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []flagInfo
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "flagInfo" {
			return true
		}
		var fi flagInfo
		for _, e := range lit.Elts {
			kv := e.(*ast.KeyValueExpr)
			bl, ok := kv.Value.(*ast.BasicLit)
			if !ok {
				t.Fatalf("flags.go: %s of a flagInfo is not a string literal", kv.Key)
			}
			v, err := strconv.Unquote(bl.Value)
			if err != nil {
				t.Fatal(err)
			}
			switch kv.Key.(*ast.Ident).Name {
			case "name":
				fi.name = v
			case "short":
				fi.short = v
			case "help":
				fi.help = v
			}
		}
		out = append(out, fi)
		return false
	})
	if len(out) == 0 {
		t.Fatal("flags.go declares no flagInfo")
	}
	return out
}

// eachFlag calls f with every flag of every godwit command but cobra's
// own (--help, --version).
func eachFlag(f func(cmd *cobra.Command, fl *pflag.Flag)) {
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		cmd.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if fl.Name != "help" && fl.Name != "version" {
				f(cmd, fl)
			}
		})
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
}

// TestFlagsDeclaredInOnePlace fails when a command registers a flag whose
// name, shorthand or help is not declared in flags.go.
func TestFlagsDeclaredInOnePlace(t *testing.T) {
	declared := declaredFlags(t)
	helps := make([]*regexp.Regexp, len(declared))
	for i, d := range declared {
		// %s in a help is a list filled in at run time (flagInfo.listing).
		helps[i] = regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(d.help), "%s", ".+") + "$")
	}
	n := 0
	eachFlag(func(cmd *cobra.Command, fl *pflag.Flag) {
		n++
		for i, d := range declared {
			if d.name == fl.Name && d.short == fl.Shorthand && helps[i].MatchString(fl.Usage) {
				return
			}
		}
		t.Errorf("%s: --%s (shorthand %q) %q is not declared in flags.go: declare it there and register it with its flagInfo",
			cmd.CommandPath(), fl.Name, fl.Shorthand, fl.Usage)
	})
	if n < 100 {
		t.Fatalf("saw %d flags; the walk over the commands is broken", n)
	}
}

// TestFlagsInREADME fails when a flag of godwit crawl is missing from
// README's flag table, or the table lists a flag godwit crawl lacks.
func TestFlagsInREADME(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, crawlSection, ok := strings.Cut(string(b), "\n## Crawl\n")
	if !ok {
		t.Fatal(`README.md has no "## Crawl" section`)
	}
	crawlSection, _, _ = strings.Cut(crawlSection, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `--([a-z0-9-]+)")
	inREADME := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(crawlSection, -1) {
		inREADME[m[1]] = true
	}
	if len(inREADME) < 20 {
		t.Fatalf("README's flag table has %d rows; is it still a table of | `--flag ...` | rows?", len(inREADME))
	}
	crawl := map[string]bool{}
	eachFlag(func(cmd *cobra.Command, fl *pflag.Flag) {
		if cmd.Name() != "crawl" {
			return
		}
		crawl[fl.Name] = true
		if !inREADME[fl.Name] {
			t.Errorf("godwit crawl --%s is not in README's flag table (\"## Crawl\")", fl.Name)
		}
	})
	for name := range inREADME {
		if !crawl[name] {
			t.Errorf("README's flag table lists --%s, which godwit crawl does not have", name)
		}
	}
}
