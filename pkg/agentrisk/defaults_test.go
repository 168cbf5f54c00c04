package agentrisk

import (
	"reflect"
	"testing"
)

// TestDefaultsFromSchema: the defaults come from the default: values of
// schemas/risk-config.schema.json; these are the documented ones (the
// schema's descriptions, the reference page), so dropping or changing a
// default: in the schema fails here.
func TestDefaultsFromSchema(t *testing.T) {
	want := RiskConfig{
		ElevatedThreshold:      60,
		HighThreshold:          80,
		CriticalThreshold:      90,
		ElevatedRateMult:       0.50,
		HighRateMult:           0.25,
		GracePeriodSeconds:     300,
		MaxClockSkewSeconds:    300,
		CriticalAllowedMethods: []string{"initialize", "ping"},
		Weights:                Weights{Injection: 0.30, ToolDrift: 0.25, ExcessiveAgency: 0.25, Anomaly: 0.20, PolicyViolation: 0.25},
		DecayHalfLifeHours:     24,
	}
	if got := DefaultRiskConfig(); !reflect.DeepEqual(got, want) {
		t.Errorf("defaults\n got %+v\nwant %+v", got, want)
	}
	// A partial weights object keeps the other weights' defaults; a given
	// allow-list replaces the default one.
	cfg, ds := ParseRiskConfig("f", []byte("weights: {anomaly: 0.5}\ncriticalAllowedMethods: [ping]\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	w := want.Weights
	w.Anomaly = 0.5
	if cfg.Weights != w || !reflect.DeepEqual(cfg.CriticalAllowedMethods, []string{"ping"}) {
		t.Errorf("partial config: %+v", cfg)
	}
	// Defaults are copies: changing one config leaves the next alone.
	a := DefaultRiskConfig()
	a.CriticalAllowedMethods[0] = "x"
	if DefaultRiskConfig().CriticalAllowedMethods[0] != "initialize" {
		t.Error("defaults shared between configs")
	}
}
