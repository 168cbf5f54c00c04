package agentrisk

import (
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
)

// FuzzParseDecideCases: any decision cases file gives cases or errors,
// never a panic; every accepted case runs, with a valid config.
func FuzzParseDecideCases(f *testing.F) {
	fuzzcheck.AddFiles(f, "examples/agents/decisions.yaml", "pkg/agentrisk/testdata/fuzzseed/decisions.yaml")
	f.Add([]byte("cases:\n- name: a\n  config: {enabled: true, rateLimit: {limit: 1, windowSeconds: 1}}\n  agent: {score: 95, secondsInTier: 10}\n  request: {method: tools/call}\n  expect: {action: block}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			cases, ds := ParseDecideCases("f.yaml", data)
			if ds.HasErrors() {
				return
			}
			for i := range cases {
				if v := ValidateRiskConfig(cases[i].Config, ""); v.HasErrors() {
					t.Fatalf("case %d accepted with an invalid config: %v", i, v)
				}
				_ = cases[i].Run()
			}
		})
	})
}

// FuzzParseRiskConfigFile: any risk_configs file gives configs or errors;
// every accepted config is valid and tenants are distinct.
func FuzzParseRiskConfigFile(f *testing.F) {
	fuzzcheck.AddFiles(f, "project/agents/risk-config.yaml", "examples/agents/risk-config.json")
	f.Add([]byte("risk_configs:\n- tenantId: a\n  enabled: true\n  weights: {anomaly: 0.5}\n- tenantId: b\n  criticalAllowedMethods: []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			cfgs, ds := ParseRiskConfigFile("f.yaml", data)
			if ds.HasErrors() {
				return
			}
			seen := map[string]bool{}
			for i, c := range cfgs {
				if v := ValidateRiskConfig(c, ""); v.HasErrors() {
					t.Fatalf("config %d accepted but invalid: %v", i, v)
				}
				if seen[c.TenantID] {
					t.Fatalf("tenant %q accepted twice", c.TenantID)
				}
				seen[c.TenantID] = true
			}
		})
	})
}
