package cli

import (
	"bytes"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
	"github.com/lfcli/lf/pkg/project"
)

// FuzzValidate: `lf validate -` on any input (every file kind is told
// apart by its top-level keys and sent through its own check) gives located
// diagnostics, never a panic, within bounded time and memory.
func FuzzValidate(f *testing.F) {
	fuzzcheck.AddExampleYAML(f)
	fuzzcheck.AddGlob(f, "examples/*/*.json")
	f.Add([]byte("cases: [{name: a, agent: {score: 1}}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			res := project.ValidateWith(".", []string{"-"}, bytes.NewReader(data), nil, project.ValidateOptions{Kinds: fileKinds})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			for _, d := range res.Diags {
				if d.File == "" {
					t.Fatalf("an unlocated diagnostic: %v", d)
				}
			}
		})
	})
}
