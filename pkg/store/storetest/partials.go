package storetest

import (
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// testRiskPartials checks the kept risk partials: they round-trip by
// signature, one kept already stays, an app sees only its own, and a run
// recorded again (its values replaced) loses its partials.
func testRiskPartials(t *testing.T, st backend.Backend) {
	must(t, st.RecordRun(ctx, run("qa", "r1", 1, model.StatusCompleted, 0.1)))
	must(t, st.RecordRun(ctx, run("qa", "r2", 2, model.StatusCompleted, 0.2)))
	r1, r2 := model.RunRef{EvaluationKey: "qa", ID: "r1"}, model.RunRef{EvaluationKey: "qa", ID: "r2"}
	must(t, st.PutRiskPartials(ctx, "sig-a", map[model.RunRef][]byte{r1: {1, 2}, r2: {0, 0xff}}))
	must(t, st.PutRiskPartials(ctx, "sig-a", map[model.RunRef][]byte{r1: {9}}))
	must(t, st.PutRiskPartials(ctx, "sig-b", map[model.RunRef][]byte{r2: {7}}))
	got, err := st.RiskPartials(ctx, "sig-a", nil)
	must(t, err)
	if want := map[model.RunRef][]byte{r1: {1, 2}, r2: {0, 0xff}}; !reflect.DeepEqual(got, want) {
		t.Errorf("RiskPartials(sig-a) = %v, want %v", got, want)
	}
	must(t, st.RecordRun(ctx, run("scan", "s1", 3, model.StatusCompleted, 0.3)))
	s1 := model.RunRef{EvaluationKey: "scan", ID: "s1"}
	must(t, st.PutRiskPartials(ctx, "sig-a", map[model.RunRef][]byte{s1: {3}}))
	for _, tc := range []struct {
		keys []string
		want map[model.RunRef][]byte
	}{
		{[]string{"qa"}, map[model.RunRef][]byte{r1: {1, 2}, r2: {0, 0xff}}},
		{[]string{"scan", "nothing", "scan"}, map[model.RunRef][]byte{s1: {3}}},
		{[]string{}, map[model.RunRef][]byte{}},
		{nil, map[model.RunRef][]byte{r1: {1, 2}, r2: {0, 0xff}, s1: {3}}},
	} {
		if got, err := st.RiskPartials(ctx, "sig-a", tc.keys); err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("RiskPartials(sig-a, %q) = %v, %v; want %v", tc.keys, got, err, tc.want)
		}
	}
	must(t, st.Update(ctx, func(tx backend.Tx) error { return tx.DeleteRun(ctx, "scan", "s1") }))
	other, err := st.ForApp("other").RiskPartials(ctx, "sig-a", nil)
	must(t, err)
	if len(other) != 0 {
		t.Errorf("another app sees partials: %v", other)
	}
	must(t, st.RecordRun(ctx, run("qa", "r2", 2, model.StatusCompleted, 0.7)))
	got, err = st.RiskPartials(ctx, "sig-a", nil)
	must(t, err)
	if want := map[model.RunRef][]byte{r1: {1, 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("after r2 was recorded again, RiskPartials(sig-a) = %v, want %v", got, want)
	}
	if got, err = st.RiskPartials(ctx, "sig-b", nil); err != nil || len(got) != 0 {
		t.Errorf("after r2 was recorded again, RiskPartials(sig-b) = %v, %v; want none", got, err)
	}
}
