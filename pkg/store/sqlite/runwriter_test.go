package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/internal/runbatch"
)

// scanResults are results shaped like an AgentLeak scan's: n traces with
// long task keys and about twelve metrics each.
func scanResults(n int) []model.Result {
	names := []string{
		"blocked", "leak_rate_final_output", "leak_rate_generated_file", "leak_rate_inter_agent_message", "leak_rate_log",
		"leak_rate_shared_memory", "leak_rate_tool_call", "leaked_secrets", "privacy_score", "risk_index",
	}
	extra := []string{"leaks_canary", "leaks_email", "leaks_iban", "leaks_address"}
	res := make([]model.Result, n)
	for i := range res {
		m := make(map[string]float64, 12)
		for j, k := range names {
			m[k] = float64((i+j)%7) / 7
		}
		m[extra[i%len(extra)]] = 1
		if i%3 == 0 {
			m[extra[(i+1)%len(extra)]] = 2
		}
		res[i] = model.Result{TaskSpecificationKey: fmt.Sprintf("banking__user_task_%d__injection_task_%d__r%d", i%97, i%13, i), ScorerKey: "agentleak", Metrics: m}
	}
	return res
}

// BenchmarkRunWriter streams a scan of 2,300 traces (about 26,000 metric
// values, issue 10's workload) and of 23,000 (the 92 MB input) into a fresh
// file store, as a recorded `lf agentleak scan` does.
func BenchmarkRunWriter(b *testing.B) {
	for _, n := range []int{2300, 23000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchRunWriter(b, scanResults(n)) })
	}
}

func benchRunWriter(b *testing.B, res []model.Result) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st, err := Open(ctx, filepath.Join(b.TempDir(), "lf.db"), true)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		w, err := st.BeginRun(ctx, model.EvaluationRun{EvaluationKey: "agentleak", ID: "scan-20261203T163344Z-3b68ef", CreatedAt: time.Date(2026, 12, 3, 16, 0, 0, 0, time.UTC)})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			if err := w.Add(ctx, r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Finish(ctx, model.StatusCompleted); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
	}
}

// TestRunWriterBlocks writes a run larger than the writer holds: it is
// written in several blocks, invisible until Finish, then read back whole
// and in order; an aborted run leaves nothing, and the next run starts
// afresh.
func TestRunWriterBlocks(t *testing.T) {
	ctx := context.Background()
	defer func(n int) { runbatch.HeldValues = n }(runbatch.HeldValues)
	runbatch.HeldValues = 100
	st, err := Open(ctx, filepath.Join(t.TempDir(), "lf.db"), true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res := scanResults(runWriterBatch + 700)
	w, err := st.BeginRun(ctx, run("scan", "big", 1, model.StatusCompleted, 0))
	if err != nil {
		t.Fatal(err)
	}
	aborted, err := st.BeginRun(ctx, run("scan", "gone", 2, model.StatusCompleted, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if err := w.Add(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := aborted.Add(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := aborted.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.LatestRuns(ctx, nil); len(got) != 0 {
		t.Fatalf("a running run is visible: %v", got)
	}
	if err := w.Finish(ctx, model.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	back, err := st.Run(ctx, "scan", "big")
	if err != nil || back == nil || back.Status != model.StatusCompleted || len(back.Results) != len(res) {
		t.Fatalf("run back: %v, %v", back, err)
	}
	byTask := map[string]map[string]float64{}
	for _, r := range back.Results {
		byTask[r.TaskSpecificationKey] = r.Metrics
	}
	for _, r := range res {
		if !reflect.DeepEqual(byTask[r.TaskSpecificationKey], r.Metrics) {
			t.Fatalf("task %s: %v, want %v", r.TaskSpecificationKey, byTask[r.TaskSpecificationKey], r.Metrics)
		}
	}
	if r, _ := st.Run(ctx, "scan", "gone"); r != nil {
		t.Fatalf("aborted run kept: %d results", len(r.Results))
	}
	small, _ := st.BeginRun(ctx, run("scan", "small", 3, model.StatusCompleted, 0))
	for _, r := range res[:5] {
		small.Add(ctx, r)
	}
	if err := small.Finish(ctx, model.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	if back, _ := st.Run(ctx, "scan", "small"); back == nil || len(back.Results) != 5 {
		t.Fatalf("small run after one of several blocks: %+v", back)
	}
}
