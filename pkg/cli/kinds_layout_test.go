package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
	"github.com/lfcli/lf/pkg/project"
)

// TestEveryFileTypeHasAKind: every file type pkg/project tells apart has its
// kind in fileKinds (what `lf validate` runs), and every kind there is a
// file type, so a new kind cannot be validated by its bare schema while its
// command runs more checks.
func TestEveryFileTypeHasAKind(t *testing.T) {
	types := map[string]bool{}
	for _, n := range project.FileTypeNames() {
		types[n] = true
	}
	kinds := map[string]bool{}
	for _, k := range fileKinds {
		kinds[k.Name] = true
		if !types[k.Name] {
			t.Errorf("kind %q is not a file type of pkg/project (filetypes.go): lf validate would never run it", k.Name)
		}
	}
	for n := range types {
		if !kinds[n] {
			t.Errorf("file type %q has no kind in fileKinds (pkg/cli/filetypes.go): declare it as a kind.Kind in its package and list it", n)
		}
	}
}

// pipelineCalls are the functions of the file kind pipeline: outside
// pkg/kind (and the packages that define them) only the exempt files below
// may call them, so that every file kind is read by kind.Kind.Parse.
var pipelineCalls = map[string]bool{
	"yamlsrc.Parse":        true,
	"schema.Validate":      true,
	"schema.ValidateAt":    true,
	"schema.ApplyDefaults": true,
}

// pipelineExempt are the files that call the pipeline's steps themselves,
// each with its reason. The list may only shrink.
var pipelineExempt = map[string]string{
	// The entity kinds (methodologies, risk scorers, evaluation runs) are
	// read as a batch across files: ReadFile parses a file once to classify
	// it by its top-level keys, schemaCheck validates it, Batch.extract
	// skips entries by kind.Skip; references are checked across the batch.
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
