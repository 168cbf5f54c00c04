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
		{"ai app", model.AIApp{}, orders().aiApp},
		{"key info", model.AIAppKeyInfo{}, orders().keyInfo},
		{"methodology", model.Methodology{}, orders().methodology},
		{"param", model.Param{}, orders().param},
		{"risk scorer", model.RiskScorer{}, orders().scorer},
		{"scope", model.Scope{}, orders().scope},
		{"evaluation run", model.EvaluationRun{}, orders().run},
		{"result", model.Result{}, orders().result},
		{"framework", model.Framework{}, orders().framework},
		{"requirement", model.Requirement{}, orders().requirement},
		{"evidence", model.Evidence{}, orders().evidence},
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
	if want := []string{"key", "display_name", "description", "domain", "risk_scoring_methodology_key", "scope", "config", "metric", "aggregation", "tags"}; !reflect.DeepEqual(orders().scorer, want) {
		t.Errorf("risk scorer key order %v, documented %v", orders().scorer, want)
	}
}
