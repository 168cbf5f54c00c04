package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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
	"pkg/hugepages/hugepages_linux.go": "process start-up memory setting",
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
