package risk

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// evalFn compiles fn with the metric variable value and evaluates it at v.
func evalFn(t *testing.T, fn string, v float64) (float64, error) {
	t.Helper()
	m := &model.Methodology{Key: "m", Function: fn}
	if probs := CheckMethodology(m); len(probs) > 0 {
		t.Fatalf("%s: %v", fn, probs)
	}
	f, err := Compile(m)
	if err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
	ev, err := f.Bind(nil)
	if err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
	return ev.Eval(v)
}

// The expected values are CPython 3's.
func TestFloorDivisionIsPythons(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		v    float64
		want float64
	}{
		{"value // 2 + 100", 0.5, 100},
		{"value // 2 + 100", 7, 103},
		{"7 // -2", 0, -4},
		{"-7 // 2", 0, -4},
		{"-7 // -2", 0, 3},
		{"7.5 // 2", 0, 3},
		{"value // -2", 7.5, -4},
		{"1 // 0.1", 0, 9},
		{"value//2*3", 7, 9},      // same precedence as * and /, left to right
		{"2 ** 3 // 3", 0, 2},     // ** binds tighter
		{"-value // 2", 1, -1},    // unary minus binds tighter
		{"10 - value // 4", 9, 8}, // // binds tighter than -
		{"1 if value // 2 > 1 else 0", 5, 1},
		{"(value // 2) // 2", 9, 2},
		{"abs(value // -3)", 4, 2},
		{"7 % -2", 0, -1},
		{"-7 % 2", 0, 1},
		{"-1 % 3", 0, 2},
		{"7.5 % 2", 0, 1.5},
		{"1 % 0.1", 0, 0.09999999999999995},
		{"value / 2", 1, 0.5},
	} {
		got, err := evalFn(t, tc.fn, tc.v)
		if err != nil || got != tc.want {
			t.Errorf("%s with value = %v: got %v, %v; want %v", tc.fn, tc.v, got, err, tc.want)
		}
	}
}

func TestFloorDivisionInStringsIsText(t *testing.T) {
	// A // inside a string literal is not an operator; an `if` test on a
	// string parameter keeps its text.
	m := &model.Methodology{Key: "m", Function: `value * (2 if mode == "a//b" else 3)`, ConfigSpec: []model.Param{{Key: "mode", Type: model.ParamString, DefaultValue: "a//b"}}}
	if probs := CheckMethodology(m); len(probs) > 0 {
		t.Fatal(probs)
	}
	f, _ := Compile(m)
	for mode, want := range map[string]float64{"a//b": 2, "a/ b": 3} {
		ev, err := f.Bind(map[string]any{"mode": mode})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ev.Eval(1); err != nil || got != want {
			t.Errorf("mode %q: got %v, %v; want %v", mode, got, err, want)
		}
	}
}

func TestDivisionByZeroIsAnError(t *testing.T) {
	for _, fn := range []string{"value // 0", "value % 0"} {
		if got, err := evalFn(t, fn, 1); err == nil || !strings.Contains(err.Error(), "by zero") {
			t.Errorf("%s = %v, %v; want a division by zero error", fn, got, err)
		}
	}
}

func TestCommentsAreLocatedErrors(t *testing.T) {
	for _, tc := range []struct{ fn, want string }{
		{"value /* x */ + 1", `"/*" at column 7 of the function`},
		{"value # x", `"#" at column 7`},
		{"value +\n  2 /* x */", `"/*" at line 2, column 5`},
		{`"é" == "x" ? value : 1 /* x */`, `at column 24`},
	} {
		m := &model.Methodology{Key: "m", Function: tc.fn}
		probs := CheckMethodology(m)
		if len(probs) != 1 || probs[0].Pointer != "/function" || !strings.Contains(probs[0].Msg, tc.want) || !strings.Contains(probs[0].Msg, "comments are not allowed") {
			t.Errorf("%q: %v; want one problem at /function containing %q", tc.fn, probs, tc.want)
		}
		var ce *CommentError
		if _, err := Compile(m); !errors.As(err, &ce) {
			t.Errorf("%q: Compile gave %v, want a CommentError", tc.fn, err)
		}
	}
	// Not comments: inside strings.
	m := &model.Methodology{Key: "m", Function: `mode == "/* # */" ? value : 0`, ConfigSpec: []model.Param{{Key: "mode", Type: model.ParamString, DefaultValue: "x"}}}
	if probs := CheckMethodology(m); len(probs) > 0 {
		t.Errorf("a comment marker inside a string: %v", probs)
	}
}

func TestRoundIsPythons(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		want float64
	}{
		{"round(0.5)", 0},
		{"round(1.5)", 2},
		{"round(2.5)", 2},
		{"round(-0.5)", 0},
		{"round(-1.5)", -2},
		{"round(2.675, 2)", 2.67}, // 2.675 is stored as 2.67499999...
		{"round(0.125, 2)", 0.12}, // exact tie: to even
		{"round(0.375, 2)", 0.38},
		{"round(1250, -2)", 1200},
		{"round(1350, -2)", 1400},
		{"round(value, 1)", 0.5},
		{"round(2.5, 0)", 2},
		{"round(1e300, 400)", 1e300},
		{"round(123.456, -400)", 0},
	} {
		got, err := evalFn(t, tc.fn, 0.5)
		if err != nil || got != tc.want {
			t.Errorf("%s = %v, %v; want %v", tc.fn, got, err, tc.want)
		}
	}
	if _, err := evalFn(t, "round(value, 0.5)", 1); err == nil {
		t.Error("round(value, 0.5): no error, want one (ndigits must be whole)")
	}
}

func TestPyDivmodSpecialValues(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct{ x, y, div, mod float64 }{
		{7, inf, 0, 7},
		{-7, inf, -1, inf},
	} {
		d, m, err := pyDivmod(tc.x, tc.y)
		if err != nil || d != tc.div || m != tc.mod {
			t.Errorf("divmod(%v, %v) = %v, %v, %v; want %v, %v", tc.x, tc.y, d, m, err, tc.div, tc.mod)
		}
	}
	if d, _, _ := pyDivmod(-0.5, 2); !math.Signbit(d) || d != -1 {
		t.Errorf("-0.5 // 2 = %v, want -1", d)
	}
}
