package output

import (
	"bytes"
	"encoding/json"
	"testing"
)

type ptrMarshaler struct{ N int }

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(`{"n":` + string(rune('0'+p.N)) + `}`), nil
}

type row struct {
	Key   string   `json:"key"`
	Score *float64 `json:"score"`
	Runs  []string `json:"runs"`
	Sub   Fields   `json:"sub,omitempty"`
}

// TestStreamedFieldsAreTheEncodersBytes: the streamed writer gives the
// bytes the encoder gave for the same report, HTML escapes included.
func TestStreamedFieldsAreTheEncodersBytes(t *testing.T) {
	x := 1.5
	for i, f := range []Fields{
		{},
		{{Key: "app", Value: "a<b>&c"}},
		{{Key: "rows", Value: []row{{Key: "q", Score: &x, Runs: []string{"r1", "r2"}}, {Key: "<z>", Runs: []string{}, Sub: Fields{{Key: "k", Value: []int{1}}}}}}},
		{{Key: "empty", Value: []row{}}, {Key: "nil", Value: []row(nil)}, {Key: "null", Value: nil}},
		{{Key: "bytes", Value: []byte("hi")}, {Key: "ptrs", Value: []*row{{Key: "p"}, nil}}},
		{{Key: "marshalers", Value: []ptrMarshaler{{1}, {2}}}, {Key: "map", Value: map[string][]int{"b": {2}, "a": {}}}},
		{{Key: "nested", Value: []Fields{{{Key: "x", Value: []string{"y"}}}, {}}}, {Key: "any", Value: []any{1, "s", []int{}}}},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(f); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := JSON(&got, f); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("case %d: streamed\n%s\nencoder\n%s", i, got.String(), want.String())
		}
	}
}
