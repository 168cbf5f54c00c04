package project_test

import (
	"context"
	"encoding/json"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/internal/testfiles"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/project"
)

// momentsOf returns the moments worth scoring a history at: before every
// run, at each created_at and a nanosecond either side of it, after all.
func momentsOf(h history) []time.Time {
	set := map[time.Time]bool{histBase.Add(-time.Hour): true, histBase.Add(1000 * time.Hour): true}
	for _, r := range h.runs {
		set[r.CreatedAt] = true
		set[r.CreatedAt.Add(-time.Nanosecond)] = true
		set[r.CreatedAt.Add(time.Nanosecond)] = true
	}
	out := make([]time.Time, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

// TestOverviewAtEqualsStoreOfThatMoment: on random histories with runs
// added out of time order, the overview as of a moment equals the overview
// of a fresh store holding only the runs created up to that moment.
func TestOverviewAtEqualsStoreOfThatMoment(t *testing.T) {
	t.Parallel() // its own stores: runs beside the kill test's waits
	ctx := context.Background()
	for name, opener := range backends() {
		t.Run(name, func(t *testing.T) {
			fresh := opener(t)
			seeds := 4 // two unless LF_TEST_FULL=1 (CI): each seed makes about 25 stores
			if testfiles.Reduced() {
				seeds = 2
			}
			for seed := int64(1); seed <= int64(seeds); seed++ {
				h := randomHistory(rand.New(rand.NewSource(seed)), 40)
				full := fresh()
				h.write(t, full, nil)
				moments := momentsOf(h)
				for i, at := range moments {
					// Every moment on SQLite would make ~90 stores a seed:
					// take the first and last and one in four of the rest.
					if i != 0 && i != len(moments)-1 && (i+int(seed))%4 != 0 {
						continue
					}
					got, err := project.Overview(ctx, full, project.OverviewFilter{At: at})
					if err != nil {
						t.Fatal(err)
					}
					then := fresh()
					h.write(t, then, func(r model.EvaluationRun) bool { return !r.CreatedAt.After(at) })
					want, err := project.Overview(ctx, then, project.OverviewFilter{})
					if err != nil {
						t.Fatal(err)
					}
					if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
						t.Fatalf("seed %d, as of %s:\n got %s\nwant %s", seed, at.Format(time.RFC3339Nano), g, w)
					}
				}
			}
		})
	}
}

// TestOverviewAtBeforeEveryRun: as of a moment before every run, every
// scorer is no_data and RunsAt says nothing was there to see.
func TestOverviewAtBeforeEveryRun(t *testing.T) {
	ctx := context.Background()
	h := randomHistory(rand.New(rand.NewSource(7)), 10)
	st := backends()["sqlite"](t)()
	h.write(t, st, nil)
	before := histBase.Add(-time.Second)
	res, err := project.Overview(ctx, st, project.OverviewFilter{At: before})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Score != nil || len(r.Runs) > 0 {
			t.Fatalf("%s scored before every run: %+v", r.Key, r)
		}
	}
	if saw, err := project.RunsAt(ctx, st, before); err != nil || saw {
		t.Fatalf("RunsAt(before every run) = %v, %v", saw, err)
	}
	if saw, err := project.RunsAt(ctx, st, histBase.Add(1000*time.Hour)); err != nil || !saw {
		t.Fatalf("RunsAt(after every run) = %v, %v", saw, err)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
