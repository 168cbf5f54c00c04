package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
	"github.com/lfcli/lf/pkg/project"
)

// TestEveryFileKindListed: every kind.Kind declared in the module that
// tells its files apart (it sets Keys, List or FileName) is in fileKinds,
// the one list the project commands derive from, and every kind there can
// be told apart and described, so a new kind is declared in one place and
// listed once: `lf validate` cannot leave it to a bare schema, nor `lf add`
// take its file for an entity file. The entity kinds (project.Kinds) are
// sections of entity files, read by pkg/project's batch loader.
func TestEveryFileKindListed(t *testing.T) {
	root := testfiles.RepoRoot()
	if root == "" {
		t.Skip("repository root not found")
	}
	listed := map[string]bool{}
	for _, k := range project.Kinds {
		listed[k.Plural] = true
	}
	for _, k := range fileKinds {
		listed[k.Name] = true
		if len(k.Keys) == 0 && k.FileName == "" {
			t.Errorf("kind %q has no Keys, List or FileName: no file is ever of it", k.Name)
		}
		if k.Description == "" {
			t.Errorf("kind %q has no Description for messages", k.Name)
		}
	}
	fset := token.NewFileSet()
	declared := 0
	walkGoFiles(t, root, false, func(rel string) {
		if filepath.Dir(rel) == "pkg/kind" {
			return
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !isKindType(lit.Type) {
				return true
			}
			name, fileKind := "", false
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				switch key, _ := kv.Key.(*ast.Ident); key.Name {
				case "Name":
					if b, ok := kv.Value.(*ast.BasicLit); ok {
						name, _ = strconv.Unquote(b.Value)
					}
				case "Keys", "List", "FileName":
					fileKind = true
				}
			}
			if !fileKind {
				return true
			}
			declared++
			if !listed[name] {
				t.Errorf("%s: file kind %q is not in fileKinds (pkg/cli/filetypes.go): list it there", fset.Position(lit.Pos()), name)
			}
			return true
		})
	})
	if declared != len(fileKinds)+len(project.Kinds) {
		t.Errorf("%d file and entity kinds declared, %d listed", declared, len(fileKinds)+len(project.Kinds))
	}
}

// isKindType: x is kind.Kind[T, C].
func isKindType(x ast.Expr) bool {
	ix, ok := x.(*ast.IndexListExpr)
	if !ok {
		return false
	}
	sel, ok := ix.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "kind" && sel.Sel.Name == "Kind"
}

// pipelineCalls are the functions of the file kind pipeline: outside
// pkg/kind (and the packages that define them) only the exempt files below
// may call them, so that every file kind is read by kind.Kind.Parse.
var pipelineCalls = map[string]bool{
	"yamlsrc.Parse":        true,
	"yamlsrc.ParseEach":    true,
	"schema.Validate":      true,
	"schema.ValidateAt":    true,
	"schema.ApplyDefaults": true,
}

// pipelineExempt are the files that call the pipeline's steps themselves,
// each with its reason. The list may only shrink.
var pipelineExempt = map[string]string{
	// The entity kinds (methodologies, risk scorers, evaluation runs) are
	// read as a batch across files: ReadFile parses a file once to classify
	// it by its top-level keys, schemaCheck validates it (all three
	// sections at once), Batch.extract skips entries by kind.Skip and reads
	// each through its kind's Entry; references are checked across the
	// batch. A large file's runs are read one at a time (ParseEach,
	// runstream.go) and go through the same steps.
	"pkg/project/load.go": "entity files: the batch loader",
	// The batch loader's schema step: a large file of runs is validated in
	// parts on several cores.
	"pkg/project/schemapar.go": "entity files: the batch loader's parallel schema step",
	// Reads the embedded schemas themselves (for the canonical key order),
	// not a file kind.
	"pkg/project/kinds.go": "schemas as documents",
}

// TestFileKindsGoThroughThePipeline fails on a call of a pipeline step
// (parse, schema, defaults) outside pkg/kind and the exempt files: a new
// file kind must be a kind.Kind.
func TestFileKindsGoThroughThePipeline(t *testing.T) {
	root := testfiles.RepoRoot()
	if root == "" {
		t.Skip("repository root not found")
	}
	own := map[string]bool{"pkg/kind": true, "pkg/yamlsrc": true, "pkg/schema": true}
	fset := token.NewFileSet()
	used := map[string]bool{}
	var bad []string
	walkGoFiles(t, root, false, func(rel string) {
		if own[filepath.Dir(rel)] {
			return
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok || !pipelineCalls[x.Name+"."+sel.Sel.Name] {
				return true
			}
			if _, ok := pipelineExempt[rel]; ok {
				used[rel] = true
				return true
			}
			bad = append(bad, fset.Position(call.Pos()).String()+": "+x.Name+"."+sel.Sel.Name)
			return true
		})
	})
	sort.Strings(bad)
	for _, b := range bad {
		rel, _ := filepath.Rel(root, b)
		t.Errorf("%s outside pkg/kind: declare the file kind as a kind.Kind and read it with its Parse", rel)
	}
	for f := range pipelineExempt {
		if !used[f] {
			t.Errorf("%s is exempt but calls no pipeline step: take it off pipelineExempt", f)
		}
	}
}
