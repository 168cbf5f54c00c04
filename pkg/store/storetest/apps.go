package storetest

import (
	"errors"
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// testApps checks that two apps in one store never see each other's
// entities, runs or latest runs, that Apps counts them, and that RenameApp
// moves an app whole and refuses to merge into an app that holds rows.
func testApps(t *testing.T, st backend.Backend) {
	if st.App() != backend.NoApp {
		t.Fatalf("a fresh handle has app %q, want %q", st.App(), backend.NoApp)
	}
	a, b := st.ForApp("app-a"), st.ForApp("app-b")
	if a.App() != "app-a" || b.App() != "app-b" {
		t.Fatalf("apps = %q, %q", a.App(), b.App())
	}
	fillApps(t, a, b)

	checkAppsApart(t, st, a, b)
	checkAppDelete(t, a, b)

	apps, err := st.Apps(ctx)
	must(t, err)
	if len(apps) != 2 || apps[0].App != "app-a" || apps[0].Runs != 1 || apps[0].RiskScorers != 0 ||
		apps[1].App != "app-b" || apps[1].Runs != 3 || apps[1].RiskScorers != 1 || apps[1].LatestRunAt == "" {
		t.Fatalf("apps = %+v", apps)
	}
	for app, want := range map[string]bool{"app-a": true, "app-b": true, "app-c": false, backend.NoApp: false} {
		if got, err := st.HasApp(ctx, app); err != nil || got != want {
			t.Fatalf("HasApp(%q) = %v, %v; want %v", app, got, err, want)
		}
	}

	checkRenameApp(t, st)
}

// fillApps stores in a and b a scorer each (same key, different metric) and
// runs: qa/r1 in both, qa/r2 and other/f in b, scan/s in a.
func fillApps(t *testing.T, a, b backend.Backend) {
	scorer := func(fn string) backend.Entity {
		return backend.Entity{Kind: model.KindRiskScorer, Key: "quality_external", Body: `{"key":"quality_external","metric":"` + fn + `"}`, YAML: "- key: quality_external\n"}
	}
	for _, c := range []struct {
		st backend.Backend
		fn string
	}{{a, "value"}, {b, "1-value"}} {
		must(t, c.st.Update(ctx, func(tx backend.Tx) error {
			o, err := tx.PutEntity(ctx, scorer(c.fn))
			if err == nil && o != backend.Created {
				t.Errorf("app %s: put = %s, want created", c.st.App(), o)
			}
			return err
		}))
	}
	must(t, a.RecordRun(ctx, run("qa", "r1", 1, model.StatusCompleted, 0.1)))
	must(t, b.RecordRun(ctx, run("qa", "r1", 2, model.StatusCompleted, 0.2)))
	must(t, b.RecordRun(ctx, run("qa", "r2", 3, model.StatusCompleted, 0.3)))
	must(t, b.Update(ctx, func(tx backend.Tx) error {
		_, err := tx.PutRunYAML(ctx, run("other", "f", 4, model.StatusCompleted, 0.4), "y")
		return err
	}))
	w, err := a.BeginRun(ctx, run("scan", "s", 5, "", 0))
	must(t, err)
	must(t, w.Add(ctx, model.Result{TaskSpecificationKey: "t", ScorerKey: "s", Metrics: map[string]float64{"x": 1}}))
	must(t, w.Finish(ctx, model.StatusCompleted))
}

// checkAppsApart checks that a and b each see only their own scorers, latest
// runs, values and runs, and the NoApp handle st none.
func checkAppsApart(t *testing.T, st, a, b backend.Backend) {
	sa, err := a.RiskScorers(ctx)
	must(t, err)
	sb, err := b.RiskScorers(ctx)
	must(t, err)
	if len(sa) != 1 || sa[0].Metric != "value" || len(sb) != 1 || sb[0].Metric != "1-value" {
		t.Fatalf("scorers: a %+v, b %+v", sa, sb)
	}
	if none, _ := st.RiskScorers(ctx); len(none) != 0 {
		t.Fatalf("the NoApp handle sees %d scorers", len(none))
	}
	checkRiskScorersOf(t, st, a)
	la, _ := a.LatestRuns(ctx, nil)
	lb, _ := b.LatestRuns(ctx, nil)
	if want := []model.RunRef{{EvaluationKey: "qa", ID: "r1"}, {EvaluationKey: "scan", ID: "s"}}; !reflect.DeepEqual(la, want) {
		t.Fatalf("latest of a = %v, want %v", la, want)
	}
	if want := []model.RunRef{{EvaluationKey: "other", ID: "f"}, {EvaluationKey: "qa", ID: "r2"}}; !reflect.DeepEqual(lb, want) {
		t.Fatalf("latest of b = %v, want %v", lb, want)
	}
	if v, _ := a.Values(ctx, model.RunRef{EvaluationKey: "qa", ID: "r1"}, "accuracy"); len(v) != 1 || v[0].Value != 0.1 {
		t.Fatalf("values of a's qa/r1 = %v", v)
	}
	if r, _ := a.Run(ctx, "qa", "r2"); r != nil {
		t.Fatalf("a reads b's run qa/r2")
	}
}

// checkAppDelete checks that deleting in a leaves b alone.
func checkAppDelete(t *testing.T, a, b backend.Backend) {
	must(t, a.Update(ctx, func(tx backend.Tx) error {
		if _, err := tx.DeleteEntity(ctx, model.KindRiskScorer, "quality_external"); err != nil {
			return err
		}
		return tx.DeleteRun(ctx, "qa", "r1")
	}))
	if sb, _ := b.RiskScorers(ctx); len(sb) != 1 {
		t.Fatalf("deleting a's scorer removed b's")
	}
	if r, _ := b.Run(ctx, "qa", "r1"); r == nil || len(r.Results) != 1 {
		t.Fatalf("deleting a's run removed b's: %+v", r)
	}
}

// checkRenameApp checks that RenameApp refuses to merge into an app with
// rows, moves an app whole, and moves nothing for an empty app.
func checkRenameApp(t *testing.T, st backend.Backend) {
	if _, err := st.RenameApp(ctx, "app-a", "app-b"); !errors.Is(err, backend.ErrAppExists) {
		t.Fatalf("renaming onto an app with rows: %v, want ErrAppExists", err)
	}
	moved, err := st.RenameApp(ctx, "app-b", "app-c")
	must(t, err)
	if !moved {
		t.Fatal("rename moved nothing")
	}
	c := st.ForApp("app-c")
	if sc, _ := c.RiskScorers(ctx); len(sc) != 1 || sc[0].Metric != "1-value" {
		t.Fatalf("renamed app's scorers = %+v", sc)
	}
	if lc, _ := c.LatestRuns(ctx, []string{"qa"}); len(lc) != 1 || lc[0].ID != "r2" {
		t.Fatalf("renamed app's latest = %v", lc)
	}
	if v, _ := c.Values(ctx, model.RunRef{EvaluationKey: "qa", ID: "r2"}, "accuracy"); len(v) != 1 {
		t.Fatalf("renamed app's values = %v", v)
	}
	if moved, err := st.RenameApp(ctx, "app-b", "app-d"); err != nil || moved {
		t.Fatalf("renaming an empty app: moved %v, %v", moved, err)
	}
}

// checkRiskScorersOf checks that RiskScorersOf reads the handle's app's
// scorers of the keys asked, sorted by key, once each, and no other.
func checkRiskScorersOf(t *testing.T, st, a backend.Backend) {
	must(t, a.Update(ctx, func(tx backend.Tx) error {
		for _, k := range []string{"z_other", "a_first"} {
			if _, err := tx.PutEntity(ctx, backend.Entity{Kind: model.KindRiskScorer, Key: k, Body: `{"key":"` + k + `","metric":"` + k + `"}`}); err != nil {
				return err
			}
		}
		return nil
	}))
	got, err := a.RiskScorersOf(ctx, []string{"quality_external", "missing", "a_first", "quality_external"})
	must(t, err)
	var keys []string
	for _, s := range got {
		keys = append(keys, s.Key+"/"+s.Metric)
	}
	if want := []string{"a_first/a_first", "quality_external/value"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("RiskScorersOf = %v, want %v", keys, want)
	}
	if none, err := st.RiskScorersOf(ctx, []string{"quality_external"}); err != nil || len(none) != 0 {
		t.Fatalf("the NoApp handle's RiskScorersOf = %v, %v", none, err)
	}
	must(t, a.Update(ctx, func(tx backend.Tx) error {
		for _, k := range []string{"z_other", "a_first"} {
			if _, err := tx.DeleteEntity(ctx, model.KindRiskScorer, k); err != nil {
				return err
			}
		}
		return nil
	}))
}
