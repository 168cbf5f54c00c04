package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// benchRuns are runs shaped like `lfgen runs` output: 100 results of two
// metrics each, spread over 45 evaluation keys.
func benchRuns(n int) []model.EvaluationRun {
	runs := make([]model.EvaluationRun, n)
	for i := range runs {
		res := make([]model.Result, 100)
		for j := range res {
			v := float64(j) / 1000
			res[j] = model.Result{TaskSpecificationKey: fmt.Sprintf("task-%d", j), ScorerKey: "exact_match", Metrics: map[string]float64{"accuracy": v, "f1": v}}
		}
		runs[i] = model.EvaluationRun{
			EvaluationKey: fmt.Sprintf("eval-%d", i%45), ID: fmt.Sprintf("run-%d", i), Status: model.StatusCompleted,
			CreatedAt: time.Date(2026, 1, 15, 9, 0, i, 0, time.UTC), Results: res,
		}
	}
	return runs
}

// BenchmarkPutRunYAML adds 1,000 new runs (200,000 metric values) in one
// transaction, as `lf add -f` of a large runs file does; ns/op / 200,000 is
// the cost of one value.
func BenchmarkPutRunYAML(b *testing.B) {
	ctx := context.Background()
	runs := benchRuns(1000)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st, err := Open(ctx, filepath.Join(b.TempDir(), "lf.db"), true)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		err = st.Update(ctx, func(tx backend.Tx) error {
			for _, r := range runs {
				if _, err := tx.PutRunYAML(ctx, r, "yaml of "+r.ID); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
	}
}

// TestPutRunYAMLBatches stores runs whose value counts straddle the INSERT
// batch size and reads every value back; a duplicate value fails the whole
// transaction and leaves nothing behind.
func TestPutRunYAMLBatches(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "lf.db"), true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var want []model.EvaluationRun
	for i, n := range []int{0, 1, valuesPerInsert - 1, valuesPerInsert, valuesPerInsert + 1, 3*valuesPerInsert + 7} {
		r := model.EvaluationRun{EvaluationKey: "qa", ID: fmt.Sprintf("r%d", i), Status: model.StatusCompleted, CreatedAt: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)}
		for j := 0; j < n; j++ {
			r.Results = append(r.Results, model.Result{TaskSpecificationKey: fmt.Sprintf("t%d", j), ScorerKey: "s", Metrics: map[string]float64{"b": float64(j), "a": -float64(j)}})
		}
		want = append(want, r)
	}
	err = st.Update(ctx, func(tx backend.Tx) error {
		for _, r := range want {
			if _, err := tx.PutRunYAML(ctx, r, r.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		got, err := st.Run(ctx, w.EvaluationKey, w.ID)
		if err != nil || got == nil {
			t.Fatalf("run %s: %v %v", w.ID, got, err)
		}
		n := 0
		for _, r := range got.Results {
			n += len(r.Metrics)
			var j int
			fmt.Sscanf(r.TaskSpecificationKey, "t%d", &j)
			if r.Metrics["a"] != -float64(j) || r.Metrics["b"] != float64(j) {
				t.Errorf("run %s %s: %v", w.ID, r.TaskSpecificationKey, r.Metrics)
			}
		}
		if n != 2*len(w.Results) {
			t.Errorf("run %s: %d values, want %d", w.ID, n, 2*len(w.Results))
		}
	}

	bad := model.EvaluationRun{EvaluationKey: "qa", ID: "dup", Status: model.StatusCompleted, CreatedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	for j := 0; j < valuesPerInsert+5; j++ {
		bad.Results = append(bad.Results, model.Result{TaskSpecificationKey: "same", ScorerKey: "s", Metrics: map[string]float64{"a": 1}})
	}
	err = st.Update(ctx, func(tx backend.Tx) error {
		if _, err := tx.PutRunYAML(ctx, want[1], "changed"); err != nil {
			return err
		}
		_, err := tx.PutRunYAML(ctx, bad, "dup")
		return err
	})
	if err == nil {
		t.Fatal("duplicate metric values were stored")
	}
	if got, _ := st.Run(ctx, "qa", "dup"); got != nil {
		t.Error("the failed transaction left run dup behind")
	}
	if got, _ := st.Run(ctx, "qa", "r1"); got == nil || len(got.Results) != 1 {
		t.Errorf("the failed transaction changed run r1: %+v", got)
	}
}
