package agentleak

import (
	"strings"
	"testing"
)

// TestConfigUnknownKeysFromSchema: the keys a config may carry are the
// schema's, at every level the schema names them (top level, sections,
// each custom detector), and nothing else is looked into; keys AgentLeak
// configs carry without effect in lf are in the schema and pass.
func TestConfigUnknownKeysFromSchema(t *testing.T) {
	_, ds, err := ParseConfig("c.yaml", []byte(`agent: {anything: 1}
scenarios: [{x: 1}]
project: {name: p, description: d, owner: me}
scoring: {conditional_below: 60, level_overrides: {anything_goes: 2}, bonus: 1}
privacy: {store_raw_traces: true, redact_values: true, keep: 1}
custom_detectors:
  - {name: a, pattern: 'a+', description: d}
  - {name: b, pattern: 'b+', colour: red}
`))
	if err != nil {
		t.Fatal(ds)
	}
	var got []string
	for _, d := range ds.Warnings() {
		got = append(got, d.String())
	}
	want := []string{
		`c.yaml:3:36: warning: /project/owner: unknown key "owner" is ignored`,
		`c.yaml:4:71: warning: /scoring/bonus: unknown key "bonus" is ignored`,
		`c.yaml:5:56: warning: /privacy/keep: unknown key "keep" is ignored`,
		`c.yaml:8:30: warning: /custom_detectors/1/colour: unknown key "colour" is ignored`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}
}

// TestRedactValuesFalseWarns: redact_values is accepted but has no effect
// (values are redacted unless --show-values); false says so.
func TestRedactValuesFalseWarns(t *testing.T) {
	_, ds, err := ParseConfig("c.yaml", []byte("privacy: {redact_values: false}\n"))
	if err != nil {
		t.Fatal(ds)
	}
	if len(ds) != 1 || !strings.Contains(ds[0].String(), "c.yaml:1:26: warning: /privacy/redact_values: redact_values: false has no effect") {
		t.Errorf("got %v", ds)
	}
	if _, ds, _ = ParseConfig("c.yaml", []byte("privacy: {redact_values: true}\n")); len(ds) != 0 {
		t.Errorf("true: %v", ds)
	}
}
