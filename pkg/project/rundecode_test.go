package project

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// TestDecodeRunAgreesWithJSON checks the direct decoder against the JSON
// round trip it replaces, on the value types the YAML readers produce.
func TestDecodeRunAgreesWithJSON(t *testing.T) {
	runs := []map[string]any{
		{
			"evaluation_key": "qa", "id": "r1", "created_at": "2026-01-15T09:00:00Z", "status": "completed",
			"results": []any{map[string]any{
				"task_specification_key": "t", "scorer_key": "s",
				"metrics": map[string]any{"a": 0.5, "b": int64(3), "c": uint64(1 << 62), "d": int64(-1 << 60)},
			}},
		},
		{"evaluation_key": "qa", "id": "r2", "created_at": "2026-01-15T09:00:00.123456789+02:00", "status": "failed", "results": []any{}},
		{
			"evaluation_key": "qa", "id": "r3", "created_at": "2026-01-15T09:00:00Z", "status": "completed", "results": []any{},
			"metadata": map[string]any{"tool": "promptfoo", "n": int64(2)},
		},
		{"evaluation_key": "qa", "id": "r4", "created_at": "2026-13-15T09:00:00Z", "status": "completed", "results": []any{}},
		{"evaluation_key": "qa", "id": "r5", "created_at": "2026-01-15 09:00:00", "status": "completed", "results": []any{}},
	}
	for _, m := range runs {
		got, gerr := decodeRun(m)
		raw, _ := json.Marshal(m)
		want := &model.EvaluationRun{}
		werr := json.Unmarshal(raw, want)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%v: direct error %v, JSON error %v", m["id"], gerr, werr)
		}
		if gerr != nil {
			if gerr.Error() != werr.Error() {
				t.Errorf("%v: direct error %q, JSON error %q", m["id"], gerr, werr)
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: direct %+v, JSON %+v", m["id"], got, want)
		}
	}
	// A NaN cannot be encoded: the direct path reports what the JSON one does.
	nan := map[string]any{
		"evaluation_key": "k", "id": "i", "created_at": "2026-01-15T09:00:00Z", "status": "completed",
		"results": []any{map[string]any{"task_specification_key": "t", "scorer_key": "s", "metrics": map[string]any{"a": math.NaN()}}},
	}
	if _, err := decodeRun(nan); err == nil {
		t.Error("a NaN metric decoded without error")
	}
}
