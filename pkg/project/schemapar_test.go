package project

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParallelSchemaCheck checks that a large file of runs, checked in parts
// on several cores, reports the same located problems as the whole-file
// check, wherever the problem is, and none when there is none.
func TestParallelSchemaCheck(t *testing.T) {
	defer func(old int) { parallelSchemaMin = old }(parallelSchemaMin)
	parallelSchemaMin = 64 << 10
	var b strings.Builder
	b.WriteString("evaluation_runs:\n")
	for i := 0; b.Len() < parallelSchemaMin+1<<20; i++ {
		fmt.Fprintf(&b, "  - evaluation_key: k%d\n    id: r%d\n    created_at: \"2026-01-15T09:00:00Z\"\n    status: completed\n    results:\n", i%7, i)
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&b, "      - task_specification_key: t%d\n        scorer_key: s\n        metrics:\n          accuracy: 0.5\n", j)
		}
	}
	good := b.String()
	n := strings.Count(good, "  - evaluation_key:")
	if n < 16 {
		t.Fatalf("only %d runs", n)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, text, want string
	}{
		{"valid", good, ""},
		// the last run's status, in the last part
		{
			"last", good[:strings.LastIndex(good, "status: completed")] + "status: done" + good[strings.LastIndex(good, "status: completed")+len("status: completed"):],
			fmt.Sprintf("/evaluation_runs/%d/status", n-1),
		},
		// the first run's metric, in the first part
		{"first", strings.Replace(good, "accuracy: 0.5", "accuracy: high", 1), "/evaluation_runs/0/results/0/metrics/accuracy"},
	} {
		path := filepath.Join(dir, c.name+".yaml")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, parsed := ReadFile(dir, path, nil, nil)
		if parsed.HasErrors() {
			t.Fatalf("%s: %v", c.name, parsed)
		}
		ds := validate("project", f)
		if c.want == "" {
			if len(ds) != 0 {
				t.Errorf("%s: %v", c.name, ds)
			}
			continue
		}
		if len(ds) != 1 || ds[0].Pointer != c.want || ds[0].Line == 0 {
			t.Errorf("%s: got %v, want one located problem at %s", c.name, ds, c.want)
		}
	}
}
