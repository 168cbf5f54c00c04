package runfile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/evaluation"
	"github.com/lfcli/lf/pkg/internal/testfiles"
	"github.com/lfcli/lf/pkg/store"
)

// TestExecuteGates runs a run file through the library call twice: the
// AgentLeak gate fails only when turned on, and the second run keeps the
// scan recorded by the first.
func TestExecuteGates(t *testing.T) {
	dir := t.TempDir()
	traces, err := os.ReadFile(filepath.Join(testfiles.RepoRoot(), "project", "agentleak", "traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("traces.jsonl", string(traces))
	write("run.yaml", "apply: []\nevaluations:\n  - agentleak:\n      traces: [traces.jsonl]\n")
	write("gated.yaml", "apply: []\nevaluations:\n  - agentleak:\n      gate: true\n      traces: [traces.jsonl]\n")
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "lf.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run := func(name string) *Result {
		spec, diags := Load(filepath.Join(dir, name), name)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		var seen []evaluation.Report
		res, err := Execute(ctx, spec, Options{ProjectDir: dir, OnReport: func(r evaluation.Report) { seen = append(seen, r) }}, st)
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) != 1 || len(res.Evaluations) != 1 {
			t.Fatalf("%s: %d reports seen, %d returned", name, len(seen), len(res.Evaluations))
		}
		return res
	}
	first := run("run.yaml")
	if ev := first.Evaluations[0]; !ev.Failed || ev.Gate || ev.Skipped || len(first.GateFailures()) != 0 {
		t.Errorf("ungated run: %+v, gate failures %v", ev, first.GateFailures())
	}
	second := run("gated.yaml")
	ev := second.Evaluations[0]
	if !ev.Skipped || ev.RunID != first.Evaluations[0].RunID {
		t.Errorf("second run with the same inputs: skipped %v, run %s (first %s)", ev.Skipped, ev.RunID, first.Evaluations[0].RunID)
	}
	if f := second.GateFailures(); len(f) != 1 || !strings.Contains(f[0], "2 of 10 traces blocked") {
		t.Errorf("gated run: gate failures %q", f)
	}
}
