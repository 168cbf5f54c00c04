package project_test

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// TestHistoryPointsAreOverviewsAsOf: on random histories with runs added
// out of time order, each point of each scorer's history is the overview
// as of that point's moment, a point is never followed by another at the
// same moment, and every moment a run entered the scorer's scope is a point.
func TestHistoryPointsAreOverviewsAsOf(t *testing.T) {
	ctx := context.Background()
	for name, opener := range backends() {
		t.Run(name, func(t *testing.T) {
			fresh := opener(t)
			for seed := int64(1); seed <= 3; seed++ {
				h := randomHistory(rand.New(rand.NewSource(200+seed)), 40)
				st := fresh()
				h.write(t, st, nil)
				hs, err := project.Histories(ctx, st, project.OverviewFilter{})
				if err != nil {
					t.Fatal(err)
				}
				checkHistories(t, st, h, hs)
			}
		})
	}
}

func checkHistories(t *testing.T, st *store.Store, h history, hs []risk.History) {
	t.Helper()
	ctx := context.Background()
	asOf := map[string]map[string]risk.Result{} // moment -> key -> result
	points := 0
	for _, sh := range hs {
		scorer := h.scorers[0]
		for _, s := range h.scorers {
			if s.Key == sh.Key {
				scorer = s
			}
		}
		want := map[string]bool{} // the moments a completed run of the scope was created
		for _, r := range h.runs {
			if r.Status == "completed" && (scorer.Scope.AllLatest || scorer.Scope.EvaluationKeys == nil || contains(scorer.Scope.EvaluationKeys, r.EvaluationKey)) {
				want[store.FormatTime(r.CreatedAt)] = true
			}
		}
		if len(sh.Points) != len(want) {
			t.Fatalf("%s: %d points, want one per moment a run entered its scope: %d", sh.Key, len(sh.Points), len(want))
		}
		for i, p := range sh.Points {
			at, err := time.Parse(time.RFC3339Nano, p.At)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				prev, _ := time.Parse(time.RFC3339Nano, sh.Points[i-1].At)
				if !at.After(prev) {
					t.Fatalf("%s: point %d at %s is not after %s", sh.Key, i, p.At, sh.Points[i-1].At)
				}
			}
			if asOf[p.At] == nil {
				res, err := project.Overview(ctx, st, project.OverviewFilter{At: at})
				if err != nil {
					t.Fatal(err)
				}
				asOf[p.At] = map[string]risk.Result{}
				for _, r := range res {
					asOf[p.At][r.Key] = r
				}
			}
			r := asOf[p.At][sh.Key]
			got := risk.Result{Score: p.Score, Level: p.Level, Values: p.Values, Runs: p.Runs, Error: p.Error}
			wantR := risk.Result{Score: r.Score, Level: r.Level, Values: r.Values, Runs: r.Runs, Error: r.Error}
			if jsonOf(t, got) != jsonOf(t, wantR) {
				t.Fatalf("%s at %s: history %s, overview as of then %s", sh.Key, p.At, jsonOf(t, got), jsonOf(t, wantR))
			}
			points++
		}
	}
	if points == 0 {
		t.Fatal("no point: the check saw nothing")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
