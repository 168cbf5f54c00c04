package risk

import (
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

func TestPythonLikeFunctions(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		want float64
	}{
		{"value ** 2", 0.25},
		{"abs(value - 1)", 0.5},
		{"min(value, 0.2) + max(value, 2)", 2.2},
		{"round(value * 10)", 5},
		{"sqrt(value * 2) * 3", 3},
		{"(value > 0.3 and True) ? 1 : 0", 1},
		{"not (value < 0.3) ? 2 : 0", 2},
		{"pow(2, 3) - value % 0.3", 7.8},
		{"1 if value > 0.3 else 0", 1},
		{"(2 if value > 0.9 else 3) * 2", 6},
		{"1 if value > 0.9 else 2 if value > 0.4 else 3", 2},
		{"max(1 if value < 0 else 4, 2)", 4},
		{"value * 10 if True else 0", 5},
	} {
		m := &model.Methodology{Key: "m", Function: tc.fn}
		if probs := CheckMethodology(m); len(probs) > 0 {
			t.Errorf("%s: %v", tc.fn, probs)
			continue
		}
		f, _ := Compile(m)
		ev, err := f.Bind(nil)
		if err != nil {
			t.Errorf("%s: %v", tc.fn, err)
			continue
		}
		got, err := ev.Eval(0.5)
		if err != nil || abs(got-tc.want) > 1e-9 {
			t.Errorf("%s = %v, %v; want %v", tc.fn, got, err, tc.want)
		}
	}
}

func FuzzPythonish(f *testing.F) {
	for _, s := range []string{"1 if value > 0.3 else 0", "max(1 if a else 2, (b if c else d))", "'if' if x else \"else\"", "(((", "a if"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = pythonish(s)
		_, _ = Variables(s)
	})
}
