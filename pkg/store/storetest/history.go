package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// testRunHistory checks LatestRunsAt and RunTimeline: runs added out of
// time order take their place, ties on created_at go to the greater id,
// runs that are not completed never count.
func testRunHistory(t *testing.T, st backend.Backend) {
	for _, r := range []model.EvaluationRun{
		run("qa", "r3", 10, model.StatusCompleted, 0.3),
		run("qa", "r1", 1, model.StatusCompleted, 0.1),
		run("qa", "r2b", 5, model.StatusCompleted, 0.2),
		run("qa", "r2a", 5, model.StatusCompleted, 0.2),
		run("qa", "r9", 7, model.StatusFailed, 0.9),
		run("b", "x", 3, model.StatusCompleted, 0.5),
	} {
		must(t, st.RecordRun(ctx, r))
	}
	at := func(day int) string { return backend.FormatTime(time.Date(2026, 11, day, 0, 0, 0, 0, time.UTC)) }
	ref := func(k, id string) model.RunRef { return model.RunRef{EvaluationKey: k, ID: id} }
	for _, tc := range []struct {
		keys []string
		day  int
		want []model.RunRef
	}{
		{nil, 0, nil},
		{nil, 1, []model.RunRef{ref("qa", "r1")}},
		{nil, 4, []model.RunRef{ref("b", "x"), ref("qa", "r1")}},
		{nil, 8, []model.RunRef{ref("b", "x"), ref("qa", "r2b")}},
		{nil, 30, []model.RunRef{ref("b", "x"), ref("qa", "r3")}},
		{[]string{"qa", "none", "b"}, 5, []model.RunRef{ref("qa", "r2b"), ref("b", "x")}},
		{[]string{"b"}, 2, nil},
	} {
		got, err := st.LatestRunsAt(ctx, tc.keys, at(tc.day))
		must(t, err)
		if len(got) != 0 || len(tc.want) != 0 {
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("LatestRunsAt(%v, day %d) = %v, want %v", tc.keys, tc.day, got, tc.want)
			}
		}
	}
	now, err := st.LatestRuns(ctx, nil)
	must(t, err)
	if then, _ := st.LatestRunsAt(ctx, nil, at(30)); !reflect.DeepEqual(now, then) {
		t.Errorf("LatestRunsAt(after every run) = %v, LatestRuns = %v", then, now)
	}
	tl, err := st.RunTimeline(ctx, nil)
	must(t, err)
	var ids []string
	for _, r := range tl {
		ids = append(ids, r.ID)
	}
	if want := []string{"r1", "x", "r2a", "r2b", "r3"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("RunTimeline(nil) = %v, want %v", ids, want)
	}
	tl, err = st.RunTimeline(ctx, []string{"qa"})
	must(t, err)
	if len(tl) != 4 || tl[0].CreatedAt != at(1) || tl[3].ID != "r3" {
		t.Errorf("RunTimeline(qa) = %v", tl)
	}
}
