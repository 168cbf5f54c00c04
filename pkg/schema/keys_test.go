package schema

import (
	"reflect"
	"testing"
)

// TestKnownKeysAgentLeakConfig: the key tree of the AgentLeak config
// schema is the one AgentLeak configs may carry (the list lf kept by hand
// before it was read from the schema): objects with properties, list items
// as "*", nothing under objects of any content or maps.
func TestKnownKeysAgentLeakConfig(t *testing.T) {
	got, err := KnownKeys("agentleak-config")
	if err != nil {
		t.Fatal(err)
	}
	set := func(ks ...string) map[string]bool {
		m := map[string]bool{}
		for _, k := range ks {
			m[k] = true
		}
		return m
	}
	want := Keys{
		"":                    set("project", "agent", "scenarios", "channels", "detectors", "scoring", "vault", "custom_detectors", "privacy_policy", "privacy"),
		"/project":            set("name", "description"),
		"/detectors":          set("pii", "secrets", "healthcare", "finance", "hr", "keyname"),
		"/scoring":            set("fail_below", "conditional_below", "block_on_critical", "weights", "level_overrides"),
		"/vault":              set("levels", "rho_s"),
		"/privacy_policy":     set("max_risk_index", "max_findings", "forbid_levels", "forbid_channels", "forbid_data_types"),
		"/privacy":            set("redact_values", "store_raw_traces"),
		"/custom_detectors/*": set("name", "pattern", "severity", "data_type", "confidence", "level", "description"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("key tree\n got %v\nwant %v", got, want)
	}
}
