package agentrisk

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/schema"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// SchemaName is the JSON Schema (schemas/risk-config.schema.json) that both a
// project risk-config file and a single config body are validated against.
const SchemaName = "risk-config"

// DefaultWeights are the documented component weights. They sum to 1.25, so
// no single component can make an agent High on its own, while strong
// evidence in four of the five reaches Critical (the sum is clamped to 100).
func DefaultWeights() Weights {
	return Weights{Injection: 0.30, ToolDrift: 0.25, ExcessiveAgency: 0.25, Anomaly: 0.20, PolicyViolation: 0.25}
}

func defaultRiskConfig() RiskConfig {
	return RiskConfig{
		Enabled:                false,
		ElevatedThreshold:      60,
		HighThreshold:          80,
		CriticalThreshold:      90,
		ElevatedRateMult:       0.50,
		HighRateMult:           0.25,
		GracePeriodSeconds:     300,
		CriticalAllowedMethods: []string{"initialize", "ping"},
		Weights:                DefaultWeights(),
		DecayHalfLifeHours:     24,
	}
}

// parseRiskConfig parses a single config object.
func parseRiskConfig(file string, data []byte) (RiskConfig, diag.List) {
	doc, diags := yamlsrc.Parse(file, data)
	if diags.HasErrors() {
		return RiskConfig{}, diags
	}
	if doc.Value == nil {
		return RiskConfig{}, diag.List{{File: file, Line: 1, Col: 1, Msg: "empty risk config: expected an object such as {enabled: true}"}}
	}
	if m, ok := doc.Value.(map[string]any); ok {
		if _, isFile := m["risk_configs"]; isFile {
			return RiskConfig{}, diag.List{doc.Errorf("/risk_configs", "expected one tenant's risk config, not a risk_configs list")}
		}
	}
	cfgs, diags := decodeConfigs(doc, []string{""})
	if diags.HasErrors() {
		return RiskConfig{}, diags
	}
	return cfgs[0], diags
}

// parseRiskConfigFile parses `risk_configs: [...]`.
func parseRiskConfigFile(file string, data []byte) ([]RiskConfig, diag.List) {
	doc, diags := yamlsrc.Parse(file, data)
	if diags.HasErrors() {
		return nil, diags
	}
	m, ok := doc.Value.(map[string]any)
	if !ok {
		return nil, diag.List{{File: file, Line: 1, Col: 1, Msg: "expected a mapping with a risk_configs list, e.g. risk_configs: [{tenantId: acme, enabled: true}]"}}
	}
	if _, ok := m["risk_configs"]; !ok {
		return nil, diag.List{doc.Errorf("", "missing risk_configs: expected risk_configs: [{tenantId: ..., ...}]")}
	}
	list, _ := m["risk_configs"].([]any)
	ptrs := make([]string, len(list))
	for i := range list {
		ptrs[i] = fmt.Sprintf("/risk_configs/%d", i)
	}
	cfgs, d := decodeConfigs(doc, ptrs)
	diags = append(diags, d...)
	if diags.HasErrors() {
		diags.Sort()
		return nil, diags
	}
	seen := map[string]string{}
	for i, c := range cfgs {
		if prev, dup := seen[c.TenantID]; dup {
			diags = append(diags, doc.Errorf(ptrs[i]+"/tenantId", "tenant %q already configured at %s", c.TenantID, prev))
		}
		seen[c.TenantID] = ptrs[i]
	}
	if diags.HasErrors() {
		diags.Sort()
		return nil, diags
	}
	return cfgs, diags
}

// decodeConfigs validates doc against the schema, then decodes every config
// at ptrs onto the defaults and runs the semantic checks, locating each
// problem in doc.
func decodeConfigs(doc *yamlsrc.Doc, ptrs []string) ([]RiskConfig, diag.List) {
	diags := schema.Validate(SchemaName, doc)
	out := make([]RiskConfig, 0, len(ptrs))
	for _, p := range ptrs {
		// Entries with schema problems are not checked further: their
		// decoded values would be guesses. The others still are, so that
		// every problem of a file is reported at once.
		if hasProblemUnder(diags, p) {
			continue
		}
		cfg := defaultRiskConfig()
		// Decode replaces slices, so an allow-list given in the file replaces
		// the default one rather than extending it.
		if err := doc.Decode(p, &cfg); err != nil {
			diags = append(diags, doc.Errorf(p, "cannot decode risk config: %v", err))
			continue
		}
		for _, d := range validateRiskConfig(cfg, p) {
			loc := doc.Errorf(d.Pointer, "%s", d.Msg)
			diags = append(diags, loc)
		}
		out = append(out, cfg)
	}
	diags.Sort()
	return out, diags
}

func hasProblemUnder(diags diag.List, ptr string) bool {
	for _, d := range diags {
		if d.Severity == diag.SevError && (d.Pointer == ptr || strings.HasPrefix(d.Pointer, ptr+"/") || ptr == "" || d.Pointer == "") {
			return true
		}
	}
	return false
}

// validateRiskConfig checks the rules a schema cannot express (and repeats
// the ranges, so that configs built in Go or decoded from JSON are checked
// the same way).
func validateRiskConfig(cfg RiskConfig, prefix string) diag.List {
	var out diag.List
	bad := func(field, format string, args ...any) {
		out = append(out, diag.Diagnostic{Pointer: prefix + "/" + field, Msg: fmt.Sprintf(format, args...)})
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"elevatedThreshold", cfg.ElevatedThreshold}, {"highThreshold", cfg.HighThreshold}, {"criticalThreshold", cfg.CriticalThreshold}} {
		if f.v < 1 || f.v > 100 {
			bad(f.name, "must lie within 1..100, got %d", f.v)
		}
	}
	if cfg.HighThreshold <= cfg.ElevatedThreshold {
		bad("highThreshold", "thresholds must rise strictly: highThreshold (%d) must be greater than elevatedThreshold (%d)", cfg.HighThreshold, cfg.ElevatedThreshold)
	}
	if cfg.CriticalThreshold <= cfg.HighThreshold {
		bad("criticalThreshold", "thresholds must rise strictly: criticalThreshold (%d) must be greater than highThreshold (%d)", cfg.CriticalThreshold, cfg.HighThreshold)
	}
	if !(cfg.ElevatedRateMult > 0 && cfg.ElevatedRateMult <= 1) {
		bad("elevatedRateMult", "must lie in (0, 1], got %g", cfg.ElevatedRateMult)
	}
	if !(cfg.HighRateMult > 0 && cfg.HighRateMult <= 1) {
		bad("highRateMult", "must lie in (0, 1], got %g", cfg.HighRateMult)
	}
	if cfg.GracePeriodSeconds < 0 {
		bad("gracePeriodSeconds", "must not be negative, got %d", cfg.GracePeriodSeconds)
	}
	if !(cfg.DecayHalfLifeHours > 0 && cfg.DecayHalfLifeHours <= 168) {
		bad("decayHalfLifeHours", "must lie in (0, 168], got %g", cfg.DecayHalfLifeHours)
	}
	w := cfg.Weights
	sum := 0.0
	for _, f := range []struct {
		name string
		v    float64
	}{{"injection", w.Injection}, {"toolDrift", w.ToolDrift}, {"excessiveAgency", w.ExcessiveAgency}, {"anomaly", w.Anomaly}, {"policyViolation", w.PolicyViolation}} {
		if f.v < 0 || f.v > 1 {
			bad("weights/"+f.name, "must lie within 0..1, got %g", f.v)
		}
		sum += f.v
	}
	if sum <= 0 {
		bad("weights", "at least one component weight must be positive")
	}
	for i, m := range cfg.CriticalAllowedMethods {
		if strings.TrimSpace(m) == "" {
			bad(fmt.Sprintf("criticalAllowedMethods/%d", i), "must not be empty")
		}
	}
	if rl := cfg.RateLimit; rl != nil {
		if rl.Limit < 1 {
			bad("rateLimit/limit", "must be at least 1, got %d", rl.Limit)
		}
		if rl.WindowSeconds < 1 {
			bad("rateLimit/windowSeconds", "must be at least 1, got %d", rl.WindowSeconds)
		}
	}
	return out
}

// MarshalConfigFile renders configs as a project risk-config file body
// (JSON-compatible value `{risk_configs: [...]}`), e.g. for `lf export`.
func MarshalConfigFile(cfgs []RiskConfig) map[string]any {
	list := make([]any, 0, len(cfgs))
	for _, c := range cfgs {
		b, _ := json.Marshal(c)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		list = append(list, m)
	}
	return map[string]any{"risk_configs": list}
}

// schemaCheck validates a single config document against the schema.
func schemaCheck(doc *yamlsrc.Doc) diag.List { return schema.Validate(SchemaName, doc) }
