package agentrisk

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// SchemaName is the JSON Schema (schemas/risk-config.schema.json) that both a
// project risk-config file and a single config body are validated against.
const SchemaName = "risk-config"

// ConfigBody is one tenant's risk config object (PUT
// /tenants/{tenantId}/risk-config, a decision case's config); ConfigFile is
// the project file `risk_configs: [...]`. Both take their defaults from
// schemas/risk-config.schema.json and are checked by validateRiskConfig.
var (
	ConfigBody = kind.Kind[RiskConfig, struct{}]{
		Name:     "risk-config-body",
		Schema:   SchemaName,
		Empty:    "empty risk config: expected an object such as {enabled: true}",
		What:     "risk config",
		FileList: "risk_configs",
		One:      "tenant's risk config",
		Check:    checkConfig,
	}
	ConfigFile = kind.Kind[RiskConfig, struct{}]{
		Name:        "risk-config",
		Description: "a tenant risk config file (use `lf set risk-config -f`)",
		Schema:      SchemaName,
		List:        "risk_configs",
		NotMapping:  "expected a mapping with a risk_configs list, e.g. risk_configs: [{tenantId: acme, enabled: true}]",
		Missing:     "missing risk_configs: expected risk_configs: [{tenantId: ..., ...}]",
		What:        "risk config",
		Check:       checkConfig,
		CheckAll: func(doc *yamlsrc.Doc, ptrs []string, cfgs []RiskConfig, _ struct{}) diag.List {
			var out diag.List
			seen := map[string]string{}
			for i, c := range cfgs {
				if prev, dup := seen[c.TenantID]; dup {
					out = append(out, doc.Errorf(ptrs[i]+"/tenantId", "tenant %q already configured at %s", c.TenantID, prev))
				}
				seen[c.TenantID] = ptrs[i]
			}
			return out
		},
	}
)

// checkConfig locates validateRiskConfig's problems of the config at ptr.
func checkConfig(doc *yamlsrc.Doc, ptr string, cfg *RiskConfig, _ struct{}) diag.List {
	var out diag.List
	for _, d := range validateRiskConfig(*cfg, ptr) {
		out = append(out, doc.Errorf(d.Pointer, "%s", d.Msg))
	}
	return out
}

// maxClockSkewLimit bounds maxClockSkewSeconds (a day), as the schema does.
const maxClockSkewLimit = 86400

// defaults is the schema's defaults decoded once.
var defaults = sync.OnceValue(func() RiskConfig {
	cfg, ds := ConfigBody.Parse("defaults", []byte("{}"), struct{}{}).One()
	if ds.HasErrors() {
		panic(fmt.Sprint("risk-config schema defaults: ", ds))
	}
	return cfg
})

// DefaultWeights are the documented component weights (the defaults of
// schemas/risk-config.schema.json). They sum to 1.25, so no single
// component can make an agent High on its own, while strong evidence in
// four of the five reaches Critical (the sum is clamped to 100).
func DefaultWeights() Weights { return defaults().Weights }

func defaultRiskConfig() RiskConfig {
	cfg := defaults()
	cfg.CriticalAllowedMethods = append([]string(nil), cfg.CriticalAllowedMethods...)
	return cfg
}

// parseRiskConfig parses a single config object.
func parseRiskConfig(file string, data []byte) (RiskConfig, diag.List) {
	return ConfigBody.Parse(file, data, struct{}{}).One()
}

// parseRiskConfigFile parses `risk_configs: [...]`.
func parseRiskConfigFile(file string, data []byte) ([]RiskConfig, diag.List) {
	return ConfigFile.Parse(file, data, struct{}{}).All()
}

// validateRiskConfig checks the rules a schema cannot express (and repeats
// the ranges, so that configs built in Go or decoded from JSON are checked
// the same way).
// Bounds of a risk config beyond which a value is a mistake (or an attack:
// a limit near the int range overflowed the effective limit), refused with
// a located error; schemas/risk-config.schema.json states the same.
const (
	MaxGracePeriodSeconds = 86400         // one day
	MinDecayHalfLifeHours = 0.1           // six minutes
	MaxRateLimit          = 1_000_000_000 // requests per window
	MaxRateWindowSeconds  = 86400         // one day
)

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
	if cfg.GracePeriodSeconds < 0 || cfg.GracePeriodSeconds > MaxGracePeriodSeconds {
		bad("gracePeriodSeconds", "must lie within 0..%d (one day), got %d", MaxGracePeriodSeconds, cfg.GracePeriodSeconds)
	}
	if cfg.MaxClockSkewSeconds < 0 || cfg.MaxClockSkewSeconds > maxClockSkewLimit {
		bad("maxClockSkewSeconds", "must lie within 0..%d, got %d", maxClockSkewLimit, cfg.MaxClockSkewSeconds)
	}
	if !(cfg.DecayHalfLifeHours >= MinDecayHalfLifeHours && cfg.DecayHalfLifeHours <= 168) {
		bad("decayHalfLifeHours", "must lie within %g..168 hours, got %g", MinDecayHalfLifeHours, cfg.DecayHalfLifeHours)
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
		if rl.Limit < 1 || rl.Limit > MaxRateLimit {
			bad("rateLimit/limit", "must lie within 1..%d, got %d", MaxRateLimit, rl.Limit)
		}
		if rl.WindowSeconds < 1 || rl.WindowSeconds > MaxRateWindowSeconds {
			bad("rateLimit/windowSeconds", "must lie within 1..%d (one day), got %d", MaxRateWindowSeconds, rl.WindowSeconds)
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
