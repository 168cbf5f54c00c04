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
