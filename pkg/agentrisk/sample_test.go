package agentrisk

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

var (
	sampleEvents  = filepath.Join("..", "..", "project", "agents", "events.jsonl")
	sampleConfigs = filepath.Join("..", "..", "project", "agents", "risk-config.yaml")
)

// sampleDays is how many days of history the bundled sample holds.
const sampleDays = 8

// TestBundledSample checks that the demo's events show every tier with the
// demo's risk configs. LF_UPDATE=1 regenerates the events file.
func TestBundledSample(t *testing.T) {
	if os.Getenv("LF_UPDATE") == "1" {
		f, err := os.Create(sampleEvents)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		enc := json.NewEncoder(w)
		Generate(SampleAgents(), SampleEnd, sampleDays, 42, func(e Event) { _ = enc.Encode(e) })
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	ctx := context.Background()
	e := openTest(t)
	data, err := os.ReadFile(sampleConfigs)
	if err != nil {
		t.Fatal(err)
	}
	cfgs, diags := ParseRiskConfigFile("risk-config.yaml", data)
	if diags.HasErrors() {
		t.Fatalf("%v", diags)
	}
	if err := e.ReplaceRiskConfigs(ctx, cfgs); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(sampleEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evs, diags := ParseEvents("events.jsonl", f)
	if diags.HasErrors() {
		t.Fatalf("%v", diags)
	}
	if _, err := e.Ingest(ctx, evs); err != nil {
		t.Fatal(err)
	}
	changes, err := e.Recalculate(ctx, "", "", SampleEnd)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Tier{"agt_report": TierElevated, "agt_ops": TierHigh, "agt_rogue": TierCritical}
	for _, c := range changes {
		w := want[c.AgentID]
		if w == "" {
			w = TierNormal
		}
		t.Logf("%s/%s %d %s", c.TenantID, c.AgentID, c.NewScore, c.NewTier)
		if c.NewTier != w {
			t.Errorf("%s: tier %s (score %d), want %s", c.AgentID, c.NewTier, c.NewScore, w)
		}
	}
}
