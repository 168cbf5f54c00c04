package sqlstore

import (
	"errors"
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// fakeRows serves fixed rows the way both drivers do.
type fakeRows struct {
	rows   [][]any
	i      int
	closed bool
}

func (f *fakeRows) Next() bool { f.i++; return f.i <= len(f.rows) }
func (f *fakeRows) Err() error { return nil }
func (f *fakeRows) Close()     { f.closed = true }

func (f *fakeRows) Scan(dest ...any) error {
	for j, d := range dest {
		reflect.ValueOf(d).Elem().Set(reflect.ValueOf(f.rows[f.i-1][j]))
	}
	return nil
}

func TestRunGroupsResults(t *testing.T) {
	rows := &fakeRows{rows: [][]any{
		{"t1", "s1", "acc", 0.5}, {"t1", "s1", "f1", 0.25}, {"t1", "s2", "acc", 1.0}, {"t2", "s1", "acc", 0.0},
	}}
	run, err := Run(`{"evaluation_key":"e","id":"r1"}`, "e", "r1", rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != 3 || run.Results[0].Metrics["f1"] != 0.25 || run.Results[1].ScorerKey != "s2" || run.Results[2].TaskSpecificationKey != "t2" {
		t.Fatalf("results: %+v", run.Results)
	}
	if _, err := Run(`{`, "e", "r1", &fakeRows{}); err == nil {
		t.Fatal("bad body: no error")
	}
}

func TestScanClosesAndPassesErrors(t *testing.T) {
	rows := &fakeRows{rows: [][]any{{"a", "x"}, {"b", "y"}}}
	got, err := TenantBodies(rows, nil)
	if err != nil || len(got) != 2 || got[1] != (backend.TenantBody{TenantID: "b", Body: "y"}) || !rows.closed {
		t.Fatalf("got %v %v closed=%v", got, err, rows.closed)
	}
	boom := errors.New("boom")
	if _, err := Strings(nil, boom); !errors.Is(err, boom) {
		t.Fatalf("query error lost: %v", err)
	}
}

func TestApps(t *testing.T) {
	got := Apps([]KindCount{{"b", string(model.KindMethodology), 2}, {"a", string(model.KindRiskScorer), 1}, {"c", "Other", 3}}, []RunCount{{"a", 4, "2026"}})
	want := []backend.AppInfo{{App: "a", RiskScorers: 1, Runs: 4, LatestRunAt: "2026"}, {App: "b", Methodologies: 2}, {App: "c"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}
