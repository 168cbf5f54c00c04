package project

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// TestSchemaAndGoTypesAgree: every property of an entity's schema is a
// field of its Go type and the reverse, so a field added to one and not the
// other fails here (and its key order, read from the schema, is known).
func TestSchemaAndGoTypesAgree(t *testing.T) {
	for _, c := range []struct {
		name  string
		typ   any
		order []string
	}{
		{"methodology", model.Methodology{}, methodologyOrder},
		{"param", model.Param{}, paramOrder},
		{"risk scorer", model.RiskScorer{}, scorerOrder},
		{"scope", model.Scope{}, scopeOrder},
		{"evaluation run", model.EvaluationRun{}, runOrder},
		{"result", model.Result{}, resultOrder},
	} {
		var fields []string
		rt := reflect.TypeOf(c.typ)
		for i := 0; i < rt.NumField(); i++ {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				fields = append(fields, name)
			}
		}
		schema := append([]string(nil), c.order...)
		sort.Strings(fields)
		sort.Strings(schema)
		if !reflect.DeepEqual(fields, schema) {
			t.Errorf("%s: Go fields %v, schema properties %v", c.name, fields, schema)
		}
	}
	if want := []string{"key", "display_name", "description", "domain", "risk_scoring_methodology_key", "scope", "config", "metric", "aggregation", "tags"}; !reflect.DeepEqual(scorerOrder, want) {
		t.Errorf("risk scorer key order %v, documented %v", scorerOrder, want)
	}
}
