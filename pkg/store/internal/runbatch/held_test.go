package runbatch

import (
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// TestHeldBlockInKeyOrder: a block gives every held value once, by task,
// scorer and metric; Reset forgets them.
func TestHeldBlockInKeyOrder(t *testing.T) {
	var h Held
	h.Add([]model.Result{
		{TaskSpecificationKey: "t2", ScorerKey: "s", Metrics: map[string]float64{"b": 1, "a": 2}},
		{TaskSpecificationKey: "t1", ScorerKey: "z", Metrics: map[string]float64{"b": 3}},
	})
	h.Add([]model.Result{{TaskSpecificationKey: "t1", ScorerKey: "s", Metrics: map[string]float64{"b": 4, "c": 5}}})
	blk, n, err := h.Block(false)
	if err != nil || n != 5 || h.Len() != 5 {
		t.Fatalf("Block: %d values (%d held), %v", n, h.Len(), err)
	}
	got, err := AppendValues(nil, [][]byte{blk})
	want := []Value{{"t1", "s", "b", 4}, {"t1", "s", "c", 5}, {"t1", "z", "b", 3}, {"t2", "s", "a", 2}, {"t2", "s", "b", 1}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("block holds %v, %v; want %v", got, err, want)
	}
	h.Reset()
	if blk, n, err := h.Block(false); err != nil || n != 0 || h.Len() != 0 {
		t.Fatalf("after Reset: %d values, %v", n, err)
	} else if got, err := AppendValues(nil, [][]byte{blk}); err != nil || len(got) != 0 {
		t.Fatalf("empty block holds %v, %v", got, err)
	}
}
