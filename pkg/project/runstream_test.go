package project

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store"
)

// streamRuns is a file of n runs in block or flow style; change, when not
// nil, rewrites the text of run i.
func streamRuns(n int, flow bool, change func(i int, run string) string) string {
	var b strings.Builder
	b.WriteString("evaluation_runs:\n")
	for i := 0; i < n; i++ {
		var r strings.Builder
		fmt.Fprintf(&r, "  - evaluation_key: eval-%d\n    id: run-%d\n    created_at: \"2026-01-15T09:00:00Z\"\n    status: completed\n    results:\n", i%3, i)
		for t := 0; t < 4; t++ {
			if flow {
				fmt.Fprintf(&r, "      - {task_specification_key: task-%d, scorer_key: exact_match, metrics: {accuracy: 0.%03d, count: %d}}\n", t, (i*7+t)%1000, i)
				continue
			}
			fmt.Fprintf(&r, "      - task_specification_key: task-%d\n        scorer_key: 'exact_match'\n        metrics:\n          accuracy: 0.%03d\n          count: %d\n", t, (i*7+t)%1000, i)
		}
		s := r.String()
		if change != nil {
			s = change(i, s)
		}
		b.WriteString(s)
	}
	return b.String()
}

// at changes run k only.
func at(k int, f func(string) string) func(int, string) string {
	return func(i int, s string) string {
		if i != k {
			return s
		}
		return f(s)
	}
}

func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// loaded is what a batch of files gives: every problem and each entity as
// it would be written.
type loaded struct {
	diags    []string
	entities []string
	runs     []*model.EvaluationRun
	packed   int // runs read one at a time
	lazy     int // of those, runs whose YAML is rendered when written
	export   string
}

func loadAll(t *testing.T, dir string, write bool) loaded {
	t.Helper()
	var out loaded
	b, ds, err := LoadEntities(dir, []string{dir}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds = append(ds, b.Check(nil)...)
	ds.Sort()
	for _, d := range ds {
		out.diags = append(out.diags, d.String())
	}
	for _, e := range b.Entities {
		out.entities = append(out.entities, fmt.Sprintf("%s %s %s %s\n%s", e.Kind, e.Key, e.File.Rel, e.Pointer, e.yaml()))
		if e.packed != nil {
			out.packed++
			if e.packed.lazy {
				out.lazy++
			}
			out.runs = append(out.runs, e.packed.unpack())
		} else if e.Run != nil {
			out.runs = append(out.runs, e.Run)
		}
	}
	if write && !ds.HasErrors() {
		ctx := context.Background()
		st, err := store.Open(ctx, filepath.Join(t.TempDir(), "lf.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := Upsert(ctx, st, b); err != nil {
			t.Fatal(err)
		}
		x, err := Export(ctx, st, model.KindEvaluationRun)
		if err != nil {
			t.Fatal(err)
		}
		out.export = string(x)
	}
	res := ValidateWith(dir, []string{dir}, nil, nil, ValidateOptions{})
	for _, d := range res.Diags {
		out.diags = append(out.diags, "validate: "+d.String())
	}
	out.diags = append(out.diags, fmt.Sprintf("validate: %d files, %d entities", res.Files, res.Entities))
	return out
}

// TestStreamedRunsAgree: reading runs one at a time gives the messages,
// entities, runs and store of reading the file whole, for valid files and
// for files with every kind of problem (which go back to the whole file).
func TestStreamedRunsAgree(t *testing.T) {
	cases := []struct {
		name     string
		files    map[string]string
		streamed bool // every run is read one at a time
		eager    int  // of those, runs whose YAML is rendered as read
	}{
		{"block", map[string]string{"runs.yaml": streamRuns(20, false, nil)}, true, 0},
		{"flow", map[string]string{"runs.yaml": streamRuns(20, true, nil)}, true, 0},
		{"two files", map[string]string{"a.yaml": streamRuns(5, true, nil), "b.yaml": strings.ReplaceAll(streamRuns(5, false, nil), "id: run-", "id: other-")}, true, 0},
		{"same task and scorer, other metrics", map[string]string{"runs.yaml": streamRuns(6, false, at(2, func(s string) string {
			i := strings.Index(s, "task-1\n")
			return s[:i] + strings.NewReplacer("task-1\n", "task-0\n", "accuracy", "precision", "count", "recall").Replace(s[i:i+120]) + s[i+120:]
		}))}, true, 0},
		{"metadata", map[string]string{"runs.yaml": streamRuns(6, true, at(1, replace("    status: completed\n", "    status: completed\n    metadata:\n      tool: x\n      count: 3\n")))}, true, 0},
		{"other sections and metadata", map[string]string{"runs.yaml": "risk_scorers: []\n" + streamRuns(6, true, at(1, replace("    status: completed\n", "    status: completed\n    metadata:\n      tool: x\n      count: 3\n")))}, true, 0},
		{"a whole number a float64 does not hold", map[string]string{"runs.yaml": streamRuns(4, true, at(2, replace("count: 2}", "count: 9007199254740993}")))}, true, 1},
		{"whole numbers and negatives", map[string]string{"runs.yaml": streamRuns(6, true, at(4, replace("accuracy: 0.", "accuracy: -1")))}, true, 0},
		{"failed run without results", map[string]string{"runs.yaml": streamRuns(6, false, at(3, func(s string) string {
			return s[:strings.Index(s, "    status:")] + "    status: failed\n    results: []\n"
		}))}, true, 0},
		{"schema problem", map[string]string{"runs.yaml": streamRuns(8, true, at(5, replace("completed", "done")))}, false, 0},
		{"first run bad", map[string]string{"runs.yaml": streamRuns(8, false, at(0, replace("id: run-0", "id: [x]")))}, false, 0},
		{"bad time", map[string]string{"runs.yaml": streamRuns(8, true, at(6, replace("09:00:00Z", "09:00:00z")))}, false, 0},
		{"duplicate result", map[string]string{"runs.yaml": streamRuns(6, true, at(2, replace("task-1,", "task-0,")))}, false, 0},
		{"third result of a pair", map[string]string{"runs.yaml": streamRuns(6, false, at(2, func(s string) string {
			s = strings.Replace(s, "task-1\n", "task-0\n", 1)
			s = strings.Replace(s, "accuracy", "a1", 1)
			return strings.Replace(s, "task-2\n", "task-0\n", 1)
		}))}, false, 0},
		{"completed without values", map[string]string{"runs.yaml": streamRuns(6, false, at(3, func(s string) string {
			return s[:strings.Index(s, "    results:")] + "    results: []\n"
		}))}, false, 0},
		{"run id twice", map[string]string{"runs.yaml": streamRuns(6, true, at(4, replace("id: run-4", "id: run-1")))}, true, 0},
		{"run id twice across files", map[string]string{"a.yaml": streamRuns(3, true, nil), "b.yaml": streamRuns(3, false, nil)}, true, 0},
		{"other section bad", map[string]string{"runs.yaml": streamRuns(6, false, nil) + "risk_scorers:\n  - key: x\n"}, false, 0},
		{"unknown top-level key", map[string]string{"runs.yaml": "foo: 1\n" + streamRuns(6, false, nil)}, false, 0},
		{"comment", map[string]string{"runs.yaml": "# runs\n" + streamRuns(6, false, nil)}, false, 0},
		{"not a list of mappings", map[string]string{"runs.yaml": "evaluation_runs:\n  - 1\n  - x\n"}, false, 0},
		{"flow list", map[string]string{"runs.yaml": "evaluation_runs: [{evaluation_key: e, id: r, created_at: \"2026-01-15T09:00:00Z\", status: failed, results: []}]\n"}, false, 0},
	}
	defer func(old int) { streamMin = old }(streamMin)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			streamMin = 1 << 40
			whole := loadAll(t, dir, true)
			streamMin = 0
			streamed := loadAll(t, dir, true)
			if whole.packed != 0 {
				t.Fatal("the whole file's runs were packed")
			}
			if c.streamed && streamed.packed != len(whole.runs) {
				t.Errorf("%d of %d runs read one at a time", streamed.packed, len(whole.runs))
			}
			if c.streamed && streamed.packed-streamed.lazy != c.eager {
				t.Errorf("%d runs rendered as read, want %d", streamed.packed-streamed.lazy, c.eager)
			}
			if !c.streamed && streamed.packed != 0 {
				t.Errorf("%d runs read one at a time from a file with problems", streamed.packed)
			}
			if !reflect.DeepEqual(streamed.diags, whole.diags) {
				t.Errorf("problems differ:\nstreamed %q\nwhole    %q", streamed.diags, whole.diags)
			}
			if !reflect.DeepEqual(streamed.entities, whole.entities) {
				t.Errorf("entities differ:\nstreamed %q\nwhole    %q", streamed.entities, whole.entities)
			}
			if !reflect.DeepEqual(streamed.runs, whole.runs) {
				t.Errorf("runs differ:\nstreamed %+v\nwhole    %+v", streamed.runs, whole.runs)
			}
			if streamed.export != whole.export {
				t.Errorf("stored runs differ:\nstreamed %s\nwhole    %s", streamed.export, whole.export)
			}
			if len(whole.diags) <= 1 && c.streamed && whole.export == "" {
				t.Error("nothing was written")
			}
		})
	}
}

// TestRunCleanAgreesWithRunProblems: the check made while a run is read
// finds a problem exactly when runProblems reports one.
func TestRunCleanAgreesWithRunProblems(t *testing.T) {
	res := func(task string, metrics ...string) model.Result {
		m := map[string]float64{}
		for _, n := range metrics {
			m[n] = 1
		}
		return model.Result{TaskSpecificationKey: task, ScorerKey: "s", Metrics: m}
	}
	for i, r := range []model.EvaluationRun{
		{Status: model.StatusCompleted},
		{Status: "failed"},
		{Status: model.StatusCompleted, Results: []model.Result{res("a")}},
		{Status: model.StatusCompleted, Results: []model.Result{res("a", "x"), res("b", "x")}},
		{Status: model.StatusCompleted, Results: []model.Result{res("a", "x"), res("a", "y")}},
		{Status: model.StatusCompleted, Results: []model.Result{res("a", "x"), res("a", "x")}},
		{Status: model.StatusCompleted, Results: []model.Result{res("a", "x"), res("a", "y"), res("a", "y")}},
		{Status: model.StatusCompleted, Results: []model.Result{res("a", "x"), res("a"), res("a", "z", "x")}},
		{Status: "running", Results: []model.Result{res("a", "x"), res("b", "x"), res("b", "y", "x")}},
	} {
		f, _ := parseForTest(t)
		e := &Entity{Kind: model.KindEvaluationRun, File: f, Run: &r}
		if got, want := runClean(&r), len(runProblems(e)) == 0; got != want {
			t.Errorf("run %d: runClean %v, runProblems found none: %v", i, got, want)
		}
		if p := pack(&r).unpack(); !reflect.DeepEqual(p, &r) {
			t.Errorf("run %d: unpacked %+v, want %+v", i, p, &r)
		}
	}
}

func parseForTest(t *testing.T) (*File, diag.List) {
	t.Helper()
	f := &File{Rel: "f.yaml", Data: []byte("evaluation_runs: []\n")}
	doc, ds := parseWhole(f)
	f.Doc = doc
	return f, ds
}
