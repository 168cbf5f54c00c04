package agentleak

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// The demo project's and the example's configs, vaults and traces load
// without problems and scan to the documented outcome.
func TestExamples(t *testing.T) {
	for _, c := range []struct {
		dir               string
		traces            string
		traceCount, block int
		evalKey           string
	}{
		{"../../project/agentleak", "traces.jsonl", 10, 2, "agentleak-demo"},
		{"../../examples/agentleak", "traces", 3, 2, "support-bot-privacy"},
	} {
		t.Run(filepath.Base(filepath.Dir(c.dir))+"/"+filepath.Base(c.dir), func(t *testing.T) {
			cfg, ds, err := LoadConfig(filepath.Join(c.dir, "agentleak.yaml"), "agentleak.yaml")
			if err != nil || len(ds) > 0 {
				t.Fatalf("config: %v %v", err, ds)
			}
			if cfg.ProjectName != c.evalKey {
				t.Errorf("project name %q, want %q", cfg.ProjectName, c.evalKey)
			}
			vs, ds, err := LoadVaults([]string{filepath.Join(c.dir, "vaults.yaml")}, []string{"vaults.yaml"})
			if err != nil || len(ds) > 0 {
				t.Fatalf("vaults: %v %v", err, ds)
			}
			inputs, err := ExpandInputs([]string{filepath.Join(c.dir, c.traces)}, nil, func(p string) string { return p })
			if err != nil {
				t.Fatal(err)
			}
			job := &Job{Scanner: NewScanner(cfg, vs), Collect: true}
			sum, err := job.Run(context.Background(), inputs)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Traces != c.traceCount || sum.Blocked != c.block {
				t.Errorf("%d traces, %d blocked; want %d and %d", sum.Traces, sum.Blocked, c.traceCount, c.block)
			}
			run := BuildRun(c.evalKey, testNow, sum)
			seen := map[string]bool{}
			for _, r := range run.Results {
				if seen[r.TaskSpecificationKey] {
					t.Errorf("task specification key %q twice", r.TaskSpecificationKey)
				}
				seen[r.TaskSpecificationKey] = true
				// 12 fixed metrics, plus leaks_<type> per leaked data type
				// (as many as the leaked findings at most) and
				// compliance_at_risk_<framework> per framework at risk
				// (adding up to compliance_controls_at_risk).
				fixed, leaks, controls, frameworks := 0, 0.0, 0.0, 0.0
				for k, v := range r.Metrics {
					switch {
					case strings.HasPrefix(k, LeaksMetricPrefix):
						leaks += v
					case strings.HasPrefix(k, ComplianceMetricPrefix):
						controls += v
						frameworks++
					default:
						fixed++
					}
				}
				if r.ScorerKey != ScorerKey || fixed != 12 || (r.Metrics["leaked_secrets"] > 0) != (leaks > 0) ||
					controls != r.Metrics["compliance_controls_at_risk"] || frameworks != r.Metrics["compliance_frameworks_at_risk"] || (leaks > 0) != (controls > 0) {
					t.Errorf("result %+v", r)
				}
			}
		})
	}
}
