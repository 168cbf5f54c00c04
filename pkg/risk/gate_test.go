package risk

import (
	"strings"
	"testing"
)

func TestGate(t *testing.T) {
	res := []Result{
		{Key: "a", Level: Low},
		{Key: "b", Level: High},
		{Key: "c", Level: Failed, Error: "function gave NaN for value = 1"},
		{Key: "d", Level: NoData},
	}
	for _, tc := range []struct {
		level string
		want  string
	}{
		{"", ""},
		{"critical", "--fail-on critical: c (error: function gave NaN for value = 1)"},
		{"high", "--fail-on high: b (high), c (error: function gave NaN for value = 1)"},
		{"low", "--fail-on low: a (low), b (high), c (error: function gave NaN for value = 1)"},
	} {
		g, err := ParseGate(tc.level)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := g.Check(res); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("gate %q: got %q, want %q", tc.level, got, tc.want)
		}
	}
	if _, err := ParseGate("error"); err == nil || !strings.Contains(err.Error(), "use low, medium, high or critical") {
		t.Errorf("ParseGate(error) = %v", err)
	}
}
