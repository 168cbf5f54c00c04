package kind

import (
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/schema"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// TestKeyRuleMatchesSchemas checks CheckKey and ValidKey against every
// schema place that takes a key or a metric name: what a flag is refused,
// a file is refused too, and the other way round.
func TestKeyRuleMatchesSchemas(t *testing.T) {
	keys := []struct {
		key string
		ok  bool
	}{
		{"qa", true},
		{"a-b_C9", true},
		{strings.Repeat("k", 250), true},
		{"", false},
		{"a b/../x", false},
		{"a.b", false},
		{"a@r", false},
		{"é", false},
		{"a\x00", false},
		{strings.Repeat("k", 251), false},
		{strings.Repeat("k", 300), false},
	}
	for _, c := range keys {
		err := CheckKey("key", c.key)
		if (err == nil) != c.ok || ValidKey(c.key) != c.ok {
			t.Errorf("CheckKey(%.20q) = %v, ValidKey %v; want ok=%v", c.key, err, ValidKey(c.key), c.ok)
		}
		docs := map[string]map[string]any{
			"project": {"evaluation_runs": []any{map[string]any{
				"evaluation_key": c.key, "id": c.key, "created_at": "2026-11-20T09:00:00Z", "status": "completed",
				"results": []any{map[string]any{"task_specification_key": c.key, "scorer_key": c.key, "metrics": map[string]any{c.key: 1.0}}},
			}}},
			"run":              {"apply": []any{"x.yaml"}, "evaluations": []any{map[string]any{"agentleak": map[string]any{"evaluation_key": c.key, "traces": []any{"t.jsonl"}}}}},
			"agentleak-config": {"project": map[string]any{"name": c.key}},
		}
		for name, v := range docs {
			ds := schema.Validate(name, &yamlsrc.Doc{File: "x", Value: v})
			if ds.HasErrors() == c.ok {
				t.Errorf("schema %s on %.20q: %v, want ok=%v", name, c.key, ds, c.ok)
			}
			if name == "project" && !c.ok && len(ds.Errors()) < 5 {
				t.Errorf("schema project on %.20q: %d problems, want one for each of the 5 places: %v", c.key, len(ds.Errors()), ds)
			}
		}
	}
}

func TestKeyOfGivesValidKeys(t *testing.T) {
	for _, name := range []string{"a b/../x", "", "pii:direct", strings.Repeat("é", 200), "ok"} {
		if k := KeyOf(name); !ValidKey(k) {
			t.Errorf("KeyOf(%q) = %q, not a valid key", name, k)
		}
	}
	if KeyOf("ok") != "ok" || KeyOf("dan.DanInTheWild") != "dan_DanInTheWild" {
		t.Error("KeyOf changed a valid key or mapped wrongly")
	}
	if err := CheckKey("--evaluation-key", "a b/../x"); err == nil || !strings.Contains(err.Error(), `--evaluation-key "a b/../x" holds ' ' at character 2`) {
		t.Errorf("message: %v", err)
	}
}
