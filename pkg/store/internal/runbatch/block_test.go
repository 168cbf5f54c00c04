package runbatch

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// TestBlockRoundTrip: the values of a block come back in the order rows of
// metric_values would give them, float bits intact, a pair of task and
// scorer given twice with other metrics merged.
func TestBlockRoundTrip(t *testing.T) {
	var h Held
	h.Add([]model.Result{
		{TaskSpecificationKey: "t2", ScorerKey: "s", Metrics: map[string]float64{"b": 1, "a": math.Inf(-1)}},
		{TaskSpecificationKey: "t1", ScorerKey: "z", Metrics: map[string]float64{"b": 3}},
		{TaskSpecificationKey: "t1", ScorerKey: "s", Metrics: map[string]float64{"b": 4, "c": 0.1 + 0.2}},
		{TaskSpecificationKey: "t2", ScorerKey: "s", Metrics: map[string]float64{"c": math.Copysign(0, -1)}},
	})
	blk, n, err := h.Block(false)
	if err != nil || n != 6 {
		t.Fatalf("Block: %d values, %v", n, err)
	}
	got, err := AppendMetricValues(nil, [][]byte{blk}, "b")
	want := []model.MetricValue{mv("t1", "s", 4), mv("t1", "z", 3), mv("t2", "s", 1)}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("values of b = %v, %v; want %v", got, err, want)
	}
	if got, err := AppendMetricValues(nil, [][]byte{blk}, "none"); err != nil || len(got) != 0 {
		t.Fatalf("values of an absent metric = %v, %v", got, err)
	}
	all, err := AppendValues(nil, [][]byte{blk})
	wantAll := []Value{
		{"t1", "s", "b", 4},
		{"t1", "s", "c", 0.1 + 0.2},
		{"t1", "z", "b", 3},
		{"t2", "s", "a", math.Inf(-1)},
		{"t2", "s", "b", 1},
		{"t2", "s", "c", 0},
	}
	if err != nil || !reflect.DeepEqual(all, wantAll) || !math.Signbit(all[5].Value) {
		t.Fatalf("all values = %v, %v; want %v", all, err, wantAll)
	}
	for cut := 0; cut < len(blk); cut++ {
		if _, err := AppendValues(nil, [][]byte{blk[:cut]}); err == nil {
			t.Fatalf("a block cut at %d of %d bytes was read", cut, len(blk))
		}
	}
}

// TestBlockDuplicates: a task, scorer and metric given twice is refused in
// a block, and a pair of task and scorer of an earlier block of the run in a
// later one; blocks of one run read back together in key order.
func TestBlockDuplicates(t *testing.T) {
	var h Held
	h.Add([]model.Result{
		{TaskSpecificationKey: "t1", ScorerKey: "s", Metrics: map[string]float64{"b": 1}},
		{TaskSpecificationKey: "t1", ScorerKey: "s", Metrics: map[string]float64{"b": 2}},
	})
	if _, _, err := h.Block(false); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate in a block: %v", err)
	}
	h = Held{}
	h.Add([]model.Result{{TaskSpecificationKey: "t3", ScorerKey: "s", Metrics: map[string]float64{"b": 1}}})
	first, _, err := h.Block(true)
	if err != nil {
		t.Fatal(err)
	}
	h.Reset()
	h.Add([]model.Result{{TaskSpecificationKey: "t1", ScorerKey: "s", Metrics: map[string]float64{"b": 2}}})
	second, _, err := h.Block(false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := AppendMetricValues([]model.MetricValue{mv("t2", "s", 9)}, [][]byte{first, second}, "b")
	if want := []model.MetricValue{mv("t1", "s", 2), mv("t2", "s", 9), mv("t3", "s", 1)}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("values of two blocks = %v, %v; want %v", got, err, want)
	}
	h.Reset()
	h.Add([]model.Result{{TaskSpecificationKey: "t3", ScorerKey: "s", Metrics: map[string]float64{"c": 2}}})
	if _, _, err := h.Block(false); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("a pair of an earlier block: %v", err)
	}
}

func mv(task, scorer string, v float64) model.MetricValue {
	return model.MetricValue{TaskSpecificationKey: task, ScorerKey: scorer, Value: v}
}

// TestBlockValueBits: whole numbers go as varints, the rest as float64
// bits, and every value reads back with the same bits.
func TestBlockValueBits(t *testing.T) {
	vals := []float64{0, 1, 7, math.MaxInt32, math.MaxInt32 + 1, -1, math.Copysign(0, -1), 0.5, 1e300, math.Inf(1), math.SmallestNonzeroFloat64}
	var h Held
	for i, v := range vals {
		h.Add([]model.Result{{TaskSpecificationKey: fmt.Sprintf("t%02d", i), ScorerKey: "s", Metrics: map[string]float64{"m": v}}})
	}
	blk, _, err := h.Block(false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := AppendMetricValues(nil, [][]byte{blk}, "m")
	if err != nil || len(got) != len(vals) {
		t.Fatalf("%d values, %v", len(got), err)
	}
	for i, v := range vals {
		if math.Float64bits(got[i].Value) != math.Float64bits(v) {
			t.Errorf("value %d: %v read back as %v", i, v, got[i].Value)
		}
	}
}
