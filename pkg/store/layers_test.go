package store_test

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

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// sqlText matches a string that is a SQL statement.
var sqlText = regexp.MustCompile(`(?is)^\s*(SELECT\s.+\sFROM\s|INSERT\s+(OR\s+\w+\s+)?INTO\s|DELETE\s+FROM\s|UPDATE\s+\w+\s+SET\s|CREATE\s+(TABLE|INDEX)\s|ALTER\s+TABLE\s|PRAGMA\s|VACUUM)`)

// sqlDebt lists the files that still hold SQL outside the store, to be moved
// (issue 8, point 3). The list may only shrink: a file on it without SQL
// fails the test too, so that it is taken off.
var sqlDebt = map[string]bool{}

// storeImports are the packages of this module the store may import: the
// model's value types, nothing of the domain.
var storeImports = map[string]bool{
	"github.com/lfcli/lf/pkg/model": true,
}

// TestLayers fails when SQL or database/sql appears outside pkg/store, or
// when pkg/store imports a domain package. Tests are exempt.
func TestLayers(t *testing.T) {
	root := testfiles.RepoRoot()
	if root == "" {
		t.Skip("repository root not found")
	}
	fset := token.NewFileSet()
	withSQL := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		inStore := strings.HasPrefix(rel, "pkg/store/")
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case inStore && strings.HasPrefix(p, "github.com/lfcli/lf/") && !storeImports[p] && p != "github.com/lfcli/lf/pkg/store" && !strings.HasPrefix(p, "github.com/lfcli/lf/pkg/store/"):
				t.Errorf("%s imports %s: the store imports no domain package (move shared value types to pkg/model)", rel, p)
			case !inStore && p == "database/sql" && !sqlDebt[rel]:
				t.Errorf("%s imports database/sql: only pkg/store talks to the database", rel)
			}
		}
		if inStore {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !sqlText.MatchString(s) {
				return true
			}
			withSQL[rel] = true
			if !sqlDebt[rel] {
				t.Errorf("%s: SQL outside pkg/store: %.60q", fset.Position(lit.Pos()), s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for f := range sqlDebt {
		if !withSQL[f] {
			t.Errorf("%s holds no SQL any more: take it off sqlDebt", f)
		}
	}
}
