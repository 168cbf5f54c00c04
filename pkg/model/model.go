// Package model holds the entities of an lf project: the AI app, risk
// scoring methodologies, risk scorers, evaluation runs and compliance
// frameworks.
package model

import (
	"encoding/json"
	"fmt"
	"time"
)

// Kind names an entity kind as used on the command line (singular form).
type Kind string

// Entity kinds.
const (
	KindAIApp         Kind = "ai-app"
	KindMethodology   Kind = "risk-scoring-methodology"
	KindRiskScorer    Kind = "risk-scorer"
	KindEvaluationRun Kind = "evaluation-run"
	KindFramework     Kind = "framework"
)

// Param types of a methodology's config_spec.
const (
	ParamFloat       = "float"
	ParamInt         = "int"
	ParamBoolean     = "boolean"
	ParamString      = "string"
	ParamCategorical = "categorical"
)

// Param is one parameter a methodology declares in its config_spec.
type Param struct {
	Key           string             `json:"key"`
	Type          string             `json:"type"`
	DisplayName   string             `json:"display_name,omitempty"`
	Description   string             `json:"description,omitempty"`
	DefaultValue  any                `json:"default_value,omitempty"`
	Min           *float64           `json:"min,omitempty"`
	Max           *float64           `json:"max,omitempty"`
	AllowedValues []string           `json:"allowed_values,omitempty"`
	ValuesMapping map[string]float64 `json:"values_mapping,omitempty"`
}

// Methodology is a risk scoring methodology: a formula with declared parameters.
type Methodology struct {
	Key         string   `json:"key"`
	DisplayName string   `json:"display_name"`
	Description string   `json:"description,omitempty"`
	Function    string   `json:"function"`
	MetricKey   string   `json:"metric_key,omitempty"`
	ConfigSpec  []Param  `json:"config_spec,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

// MetricVar is the variable of Function that receives the metric value.
func (m *Methodology) MetricVar() string {
	if m.MetricKey != "" {
		return m.MetricKey
	}
	return "value"
}

// Scope selects the metric values a risk scorer applies to. AllLatest is the
// string scope "all_latest"; otherwise absent (nil) lists do not filter.
type Scope struct {
	AllLatest             bool     `json:"-"`
	EvaluationKeys        []string `json:"evaluation_keys,omitempty"`
	TaskSpecificationKeys []string `json:"task_specification_keys,omitempty"`
	ScorerKeys            []string `json:"scorer_keys,omitempty"`
	MetricKeys            []string `json:"metric_keys,omitempty"`
}

// RiskScorer applies a methodology with chosen parameters to metric values.
type RiskScorer struct {
	Key                       string         `json:"key"`
	DisplayName               string         `json:"display_name"`
	Description               string         `json:"description,omitempty"`
	Domain                    string         `json:"domain"`
	RiskScoringMethodologyKey string         `json:"risk_scoring_methodology_key"`
	Scope                     Scope          `json:"scope"`
	Config                    map[string]any `json:"config,omitempty"`
	Aggregation               string         `json:"aggregation"`
	Metric                    string         `json:"metric"`
	Tags                      []string       `json:"tags,omitempty"`
}

// Run statuses.
const (
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusRunning   = "running"
)

// Result is one task specification / scorer pair of an evaluation run.
type Result struct {
	TaskSpecificationKey string             `json:"task_specification_key"`
	ScorerKey            string             `json:"scorer_key"`
	Metrics              map[string]float64 `json:"metrics"`
}

// EvaluationRun is one run of an evaluation, with its metric values.
type EvaluationRun struct {
	EvaluationKey string    `json:"evaluation_key"`
	ID            string    `json:"id"`
	CreatedAt     time.Time `json:"created_at"`
	Status        string    `json:"status"`
	Results       []Result  `json:"results"`
	// Metadata describes where an imported run came from (tool, version,
	// source file digest, original names, notes). Nil for runs written by hand.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// UnmarshalJSON reads the string "all_latest" or a fine-grained scope object.
func (s *Scope) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		if str != "all_latest" {
			return fmt.Errorf("scope must be \"all_latest\" or an object, not %q", str)
		}
		*s = Scope{AllLatest: true}
		return nil
	}
	type plain Scope
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = Scope(p)
	return nil
}

// MarshalJSON writes "all_latest" or the scope object.
func (s Scope) MarshalJSON() ([]byte, error) {
	if s.AllLatest {
		return []byte(`"all_latest"`), nil
	}
	type plain Scope
	return json.Marshal(plain(s))
}

// RunRef names one evaluation run.
type RunRef struct {
	EvaluationKey string `json:"evaluation_key"`
	ID            string `json:"id"`
}

// MetricValue is one metric value of a run, as scoring reads it.
type MetricValue struct {
	TaskSpecificationKey string
	ScorerKey            string
	Value                float64
}
