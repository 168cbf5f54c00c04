package runbatch

import (
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// TestHeldEachInKeyOrder: metrics by name, each metric's rows by task then
// scorer, every value once; Reset forgets them.
func TestHeldEachInKeyOrder(t *testing.T) {
	var h Held
	h.Add([]model.Result{
		{TaskSpecificationKey: "t2", ScorerKey: "s", Metrics: map[string]float64{"b": 1, "a": 2}},
		{TaskSpecificationKey: "t1", ScorerKey: "z", Metrics: map[string]float64{"b": 3}},
	})
	h.Add([]model.Result{{TaskSpecificationKey: "t1", ScorerKey: "s", Metrics: map[string]float64{"b": 4, "c": 5}}})
	type got struct {
		metric string
		rows   []Row
	}
	var all []got
	if err := h.Each(func(m string, rows []Row) error {
		all = append(all, got{m, append([]Row(nil), rows...)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []got{
		{"a", []Row{{"t2", "s", 2}}},
		{"b", []Row{{"t1", "s", 4}, {"t1", "z", 3}, {"t2", "s", 1}}},
		{"c", []Row{{"t1", "s", 5}}},
	}
	if !reflect.DeepEqual(all, want) || h.Len() != 5 {
		t.Fatalf("Each gave %v (%d held), want %v", all, h.Len(), want)
	}
	h.Reset()
	if err := h.Each(func(m string, rows []Row) error { t.Fatalf("after Reset: %s %v", m, rows); return nil }); err != nil || h.Len() != 0 {
		t.Fatal(err)
	}
}
