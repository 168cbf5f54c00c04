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
		{"critical", "--fail-on critical: c (error: function gave NaN for value = 1), d (no_data)" + noDataHint},
		{"high", "--fail-on high: b (high), c (error: function gave NaN for value = 1), d (no_data)" + noDataHint},
		{"low", "--fail-on low: a (low), b (high), c (error: function gave NaN for value = 1), d (no_data)" + noDataHint},
		{"no_data", "--fail-on no_data: c (error: function gave NaN for value = 1), d (no_data)"},
		{"critical allow", "--fail-on critical: c (error: function gave NaN for value = 1)"},
		{"low allow", "--fail-on low: a (low), b (high), c (error: function gave NaN for value = 1)"},
	} {
		level, allow := strings.CutSuffix(tc.level, " allow")
		g, err := ParseGate(level)
		if err != nil {
			t.Fatal(err)
		}
		g.AllowNoData = allow
		got := ""
		if err := g.Check(res); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("gate %q: got %q, want %q", tc.level, got, tc.want)
		}
	}
	if _, err := ParseGate("error"); err == nil || !strings.Contains(err.Error(), "use no_data, low, medium, high or critical") {
		t.Errorf("ParseGate(error) = %v", err)
	}
}

const noDataHint = " (no_data: no value in scope, so the gate cannot see; --allow-no-data or the run file's overview.allow_no_data accepts it)"

// TestGateEmpty: a gate over no risk scorer at all cannot pass, unless no
// data is accepted; an unset gate never trips.
func TestGateEmpty(t *testing.T) {
	g, _ := ParseGate("low")
	if err := g.Check(nil); err == nil || !strings.Contains(err.Error(), "no risk scorer to check") {
		t.Errorf("empty overview under --fail-on low: %v", err)
	}
	g.AllowNoData = true
	if err := g.Check(nil); err != nil {
		t.Errorf("empty overview with AllowNoData: %v", err)
	}
	if err := (Gate{}).Check([]Result{{Key: "d", Level: NoData}}); err != nil {
		t.Errorf("no gate: %v", err)
	}
}
