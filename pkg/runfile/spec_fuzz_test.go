package runfile

import (
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
)

// FuzzParse: any run file gives a spec or errors, never a panic, within
// bounded time and memory; an accepted spec names only known evaluations.
func FuzzParse(f *testing.F) {
	fuzzcheck.AddFiles(f, "project/run.yaml", "examples/quickstart/run.yaml")
	f.Add([]byte("apply: [a.yaml]\nevaluations:\n  - agentleak: {traces: t.jsonl}\n  - nope: {}\noverview: {fail_on: high}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			s, ds := Parse("run.yaml", "run.yaml", data)
			if (s == nil) != ds.HasErrors() {
				t.Fatalf("spec %v and diagnostics %v disagree", s, ds)
			}
			if s == nil {
				return
			}
			for _, ev := range s.Evaluations {
				if _, ok := Lookup(ev.Name); !ok {
					t.Fatalf("accepted unknown evaluation %q", ev.Name)
				}
			}
		})
	})
}
