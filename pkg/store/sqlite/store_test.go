package sqlite

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store/backend"
)

func run(key, id string, day int, status string, acc float64) model.EvaluationRun {
	return model.EvaluationRun{
		EvaluationKey: key, ID: id, Status: status,
		CreatedAt: time.Date(2026, 11, day, 0, 0, 0, 0, time.UTC),
		Results:   []model.Result{{TaskSpecificationKey: "t", ScorerKey: "s", Metrics: map[string]float64{"accuracy": acc, "f1": 1}}},
	}
}

func TestLatestRuns(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "lf.db"), true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, r := range []model.EvaluationRun{
		run("qa", "r1", 1, model.StatusCompleted, 0.1),
		run("qa", "r3", 3, model.StatusFailed, 0.3),    // newer but failed
		run("qa", "r2", 2, model.StatusCompleted, 0.2), // latest completed
		run("other", "b", 5, model.StatusCompleted, 0.5),
		run("other", "a", 5, model.StatusCompleted, 0.4), // same time: the larger id wins
		run("running", "x", 9, model.StatusRunning, 0.9),
	} {
		if err := st.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.LatestRuns(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []risk.RunRef{{EvaluationKey: "other", ID: "b"}, {EvaluationKey: "qa", ID: "r2"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("latest = %v, want %v", got, want)
	}
	vals, err := st.Values(ctx, risk.RunRef{EvaluationKey: "qa", ID: "r2"}, "accuracy")
	if err != nil || len(vals) != 1 || vals[0].Value != 0.2 {
		t.Fatalf("values = %v, %v", vals, err)
	}
	// Deleting the latest run falls back to the previous completed one.
	if err := st.Update(ctx, func(tx backend.Tx) error { return tx.DeleteRun(ctx, "qa", "r2") }); err != nil {
		t.Fatal(err)
	}
	got, _ = st.LatestRuns(ctx, []string{"qa", "running", "missing"})
	if want := []risk.RunRef{{EvaluationKey: "qa", ID: "r1"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after delete = %v, want %v", got, want)
	}
	// Replacing a run replaces its values.
	if err := st.RecordRun(ctx, run("qa", "r1", 1, model.StatusCompleted, 0.7)); err != nil {
		t.Fatal(err)
	}
	back, err := st.Run(ctx, "qa", "r1")
	if err != nil || back == nil || back.Results[0].Metrics["accuracy"] != 0.7 || len(back.Results[0].Metrics) != 2 {
		t.Fatalf("run = %+v, %v", back, err)
	}
}

func TestRunWriterIsInvisibleUntilFinished(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "lf.db"), true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	head := run("scan", "s1", 1, model.StatusCompleted, 0)
	w, err := st.BeginRun(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < runWriterBatch+5; i++ {
		r := model.Result{TaskSpecificationKey: "t" + string(rune('a'+i%26)) + time.Duration(i).String(), ScorerKey: "s", Metrics: map[string]float64{"risk_index": 0.5}}
		if err := w.Add(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := st.LatestRuns(ctx, nil); len(got) != 0 {
		t.Fatalf("a running run is visible to scorers: %v", got)
	}
	if err := w.Finish(ctx, model.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	got, _ := st.LatestRuns(ctx, nil)
	vals, _ := st.Values(ctx, risk.RunRef{EvaluationKey: "scan", ID: "s1"}, "risk_index")
	if len(got) != 1 || len(vals) != runWriterBatch+5 {
		t.Fatalf("after finish: runs %v, %d values", got, len(vals))
	}
	back, _ := st.Run(ctx, "scan", "s1")
	if back.Status != model.StatusCompleted {
		t.Fatalf("status in body = %q", back.Status)
	}
	w2, _ := st.BeginRun(ctx, run("scan", "s2", 2, model.StatusCompleted, 0))
	w2.Add(ctx, model.Result{TaskSpecificationKey: "x", ScorerKey: "s", Metrics: map[string]float64{"risk_index": 1}})
	if err := w2.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	if r, _ := st.Run(ctx, "scan", "s2"); r != nil {
		t.Fatalf("aborted run still stored: %+v", r)
	}
}
