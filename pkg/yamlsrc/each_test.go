package yamlsrc

import (
	"reflect"
	"strconv"
	"testing"
)

// TestParseEach: the hook gets every item of the top-level list, in order,
// as Parse reads it; the list keeps what the hook returns; positions are
// those of the file. A file the fast reader gives up on is read whole.
func TestParseEach(t *testing.T) {
	for _, c := range []struct {
		name     string
		data     []byte
		streamed bool
		items    int // handed to the hook
	}{
		{"block", generatedRuns(30), true, 30},
		{"flow", generatedFlowRuns(30), true, 30},
		{"around", append(append([]byte("a: 1\n"), generatedFlowRuns(3)...), "z:\n  evaluation_runs:\n    - 1\n"...), true, 3},
		{"same column", []byte("evaluation_runs:\n- x: 1\n- 2\nb: [1]\n"), true, 2},
		{"nested only", []byte("a:\n  evaluation_runs:\n    - 1\n"), true, 0},
		{"flow list", []byte("evaluation_runs: [1, 2]\n"), true, 0},
		{"comment at the end", append(generatedRuns(3), "# end\n"...), false, 0},
		{"gives up after some items", append(generatedRuns(3), "b: {x: 1,\n  y: 2}\n"...), false, 0},
	} {
		whole, wds := Parse(c.name, c.data)
		var got []any
		doc, ds, streamed := ParseEach(c.name, c.data, "evaluation_runs", func(i int, v any) any {
			if i != len(got) {
				t.Errorf("%s: item %d handed as %d", c.name, len(got), i)
			}
			got = append(got, v)
			return i
		})
		if streamed != c.streamed || !reflect.DeepEqual(ds, wds) {
			t.Errorf("%s: streamed %v (want %v), problems %v (want %v)", c.name, streamed, c.streamed, ds, wds)
			continue
		}
		if !streamed {
			if !reflect.DeepEqual(doc.Value, whole.Value) {
				t.Errorf("%s: not streamed, but the values differ from Parse's", c.name)
			}
			continue
		}
		if len(got) != c.items {
			t.Fatalf("%s: %d items handed, want %d", c.name, len(got), c.items)
		}
		want, _ := whole.Get("/evaluation_runs")
		if c.items > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: items differ from Parse's:\n%#v\n%#v", c.name, got, want)
		}
		for i := range got {
			if v, _ := doc.Get("/evaluation_runs/" + strconv.Itoa(i)); v != i {
				t.Errorf("%s: item %d holds %v, not what the hook returned", c.name, i, v)
			}
		}
		doc.lazy()
		whole.lazy()
		if !reflect.DeepEqual(doc.pos, whole.pos) || !reflect.DeepEqual(doc.keyPos, whole.keyPos) || !reflect.DeepEqual(doc.order, whole.order) {
			t.Errorf("%s: positions differ from Parse's", c.name)
		}
	}
}
