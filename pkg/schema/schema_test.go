package schema

import (
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/yamlsrc"
)

func TestValidateLocatesProblems(t *testing.T) {
	src := `risk_scorers:
  - key: "bad key"
    display_name: X
    domain: d
    risk_scoring_methodology_key: m
    scope: {evaluation_keys: [e], colour: red}
    aggregation: median
    metric: accuracy
    extra: 1
  - key: ok
    display_name: Y
    domain: d
    risk_scoring_methodology_key: m
    scope: everything
    aggregation: max
`
	doc, diags := yamlsrc.Parse("p.yaml", []byte(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	got := Validate("project", doc)
	var lines []string
	for _, d := range got {
		lines = append(lines, d.String())
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{
		`p.yaml:2:10: /risk_scorers/0/key: "bad key" is not a valid key`,
		`p.yaml:6:35: /risk_scorers/0/scope/colour: unknown field "colour"`,
		`p.yaml:7:18: /risk_scorers/0/aggregation: value must be one of "mean", "max", "min"`,
		`p.yaml:9:5: /risk_scorers/0/extra: unknown field "extra"`,
		`p.yaml:10:5: /risk_scorers/1: missing required field "metric"`,
		`p.yaml:14:12: /risk_scorers/1/scope: must be "all_latest" or object`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in\n%s", want, all)
		}
	}
}

func TestAllSchemasCompile(t *testing.T) {
	for _, n := range Names() {
		if _, err := Compile(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}
