package output

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
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

// TestAppendIndentedIsJSONIndent: the one-pass indenter gives json.Indent's
// bytes for what json.Marshal writes (escapes, empty containers, nesting,
// prefixes), on fixed and on random values.
func TestAppendIndentedIsJSONIndent(t *testing.T) {
	values := []any{
		nil, 1.5, "plain", `quote " and \ back\slash`, "<html> & \u2028 \x01 \"\\\"", true,
		[]any{},
		map[string]any{},
		[]any{[]any{}, map[string]any{}, []any{[]any{1}}},
		map[string]any{"a:b": "c,d", "{": "[", "e": []any{"]", "}"}, "f": map[string]any{"g": nil}},
		row{Key: `k"ey`, Runs: []string{"a,b", `c\"d`}, Sub: Fields{{Key: "x", Value: []int{}}}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		values = append(values, randomJSON(r, 4))
	}
	for i, v := range values {
		src, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, prefix := range []string{"", "  ", "\t-"} {
			var want bytes.Buffer
			if err := json.Indent(&want, src, prefix, "  "); err != nil {
				t.Fatal(err)
			}
			if got := appendIndented([]byte("x"), src, prefix, "  "); string(got) != "x"+want.String() {
				t.Fatalf("value %d, prefix %q:\n%s\njson.Indent:\n%s", i, prefix, got[1:], want.String())
			}
		}
	}
}

// randomJSON is a random value of nested arrays, objects, strings (with
// characters JSON escapes) and numbers, depth levels deep at most.
func randomJSON(r *rand.Rand, depth int) any {
	const chars = `ab"\,:{}[] <>&é` + "\n\t\x00"
	str := func() string {
		b := []rune{}
		for range r.IntN(6) {
			b = append(b, []rune(chars)[r.IntN(len([]rune(chars)))])
		}
		return string(b)
	}
	switch k := r.IntN(6); {
	case depth == 0 || k == 0:
		return str()
	case k == 1:
		return r.Float64() * 100
	case k == 2:
		return nil
	case k == 3:
		a := []any{}
		for range r.IntN(4) {
			a = append(a, randomJSON(r, depth-1))
		}
		return a
	default:
		m := map[string]any{}
		for range r.IntN(4) {
			m[str()] = randomJSON(r, depth-1)
		}
		return m
	}
}
