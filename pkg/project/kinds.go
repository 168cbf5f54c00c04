package project

import (
	"strings"

	"github.com/lfcli/lf/pkg/model"
)

// KindInfo describes an entity kind of project files.
type KindInfo struct {
	Kind    model.Kind
	Plural  string // command-line plural, e.g. risk-scorers
	Section string // top-level YAML key, e.g. risk_scorers
}

// Kinds lists the entity kinds in export order.
var Kinds = []KindInfo{
	{model.KindMethodology, "risk-scoring-methodologies", "risk_scoring_methodologies"},
	{model.KindRiskScorer, "risk-scorers", "risk_scorers"},
	{model.KindEvaluationRun, "evaluation-runs", "evaluation_runs"},
}

// ParseKind accepts the singular or plural command-line name of a kind (or
// its YAML section name).
func ParseKind(s string) (KindInfo, bool) {
	for _, k := range Kinds {
		if s == string(k.Kind) || s == k.Plural || s == k.Section {
			return k, true
		}
	}
	return KindInfo{}, false
}

// KindNames lists the accepted kind names for messages.
func KindNames() string {
	var out []string
	for _, k := range Kinds {
		out = append(out, string(k.Kind))
	}
	return strings.Join(out, ", ")
}

// The documented key order of canonical YAML. Keys not listed (config,
// values_mapping and metrics entries) are written in sorted order.
var (
	methodologyOrder = []string{"key", "display_name", "description", "function", "metric_key", "config_spec", "tags"}
	paramOrder       = []string{"key", "type", "display_name", "description", "default_value", "min", "max", "allowed_values", "values_mapping"}
	scorerOrder      = []string{"key", "display_name", "description", "domain", "risk_scoring_methodology_key", "scope", "config", "metric", "aggregation", "tags"}
	scopeOrder       = []string{"evaluation_keys", "task_specification_keys", "scorer_keys", "metric_keys"}
	runOrder         = []string{"evaluation_key", "id", "created_at", "status", "results", "metadata"}
	resultOrder      = []string{"task_specification_key", "scorer_key", "metrics"}
	sectionOrder     = []string{"risk_scoring_methodologies", "risk_scorers", "evaluation_runs"}
)

// KeyOrder returns the canonical key order for a mapping of an entity of
// kind at pointer rel (relative to the entity).
func KeyOrder(kind model.Kind, rel string, keys []string) []string {
	var order []string
	parts := strings.Split(strings.TrimPrefix(rel, "/"), "/")
	switch {
	case rel == "":
		switch kind {
		case model.KindMethodology:
			order = methodologyOrder
		case model.KindRiskScorer:
			order = scorerOrder
		case model.KindEvaluationRun:
			order = runOrder
		}
	case kind == model.KindMethodology && len(parts) == 2 && parts[0] == "config_spec":
		order = paramOrder
	case kind == model.KindRiskScorer && rel == "/scope":
		order = scopeOrder
	case kind == model.KindEvaluationRun && len(parts) == 2 && parts[0] == "results":
		order = resultOrder
	}
	return applyOrder(order, keys)
}

// SectionOrder orders the top-level sections of a file.
func SectionOrder(keys []string) []string { return applyOrder(sectionOrder, keys) }

func applyOrder(order, keys []string) []string {
	if order == nil {
		return keys
	}
	have := map[string]bool{}
	for _, k := range keys {
		have[k] = true
	}
	out := make([]string, 0, len(keys))
	for _, k := range order {
		if have[k] {
			out = append(out, k)
			delete(have, k)
		}
	}
	for _, k := range keys { // sorted already; unknown keys last
		if have[k] {
			out = append(out, k)
		}
	}
	return out
}
