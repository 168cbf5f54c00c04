package project_test

import (
	"context"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// TestExplainReproducesOverview: on random stores, now and as of moments in
// their history, explain gives every scorer the overview's score and level,
// and its listed risks, aggregated as it says, give that score.
func TestExplainReproducesOverview(t *testing.T) {
	for name, opener := range backends() {
		t.Run(name, func(t *testing.T) {
			fresh := opener(t)
			for seed := int64(1); seed <= 3; seed++ {
				h := randomHistory(rand.New(rand.NewSource(100+seed)), 30)
				st := fresh()
				h.write(t, st, nil)
				moments := momentsOf(h)
				for _, at := range []time.Time{{}, moments[len(moments)/3], moments[len(moments)/2]} {
					CheckExplainsOverview(t, st, at)
				}
			}
		})
	}
}

// CheckExplainsOverview checks every scorer's explanation against the
// overview of st as of at (the zero time: now).
func CheckExplainsOverview(t *testing.T, st *store.Store, at time.Time) {
	t.Helper()
	ctx := context.Background()
	res, err := project.Overview(ctx, st, project.OverviewFilter{At: at})
	if err != nil {
		t.Fatal(err)
	}
	scored := 0
	for _, r := range res {
		e, err := project.Explain(ctx, st, r.Key, at)
		if err != nil {
			t.Fatal(err)
		}
		if e.Level != r.Level || e.Error != r.Error || !sameScore(e.Score, r.Score) || len(e.Values) != r.Values {
			t.Fatalf("%s as of %v: explain says %v %v (%d values, %q), overview %v %v (%d values, %q)",
				r.Key, at, deref(e.Score), e.Level, len(e.Values), e.Error, deref(r.Score), r.Level, r.Values, r.Error)
		}
		if r.Score != nil {
			scored++
			if got := replay(e); got != *r.Score {
				t.Fatalf("%s: the listed risks aggregate to %v, the overview says %v", r.Key, got, *r.Score)
			}
		}
	}
	if at.IsZero() && scored == 0 {
		t.Fatal("no scorer has a score: the check saw nothing")
	}
}

// replay aggregates the explanation's listed risks as its aggregation says,
// in the order listed.
func replay(e *risk.Explanation) float64 {
	acc := 0.0
	for i, v := range e.Values {
		switch {
		case i == 0:
			acc = v.Risk
		case e.Aggregation.Kind == "max":
			acc = math.Max(acc, v.Risk)
		case e.Aggregation.Kind == "min":
			acc = math.Min(acc, v.Risk)
		default:
			acc += v.Risk
		}
	}
	if e.Aggregation.Kind == "mean" {
		acc /= float64(len(e.Values))
	}
	return math.Round(math.Min(10, math.Max(0, acc))*1e9) / 1e9
}

func sameScore(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
