package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
)

// streamedResults are results shaped like a scan's, in input order (not
// key order), with a metric only some results have.
func streamedResults(n int) []model.Result {
	res := make([]model.Result, n)
	for i := range res {
		m := map[string]float64{"blocked": float64(i % 2), "risk_index": float64(i%97) / 97}
		if i%5 == 0 {
			m["leaks_email"] = float64(i % 3)
		}
		res[i] = model.Result{TaskSpecificationKey: fmt.Sprintf("task-%d", (i*7919)%n), ScorerKey: "agentleak", Metrics: m}
	}
	return res
}

// readBack is what every reader of a run's values gives.
type readBack struct {
	Run    *model.EvaluationRun
	Values map[string][]model.MetricValue
	Count  int
}

func readRun(t *testing.T, st *store.Store, key, id string) readBack {
	ctx := context.Background()
	run, err := st.Run(ctx, key, id)
	if err != nil || run == nil {
		t.Fatalf("%s: run %s/%s = %v, %v", st.Path, key, id, run, err)
	}
	run.CreatedAt = run.CreatedAt.UTC()
	out := readBack{Run: run, Values: map[string][]model.MetricValue{}}
	for _, m := range []string{"blocked", "risk_index", "leaks_email", "none"} {
		v, err := st.Values(ctx, model.RunRef{EvaluationKey: key, ID: id}, m)
		if err != nil {
			t.Fatal(err)
		}
		out.Values[m] = v
	}
	rows, err := st.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.EvaluationKey == key && r.ID == id {
			out.Count = r.Values
		}
	}
	return out
}

// TestStreamedRunReadsAsRows: a run streamed through a run writer (stored
// in blocks) reads back through Run, Values and the run list exactly as the
// same run recorded as rows of metric_values, on both backends, after lf
// store copy either way, and gc and delete take its values with it.
func TestStreamedRunReadsAsRows(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	res := streamedResults(500)
	urls := []string{filepath.Join(t.TempDir(), "a.db")}
	if os.Getenv(pgtest.EnvVar) != "" {
		urls = append(urls, pgtest.New(t))
	}
	var stores []*store.Store
	for _, url := range urls {
		st := openURL(t, url)
		stores = append(stores, st)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		w, err := st.BeginRun(ctx, model.EvaluationRun{EvaluationKey: "scan", ID: "streamed", CreatedAt: at})
		must(err)
		for _, r := range res {
			must(w.Add(ctx, r))
		}
		must(w.Finish(ctx, model.StatusCompleted))
		must(st.RecordRun(ctx, model.EvaluationRun{EvaluationKey: "scan", ID: "rows", CreatedAt: at, Status: model.StatusCompleted, Results: res}))
		streamed, rows := readRun(t, st, "scan", "streamed"), readRun(t, st, "scan", "rows")
		rows.Run.ID = "streamed"
		if !reflect.DeepEqual(streamed, rows) {
			t.Fatalf("%s: a streamed run reads otherwise than the same run as rows:\n%+v\n%+v", url, streamed.Values["leaks_email"], rows.Values["leaks_email"])
		}
		if streamed.Count != 1100 || len(streamed.Run.Results) != len(res) {
			t.Fatalf("%s: %d values, %d results", url, streamed.Count, len(streamed.Run.Results))
		}
	}
	if len(stores) == 2 {
		b := openURL(t, filepath.Join(t.TempDir(), "b.db"))
		for _, pair := range [][2]*store.Store{{stores[0], stores[1]}, {stores[1], b}} {
			if _, err := store.Copy(ctx, pair[0], pair[1], nil); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := readRun(t, b, "scan", "streamed"), readRun(t, stores[0], "scan", "streamed"); !reflect.DeepEqual(got, want) {
			t.Fatal("the streamed run reads otherwise after copying it to PostgreSQL and back")
		}
	}
	for _, st := range stores {
		if err := st.Update(ctx, func(tx backend.Tx) error { return tx.DeleteRun(ctx, "scan", "streamed") }); err != nil {
			t.Fatal(err)
		}
		if v, err := st.Values(ctx, model.RunRef{EvaluationKey: "scan", ID: "streamed"}, "blocked"); err != nil || len(v) != 0 {
			t.Fatalf("%s: values of a deleted run: %d, %v", st.Path, len(v), err)
		}
	}
}
