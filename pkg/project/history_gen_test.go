package project_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
)

// history is a random store content: methodologies, risk scorers and runs
// whose created_at order differs from the order they are added in (a run
// imported later with an earlier created_at), with ties on created_at.
type history struct {
	methodologies []*model.Methodology
	scorers       []*model.RiskScorer
	runs          []model.EvaluationRun // in the order they are added
}

var histBase = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.Intn(len(xs))] }

func maybeList(r *rand.Rand, all ...string) []string {
	if r.Intn(2) == 0 {
		return nil
	}
	var out []string
	for _, x := range all {
		if r.Intn(2) == 0 {
			out = append(out, x)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

func randomHistory(r *rand.Rand, nRuns int) history {
	f := func(x float64) *float64 { return &x }
	h := history{methodologies: []*model.Methodology{
		{Key: "lin", DisplayName: "Linear", Function: "(1 - value) * impact", ConfigSpec: []model.Param{{Key: "impact", Type: model.ParamFloat, DefaultValue: 5.0, Min: f(0), Max: f(10)}}},
		{Key: "sq", DisplayName: "Square", Function: "value * value * 10 * reach", ConfigSpec: []model.Param{{
			Key: "reach", Type: model.ParamCategorical, DefaultValue: "internal", AllowedValues: []string{"internal", "external"},
			ValuesMapping: map[string]float64{"internal": 0.5, "external": 1},
		}}},
		{Key: "step", DisplayName: "Step", Function: "8 if value < 0.3 else 1.5"},
	}}
	keys := []string{"e1", "e2", "e3", "e4"}
	for i := 0; i < 10; i++ {
		s := &model.RiskScorer{
			Key: fmt.Sprintf("s%02d", i), DisplayName: fmt.Sprintf("Scorer %d", i), Domain: pick(r, "safety", "quality"),
			Aggregation: pick(r, "mean", "max", "min"), Metric: pick(r, "m1", "m2"),
		}
		switch m := pick(r, "lin", "sq", "step"); m {
		case "lin":
			s.RiskScoringMethodologyKey, s.Config = m, map[string]any{"impact": float64(r.Intn(10) + 1)}
		case "sq":
			s.RiskScoringMethodologyKey, s.Config = m, map[string]any{"reach": pick(r, "internal", "external")}
		default:
			s.RiskScoringMethodologyKey = m
		}
		if r.Intn(3) == 0 {
			s.Scope.AllLatest = true
		} else {
			s.Scope.EvaluationKeys = maybeList(r, keys...)
			if s.Scope.EvaluationKeys == nil || len(s.Scope.EvaluationKeys) == 0 {
				s.Scope.EvaluationKeys = []string{pick(r, keys...)}
			}
			s.Scope.TaskSpecificationKeys = maybeList(r, "t1", "t2")
			s.Scope.ScorerKeys = maybeList(r, "k1", "k2")
			if r.Intn(6) == 0 {
				s.Scope.MetricKeys = maybeList(r, "m1", "m2")
			}
		}
		h.scorers = append(h.scorers, s)
	}
	for i := 0; i < nRuns; i++ {
		run := model.EvaluationRun{
			EvaluationKey: pick(r, keys...), ID: fmt.Sprintf("r%03d", r.Intn(1000)),
			CreatedAt: histBase.Add(time.Duration(r.Intn(30)) * 6 * time.Hour),
			Status:    pick(r, model.StatusCompleted, model.StatusCompleted, model.StatusCompleted, model.StatusFailed),
		}
		for _, task := range []string{"t1", "t2"} {
			for _, sk := range []string{"k1", "k2"} {
				if r.Intn(4) == 0 {
					continue
				}
				m := map[string]float64{}
				for _, metric := range []string{"m1", "m2"} {
					if r.Intn(3) > 0 {
						m[metric] = float64(r.Intn(101)) / 100
					}
				}
				run.Results = append(run.Results, model.Result{TaskSpecificationKey: task, ScorerKey: sk, Metrics: m})
			}
		}
		h.runs = append(h.runs, run)
	}
	return h
}

// write stores the entities and the runs for which keep says so, in the
// order of h.runs (a later run with the same key and id replaces the
// earlier one).
func (h history) write(t testing.TB, st *store.Store, keep func(model.EvaluationRun) bool) {
	t.Helper()
	ctx := context.Background()
	err := st.Update(ctx, func(tx store.Tx) error {
		for _, m := range h.methodologies {
			if err := putJSON(ctx, tx, model.KindMethodology, m.Key, m); err != nil {
				return err
			}
		}
		for _, s := range h.scorers {
			if err := putJSON(ctx, tx, model.KindRiskScorer, s.Key, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range h.runs {
		if keep == nil || keep(run) {
			if err := st.RecordRun(ctx, run); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func putJSON(ctx context.Context, tx store.Tx, kind model.Kind, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = tx.PutEntity(ctx, store.Entity{Kind: kind, Key: key, Body: string(b)})
	return err
}

// backends lists the stores a history test runs on: SQLite always,
// PostgreSQL when LF_TEST_POSTGRES names a server. Called with a test, each
// returns an opener of fresh stores (for PostgreSQL: one database per test,
// a fresh app in it per store, since apps never see each other's rows).
func backends() map[string]func(t *testing.T) func() *store.Store {
	out := map[string]func(t *testing.T) func() *store.Store{
		"sqlite": func(t *testing.T) func() *store.Store {
			return func() *store.Store { return openStore(t, filepath.Join(t.TempDir(), "lf.db")) }
		},
	}
	if os.Getenv(pgtest.EnvVar) != "" || os.Getenv("CI") == "true" {
		out["postgres"] = func(t *testing.T) func() *store.Store {
			pg := openStore(t, pgtest.New(t))
			n := 0
			return func() *store.Store {
				n++
				return &store.Store{Backend: pg.Backend.ForApp(fmt.Sprintf("fresh%d", n)), Path: pg.Path}
			}
		}
	}
	return out
}

func openStore(t *testing.T, url string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
