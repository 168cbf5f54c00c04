package risk

import "testing"

// TestRiseGate checks each kind of change and what fails the gate.
func TestRiseGate(t *testing.T) {
	base := &Baseline{From: "main.json", Entries: map[string]BaselineEntry{
		"rose": {Level: Low, Score: fptr(1)}, "fell": {Level: High}, "same": {Level: Medium},
		"blind": {Level: Low}, "nodata_then": {Level: NoData}, "broke": {Level: Low},
	}}
	res := []Result{
		{Key: "rose", Level: High, Score: fptr(5)},
		{Key: "fell", Level: Low},
		{Key: "same", Level: Medium},
		{Key: "blind", Level: NoData},
		{Key: "nodata_then", Level: Critical},
		{Key: "broke", Level: Failed, Error: "boom"},
		{Key: "added", Level: Low},
	}
	want := map[string]string{
		"rose": ChangeRose, "fell": ChangeFell, "same": ChangeSame, "blind": ChangeBlind,
		"nodata_then": ChangeNew, "broke": ChangeFailed, "added": ChangeNew,
	}
	g := RiseGate{Baseline: base, Fail: true}
	failing := map[string]bool{}
	for _, c := range g.Compare(res) {
		if c.Kind != want[c.Key] {
			t.Errorf("%s: change %s, want %s", c.Key, c.Kind, want[c.Key])
		}
		failing[c.Key] = g.Fails(c)
	}
	for k, f := range map[string]bool{"rose": true, "blind": true, "broke": true, "fell": false, "same": false, "added": false, "nodata_then": false} {
		if failing[k] != f {
			t.Errorf("%s fails = %v, want %v", k, failing[k], f)
		}
	}
	g.FailOnNew = true
	if len(g.Tripped(res)) != 5 {
		t.Errorf("with FailOnNew: %v", g.Tripped(res))
	}
	if (RiseGate{Baseline: base}).Check(res) != nil {
		t.Error("a gate that only reports failed")
	}
	if got := g.Describe(g.Compare(res[:1])[0]); got != "rose from low (1.00) to high (5.00) since main.json" {
		t.Errorf("describe: %q", got)
	}
}
