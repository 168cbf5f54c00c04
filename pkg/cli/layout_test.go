package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// initAllowed are the files whose func init() is no registration: it must
// run during package initialisation, before the packages that come after it.
var initAllowed = map[string]string{
	// huge-page advice for the heap, before the heavy initialisation of
	// the other packages allocates (see its package doc)
	"cmd/internal/hugepages/hugepages_linux.go": "process start-up memory setting",
}

// TestNoRegistrationOrMainsInPkg keeps the layout of docs/layout.md: no
// func init() anywhere (lists are explicit Go values) but in initAllowed,
// and no package main under pkg/ (programs live in cmd/). Tests are exempt.
func TestNoRegistrationOrMainsInPkg(t *testing.T) {
	root := testfiles.RepoRoot()
	if root == "" {
		t.Skip("repository root not found")
	}
	fset := token.NewFileSet()
	files := 0
	walkGoFiles(t, root, false, func(rel string) {
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files++
		if f.Name.Name == "main" && strings.HasPrefix(rel, "pkg/") {
			t.Errorf("%s: package main under pkg/; make it a cmd/lfgen subcommand or a program under cmd/", rel)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" && initAllowed[rel] == "" {
				t.Errorf("%s:%d: func init(); add the value to its explicit list instead (docs/layout.md)", rel, fset.Position(fn.Pos()).Line)
			}
		}
	})
	if files < 50 {
		t.Fatalf("only %d Go files found under %s", files, root)
	}
}

// walkGoFiles calls fn with the path, relative to root and with slashes, of
// every Go file of the module: test files only when tests is set, the others
// only when it is not. Hidden folders, testdata and vendor are left out.
func walkGoFiles(t *testing.T, root string, tests bool, fn func(rel string)) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // another module (tools/otelcol-lf): not this module's layout
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") != tests {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		fn(filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFileKindsUnique: each file kind is listed once.
func TestFileKindsUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range fileKinds {
		if seen[k.Name] || k.Check == nil {
			t.Errorf("file kind %q listed twice or without a check", k.Name)
		}
		seen[k.Name] = true
	}
}

// floors lists the module's packages from the bottom floor up (docs/layout.md).
// A package may import packages of lower floors only: never one of its own
// floor, never one above. A package missing from the list fails the test, so
// a new package has to be given its floor on purpose.
var floors = [][]string{
	{"schemas", "pkg/diag", "pkg/model", "pkg/progress", "pkg/internal/testfiles", "pkg/eventstream/natstest", "cmd/internal/hugepages", "pkg/agentleak/compliance", "pkg/agentleak/detect", "pkg/agentleak/internal/tracegen", "pkg/internal/jsonlex", "pkg/internal/benchspans"},
	{"pkg/yamlsrc", "pkg/internal/fuzzcheck", "pkg/store/backend", "pkg/store/internal/runbatch", "pkg/otelspans", "pkg/agentleak/tracefile"},
	{"pkg/schema", "pkg/output", "pkg/risk", "pkg/store/internal/sqlstore", "pkg/store/storetest", "pkg/agentleak/internal/tracetest"},
	{"pkg/kind", "pkg/store/sqlite", "pkg/store/postgres"},
	{"pkg/store", "pkg/store/postgres/pgtest"},
	{"pkg/evaluation", "pkg/project"},
	{"pkg/agentleak", "pkg/agentrisk", "pkg/alerts", "pkg/importers", "pkg/frameworks"},
	{"pkg/eventstream", "pkg/report", "pkg/runfile", "cmd/lfgen/benchgen"},
	{"pkg/server"},
	{"pkg/cli"},
	{"cmd/lf", "cmd/lfgen"},
}

// TestFloors fails on an import that runs back up the floors: a lower
// package importing a higher one (or one of its own floor), and on a package
// that has no floor. Test files are exempt: they may reach up for fixtures.
func TestFloors(t *testing.T) {
	root := testfiles.RepoRoot()
	if root == "" {
		t.Skip("repository root not found")
	}
	const module = "github.com/lfcli/lf/"
	floor := map[string]int{}
	for i, pkgs := range floors {
		for _, p := range pkgs {
			floor[p] = i
		}
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	walkGoFiles(t, root, false, func(rel string) {
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		own, ok := floor[pkg]
		if !ok {
			if !seen[pkg] {
				t.Errorf("%s: package without a floor; add it to floors in pkg/cli/layout_test.go and docs/layout.md", pkg)
			}
			seen[pkg] = true
			return
		}
		seen[pkg] = true
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if !strings.HasPrefix(path, module) {
				continue
			}
			dep := strings.TrimPrefix(path, module)
			if to, ok := floor[dep]; ok && to >= own {
				t.Errorf("%s:%d: %s (floor %d) imports %s (floor %d): imports may only go down the floors", rel, fset.Position(imp.Pos()).Line, pkg, own, dep, to)
			}
		}
	})
	for p := range floor {
		if !seen[p] {
			t.Errorf("floors lists %s, which has no Go files", p)
		}
	}
}

// longFunctions are the functions allowed over maxFunctionLines, each with
// the reason it stays whole. The list may only shrink.
var longFunctions = map[string]string{
	// The class pass's inner loop over words: its state (position, the
	// word's start, whether a capital opened it) lives in registers across
	// its cases. Folding its two identifier tails into a method was measured
	// at +1.4M instructions per 9.2 MB scan (callgrind, BenchmarkScanFile):
	// the method does not inline. (findStarts, the loop around it, was split
	// at no measurable cost: 110.29M -> 110.19M instructions per 1.8 MB.)
	"pkg/agentleak/detect/class.go:lowerWords": "the class pass's hot loop (see the comment above)",
}

// maxFunctionLines is the length, declaration to closing brace, over which
// a function must be split or listed in longFunctions.
const maxFunctionLines = 150

// TestFunctionLength fails on a function (tests excepted) longer than
// maxFunctionLines that longFunctions does not list, and on an entry of
// longFunctions that is no longer long.
func TestFunctionLength(t *testing.T) {
	root := testfiles.RepoRoot()
	if root == "" {
		t.Skip("repository root not found")
	}
	fset := token.NewFileSet()
	long := map[string]bool{}
	walkGoFiles(t, root, false, func(rel string) {
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n <= maxFunctionLines {
				continue
			}
			name := rel + ":" + fn.Name.Name
			long[name] = true
			if longFunctions[name] == "" {
				t.Errorf("%s:%d: %s has %d lines (at most %d): split it, or list it in longFunctions with the measured cost of splitting", rel, fset.Position(fn.Pos()).Line, fn.Name.Name, n, maxFunctionLines)
			}
		}
	})
	for name := range longFunctions {
		if !long[name] {
			t.Errorf("longFunctions lists %s, which is no longer over %d lines (or is gone): remove it", name, maxFunctionLines)
		}
	}
}
