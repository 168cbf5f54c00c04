package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store"
)

// asOfStore is a random store content: scorers over two domains and runs
// added in an order other than their created_at (some created at the same
// instant, some failed).
type asOfStore struct {
	methodologies []*model.Methodology
	scorers       []*model.RiskScorer
	runs          []model.EvaluationRun
}

var asOfBase = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func randomStore(r *rand.Rand) asOfStore {
	s := asOfStore{methodologies: []*model.Methodology{
		{Key: "lin", DisplayName: "Linear", Function: "(1 - value) * 10"},
		{Key: "step", DisplayName: "Step", Function: "9.5 if value < 0.2 else value * 3"},
	}}
	keys := []string{"e1", "e2", "e3"}
	for i := 0; i < 6; i++ {
		sc := &model.RiskScorer{
			Key: fmt.Sprintf("s%d", i), DisplayName: fmt.Sprintf("Scorer %d", i), Domain: []string{"safety", "quality"}[i%2],
			RiskScoringMethodologyKey: []string{"lin", "step"}[r.Intn(2)], Aggregation: []string{"mean", "max", "min"}[r.Intn(3)], Metric: "m",
		}
		if i == 5 {
			sc.Scope.AllLatest = true
		} else {
			sc.Scope.EvaluationKeys = []string{keys[r.Intn(3)]}
		}
		s.scorers = append(s.scorers, sc)
	}
	for i := 0; i < 24; i++ {
		run := model.EvaluationRun{
			EvaluationKey: keys[r.Intn(3)], ID: fmt.Sprintf("r%02d", i),
			CreatedAt: asOfBase.Add(time.Duration(r.Intn(12)) * 12 * time.Hour), Status: model.StatusCompleted,
		}
		if r.Intn(6) == 0 {
			run.Status = model.StatusFailed
		}
		for _, task := range []string{"t1", "t2"} {
			run.Results = append(run.Results, model.Result{TaskSpecificationKey: task, ScorerKey: "k", Metrics: map[string]float64{"m": float64(r.Intn(101)) / 100}})
		}
		s.runs = append(s.runs, run)
	}
	return s
}

// open writes the entities and the runs created at or before upTo (all
// when upTo is zero), in the order they were generated, into a new store.
func (s asOfStore) open(t *testing.T, upTo time.Time) *store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "lf.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	put := func(tx store.Tx, kind model.Kind, key string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = tx.PutEntity(ctx, store.Entity{Kind: kind, Key: key, Body: string(b)})
		return err
	}
	err = st.Update(ctx, func(tx store.Tx) error {
		for _, m := range s.methodologies {
			if err := put(tx, model.KindMethodology, m.Key, m); err != nil {
				return err
			}
		}
		for _, sc := range s.scorers {
			if err := put(tx, model.KindRiskScorer, sc.Key, sc); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range s.runs {
		if upTo.IsZero() || !run.CreatedAt.After(upTo) {
			if err := st.RecordRun(ctx, run); err != nil {
				t.Fatal(err)
			}
		}
	}
	return st
}

// asOfBanner is the line that says which moment the page shows: the one
// difference between a report as of a moment and the report of a store
// holding the runs up to it.
var asOfBanner = regexp.MustCompile(` · risk scorers and AgentLeak scans as of <b class="asof">[^<]*</b> \([^)]*\)`)

// TestReportAtEqualsStoreOfThatMoment: the report as of a moment (scores,
// each scorer's and domain's history charts, the explanations of the
// drill-down, the page itself) equals the report of a fresh store holding
// only the runs created up to that moment, on random stores whose runs are
// added out of time order.
func TestReportAtEqualsStoreOfThatMoment(t *testing.T) {
	t.Parallel() // its own stores: runs while the Chromium tests wait
	ctx := context.Background()
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	for seed := int64(1); seed <= 3; seed++ {
		s := randomStore(rand.New(rand.NewSource(seed)))
		full := s.open(t, time.Time{})
		for _, hours := range []int{-1, 0, 30, 60, 61, 200} {
			at := asOfBase.Add(time.Duration(hours) * time.Hour)
			got, err := Build(ctx, full, Options{At: at, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			want, err := Build(ctx, s.open(t, at), Options{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range []struct {
				name      string
				got, want any
			}{
				{"scorers", got.Scorers, want.Scorers},
				{"history", got.History, want.History},
				{"domain history", got.DomainHistory, want.DomainHistory},
				{"explanations", got.Explanations, want.Explanations},
			} {
				if g, w := jsonText(t, part.got), jsonText(t, part.want); g != w {
					t.Fatalf("seed %d, as of %s, %s:\n got %s\nwant %s", seed, at.Format(time.RFC3339), part.name, g, w)
				}
			}
			gp, wp := pageOf(t, got), pageOf(t, want)
			if !asOfBanner.Match(gp) {
				t.Fatalf("seed %d, as of %s: the page does not say which moment it shows", seed, at.Format(time.RFC3339))
			}
			if gp = asOfBanner.ReplaceAll(gp, nil); !bytes.Equal(gp, wp) {
				t.Fatalf("seed %d, as of %s: pages differ", seed, at.Format(time.RFC3339))
			}
		}
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func pageOf(t *testing.T, d *Data) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, d); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
