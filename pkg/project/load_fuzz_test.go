package project_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
	"github.com/lfcli/lf/pkg/project"
)

// FuzzEntityFile: any entity file (methodologies, risk scorers, evaluation
// runs) read as `lf add -` reads it, then checked for references and
// functions, gives entities or located errors, never a panic, within
// bounded time and memory.
func FuzzEntityFile(f *testing.F) {
	fuzzcheck.AddExampleYAML(f)
	f.Add([]byte("risk_scorers:\n- key: a\n  methodology: m\n  function: 'x if y > 0.5 else 1'\nevaluation_runs:\n- {evaluation_key: e, id: r, created_at: 'not a time', results: []}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			b, ds, err := project.LoadEntities(".", []string{"-"}, bytes.NewReader(data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				t.Fatalf("no batch: %v", ds)
			}
			for _, d := range ds {
				if d.File == "" {
					t.Fatalf("an unlocated diagnostic: %v", d)
				}
			}
			if !ds.HasErrors() {
				_ = b.Check(nil)
			}
		})
	})
}

// FuzzProjectMarker: any lf.yaml leaves `lf validate` of the whole project
// without a panic.
func FuzzProjectMarker(f *testing.F) {
	fuzzcheck.AddFiles(f, "project/lf.yaml", "examples/quickstart/lf.yaml", "examples/risk-scorers/lf.yaml")
	f.Add([]byte("include: ['*.yaml', '[']\nexclude: [lf.yaml]\n"))
	dir := f.TempDir()
	seed, err := os.ReadFile(filepath.Join("..", "..", "examples", "quickstart", "methodologies.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "methodologies.yaml"), seed, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, project.MarkerFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		fuzzcheck.Bounded(t, len(data), func() {
			res := project.Validate(dir, nil, nil, nil)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
		})
	})
}
