package agentrisk

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExamples checks that every bundled example parses and validates.
func TestExamples(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "agents")
	f, err := os.Open(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if evs, d := ParseEvents("events.jsonl", f); d.HasErrors() || len(evs) == 0 {
		t.Errorf("events.jsonl: %v", d)
	}
	b, err := os.ReadFile(filepath.Join(dir, "risk-config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg, d := ParseRiskConfig("risk-config.json", b); d.HasErrors() || !cfg.Enabled || cfg.RateLimit == nil {
		t.Errorf("risk-config.json: %+v %v", cfg, d)
	}
	b, err = os.ReadFile(filepath.Join("..", "..", "project", "agents", "risk-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfgs, d := ParseRiskConfigFile("risk-config.yaml", b); d.HasErrors() || len(cfgs) != 2 {
		t.Errorf("project risk-config.yaml: %v", d)
	}
}
