package agentleak

import (
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/detect"
)

// TestDefaultsFromSchema: the defaults of an AgentLeak config are the
// default: values of schemas/agentleak-config.schema.json, and they are
// AgentLeak's documented ones: every detector on, fail below 40, block on
// critical, weights 1-4; custom detectors medium at 0.8.
func TestDefaultsFromSchema(t *testing.T) {
	want := &Config{Detectors: map[string]bool{}, Scoring: Scoring{FailBelow: 40, BlockOnCritical: true, Weights: [4]float64{1, 2, 3, 4}}}
	for _, f := range Families {
		want.Detectors[f] = true
	}
	if got := DefaultConfig(); !reflect.DeepEqual(got, want) {
		t.Errorf("defaults\n got %+v\nwant %+v", got, want)
	}
	empty, ds, err := ParseConfig("empty.yaml", nil)
	if err != nil {
		t.Fatal(ds)
	}
	if got := DefaultConfig(); !reflect.DeepEqual(got, empty) {
		t.Errorf("DefaultConfig is not the schema's defaults (an empty file)\n got %+v\nwant %+v", got, empty)
	}
	a := DefaultConfig()
	a.Detectors["pii"] = false
	if !DefaultConfig().Detectors["pii"] {
		t.Error("defaults shared between configs")
	}
	c, ds, err := ParseConfig("c.yaml", []byte("detectors: {hr: false}\nscoring: {fail_below: 10}\ncustom_detectors: [{name: x, pattern: 'x+'}]\n"))
	if err != nil {
		t.Fatal(ds)
	}
	if c.Detectors["hr"] || !c.Detectors["pii"] || c.Scoring.FailBelow != 10 || !c.Scoring.BlockOnCritical || c.Scoring.Weights != want.Scoring.Weights {
		t.Errorf("partial config: %+v", c)
	}
	if d := c.Custom[0]; d.Severity != "medium" || d.Confidence != 0.8 || d.DataType != "x" || d.Level != detect.LevelForSeverity("medium") {
		t.Errorf("custom detector defaults: %+v", d)
	}
}
