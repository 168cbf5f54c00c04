package agentrisk

import (
	"os"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
)

func TestParseRiskConfigDefaultsAndReplacement(t *testing.T) {
	cfg, d := ParseRiskConfig("body", []byte(`{"enabled": true, "criticalAllowedMethods": ["tools/list"], "weights": {"anomaly": 0.5}}`))
	if d.HasErrors() {
		t.Fatal(d)
	}
	if !cfg.Enabled || cfg.ElevatedThreshold != 60 || cfg.HighRateMult != 0.25 || cfg.GracePeriodSeconds != 300 {
		t.Errorf("defaults not kept: %+v", cfg)
	}
	if len(cfg.CriticalAllowedMethods) != 1 || cfg.CriticalAllowedMethods[0] != "tools/list" {
		t.Errorf("allow-list not replaced: %v", cfg.CriticalAllowedMethods)
	}
	if cfg.Weights.Anomaly != 0.5 || cfg.Weights.Injection != DefaultWeights().Injection {
		t.Errorf("weights: %+v", cfg.Weights)
	}
}

func TestRiskConfigProblemsNameTheField(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"elevatedThreshold": 80}`, "/highThreshold: thresholds must rise strictly"},
		{`{"highThreshold": 95}`, "/criticalThreshold: thresholds must rise strictly"},
		{`{"criticalThreshold": 101}`, "/criticalThreshold: must be <= 100"},
		{`{"elevatedThreshold": 0}`, "/elevatedThreshold: must be >= 1"},
		{`{"elevatedRateMult": 0}`, "/elevatedRateMult: must be > 0"},
		{`{"highRateMult": 1.5}`, "/highRateMult: must be <= 1"},
		{`{"gracePeriodSeconds": -5}`, "/gracePeriodSeconds: must be >= 0"},
		{`{"rateLimit": {"limit": 0, "windowSeconds": 60}}`, "/rateLimit/limit: must be >= 1"},
		{`{"weights": {"injection": 0, "toolDrift": 0, "excessiveAgency": 0, "anomaly": 0, "policyViolation": 0}}`, "/weights: at least one component weight must be positive"},
		{`{"enable": true}`, "/enable"},
		{"enabled: true\nhighThreshold: 50\n", "body:2:16: /highThreshold"},
		{`[]`, "must be object"},
		{`{"risk_configs": []}`, "not a risk_configs list"},
	} {
		_, d := ParseRiskConfig("body", []byte(tc.in))
		var all []string
		for _, x := range d {
			all = append(all, x.String())
		}
		if !d.HasErrors() || !strings.Contains(strings.Join(all, "\n"), tc.want) {
			t.Errorf("%s: got %q, want %q", tc.in, all, tc.want)
		}
	}
}

func TestRiskConfigFile(t *testing.T) {
	cfgs, d := ParseRiskConfigFile("f.yaml", []byte("risk_configs:\n  - tenantId: a\n    enabled: true\n  - tenantId: b\n"))
	if d.HasErrors() || len(cfgs) != 2 || !cfgs[0].Enabled || cfgs[1].TenantID != "b" {
		t.Fatalf("%+v %v", cfgs, d)
	}
	_, d = ParseRiskConfigFile("f.yaml", []byte("risk_configs:\n  - tenantId: a\n  - tenantId: a\n  - enabled: true\n"))
	s := ""
	for _, x := range d {
		s += x.String() + "\n"
	}
	if !strings.Contains(s, "f.yaml:3:15: /risk_configs/1/tenantId: tenant \"a\" already configured") && !strings.Contains(s, "tenantId") {
		t.Errorf("duplicate tenant: %s", s)
	}
	if !strings.Contains(s, "/risk_configs/2") {
		t.Errorf("missing tenantId: %s", s)
	}
}

func FuzzParseRiskConfig(f *testing.F) {
	for _, p := range []string{"../../examples/agents/risk-config.json", "../../project/agents/risk-config.yaml", "../../examples/agents/decisions.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("elevatedThreshold: 95\nweights: {anomaly: -1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			cfg, d := ParseRiskConfig("f", data)
			if !d.HasErrors() {
				if v := ValidateRiskConfig(cfg, ""); v.HasErrors() {
					t.Fatalf("accepted an invalid config: %v", v)
				}
			}
			_, _ = ParseRiskConfigFile("f", data)
			cases, d := ParseDecideCases("f", data)
			if !d.HasErrors() {
				for i := range cases {
					_ = cases[i].Run()
				}
			}
		})
	})
}
