package risk

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lfcli/lf/pkg/model"
)

// Explanation is why a risk scorer has its score: the methodology's
// function with the scorer's config substituted, every value in scope with
// the risk the function gave it, the values left out and why, and the
// aggregation that made the score. It is computed by the same steps as
// Score, so its score is the overview's to the last bit.
type Explanation struct {
	Key         string          `json:"key"`
	DisplayName string          `json:"display_name"`
	Domain      string          `json:"domain"`
	Metric      string          `json:"metric"`
	Scope       model.Scope     `json:"scope"`
	Methodology ExplainedMethod `json:"methodology"`
	// Runs are the runs chosen: the latest completed run of each
	// evaluation key in scope (as of the moment asked for).
	Runs        []RunRef         `json:"runs"`
	Values      []ExplainedValue `json:"values"`
	Excluded    []ExcludedValue  `json:"excluded"`
	Aggregation Aggregation      `json:"aggregation"`
	Score       *float64         `json:"score"`
	Level       Level            `json:"level"`
	Error       string           `json:"error,omitempty"`
}

// ExplainedMethod is the methodology as the scorer applies it.
type ExplainedMethod struct {
	Key string `json:"key"`
	// Function is the methodology's function as written; Substituted is the
	// same with every parameter replaced by the value the scorer gives it.
	Function    string       `json:"function"`
	Substituted string       `json:"substituted"`
	Variable    string       `json:"variable"` // the name the metric value has in the function
	Parameters  []ParamValue `json:"parameters"`
}

// ParamValue is one config_spec parameter: the value configured (or the
// default) and the number the function receives (categorical values go
// through values_mapping).
type ParamValue struct {
	Key        string `json:"key"`
	Configured any    `json:"configured"`
	Default    bool   `json:"default"` // the scorer's config leaves it out
	Used       any    `json:"used"`
}

// ExplainedValue is one metric value in scope and the risk the function
// gave it, in the order the aggregation took them.
type ExplainedValue struct {
	Run                  RunRef  `json:"run"`
	TaskSpecificationKey string  `json:"task_specification_key"`
	ScorerKey            string  `json:"scorer_key"`
	Metric               string  `json:"metric"`
	Value                float64 `json:"value"`
	Risk                 float64 `json:"risk"`
}

// ExcludedValue is a value of the metric in a chosen run that did not
// count, with why.
type ExcludedValue struct {
	Run                  RunRef  `json:"run"`
	TaskSpecificationKey string  `json:"task_specification_key"`
	ScorerKey            string  `json:"scorer_key"`
	Metric               string  `json:"metric"`
	Value                float64 `json:"value"`
	Reason               string  `json:"reason"`
}

// Aggregation is how the risks became the score: Raw is the mean, max or
// min of the N risks (Sum is their sum, for mean), Score is Raw clamped to
// 0..10 and rounded to 1e-9. Formula spells it out.
type Aggregation struct {
	Kind    string  `json:"kind"`
	N       int     `json:"n"`
	Sum     float64 `json:"sum,omitempty"`
	Raw     float64 `json:"raw"`
	Clamped bool    `json:"clamped"`
	Formula string  `json:"formula"`
}

// observer is told what evaluate does with each value (Explain's tap).
type observer interface {
	scored(run RunRef, v *Value, risk float64)
	excluded(run RunRef, v *Value, reason string)
}

type explainTap struct {
	e      *Explanation
	metric string
}

func (t explainTap) scored(run RunRef, v *Value, risk float64) {
	t.e.Values = append(t.e.Values, ExplainedValue{Run: run, TaskSpecificationKey: v.TaskSpecificationKey, ScorerKey: v.ScorerKey, Metric: t.metric, Value: v.Value, Risk: risk})
}

func (t explainTap) excluded(run RunRef, v *Value, reason string) {
	t.e.Excluded = append(t.e.Excluded, ExcludedValue{Run: run, TaskSpecificationKey: v.TaskSpecificationKey, ScorerKey: v.ScorerKey, Metric: t.metric, Value: v.Value, Reason: reason})
}

// outOfScope says why a value fails the scorer's scope filter.
func outOfScope(sc *model.Scope, v *Value) string {
	if sc.TaskSpecificationKeys != nil && !contains(sc.TaskSpecificationKeys, v.TaskSpecificationKey) {
		return fmt.Sprintf("out of scope: task specification %q is not in task_specification_keys %s", v.TaskSpecificationKey, quoteList(sc.TaskSpecificationKeys))
	}
	return fmt.Sprintf("out of scope: scorer %q is not in scorer_keys %s", v.ScorerKey, quoteList(sc.ScorerKeys))
}

// Explain explains one scorer's score from src, as Score would compute it.
func Explain(ctx context.Context, src Source, methodologies map[string]*model.Methodology, s *model.RiskScorer) (*Explanation, error) {
	sc := newScoring(src, methodologies)
	e := &Explanation{
		Key: s.Key, DisplayName: s.DisplayName, Domain: s.Domain, Metric: s.Metric, Scope: s.Scope,
		Methodology: ExplainedMethod{Key: s.RiskScoringMethodologyKey},
		Runs:        []RunRef{}, Values: []ExplainedValue{}, Excluded: []ExcludedValue{},
		Aggregation: Aggregation{Kind: aggregationKind(s.Aggregation)}, Level: NoData,
	}
	if m := methodologies[s.RiskScoringMethodologyKey]; m != nil {
		e.Methodology = describeMethod(m, s.Config)
	}
	ev, err := sc.admit(s)
	if err != nil {
		e.Level, e.Error = Failed, err.Error()
		return e, nil
	}
	runs, err := sc.runsInScope(ctx, s)
	if err != nil {
		return nil, err
	}
	if runs == nil && s.Scope.MetricKeys != nil && !contains(s.Scope.MetricKeys, s.Metric) {
		if err := sc.excludeMetric(ctx, s, e); err != nil {
			return nil, err
		}
	}
	e.Runs = append(e.Runs, runs...)
	agg := newAggregator(s.Aggregation)
	_, evalErr, err := sc.evaluate(ctx, s, ev, runs, agg, explainTap{e: e, metric: s.Metric})
	if err != nil {
		return nil, err
	}
	if evalErr != nil {
		e.Level, e.Error = Failed, evalErr.Error()
		return e, nil
	}
	e.Aggregation = agg.explain()
	if score, ok := agg.score(); ok {
		e.Score = &score
		e.Level = LevelOf(score)
	}
	return e, nil
}

// excludeMetric lists the values of a scorer whose metric its own
// metric_keys leave out: every value of the metric in the latest runs.
func (sc *scoring) excludeMetric(ctx context.Context, s *model.RiskScorer, e *Explanation) error {
	wide := *s
	wide.Scope.MetricKeys = nil
	runs, err := sc.runsInScope(ctx, &wide)
	if err != nil {
		return err
	}
	reason := fmt.Sprintf("out of scope: metric %q is not in metric_keys %s", s.Metric, quoteList(s.Scope.MetricKeys))
	for _, run := range runs {
		vals, err := sc.valuesOf(ctx, run, s.Metric)
		if err != nil {
			return err
		}
		for i := range vals {
			explainTap{e: e, metric: s.Metric}.excluded(run, &vals[i], reason)
		}
	}
	return nil
}

func aggregationKind(kind string) string {
	if kind == "" {
		return "mean"
	}
	return kind
}

// explain describes the aggregate the way score computes it.
func (a *aggregator) explain() Aggregation {
	out := Aggregation{Kind: aggregationKind(a.kind), N: a.n}
	if a.n == 0 {
		out.Formula = "no value in scope: no score (no_data)"
		return out
	}
	v := a.value()
	out.Raw = v
	switch out.Kind {
	case "max", "min":
		out.Formula = fmt.Sprintf("%s of %d risk%s = %s", out.Kind, a.n, pluralS(a.n), num(v))
	default:
		out.Sum = v
		out.Raw = v / float64(a.n)
		out.Formula = fmt.Sprintf("mean = sum / n = %s / %d = %s", num(v), a.n, num(out.Raw))
	}
	score, _ := a.score()
	if out.Raw < 0 || out.Raw > 10 {
		out.Clamped = true
		out.Formula += fmt.Sprintf(", clamped to 0..10: %s", num(score))
	}
	return out
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// describeMethod gives a methodology's parameters as the scorer's config
// sets them and its function with them substituted.
func describeMethod(m *model.Methodology, config map[string]any) ExplainedMethod {
	out := ExplainedMethod{Key: m.Key, Function: m.Function, Variable: m.MetricVar(), Parameters: []ParamValue{}}
	params, _ := Params(m, config)
	for _, p := range m.ConfigSpec {
		v, ok := config[p.Key]
		pv := ParamValue{Key: p.Key, Configured: normalise(v), Default: !ok || v == nil, Used: params[p.Key]}
		if pv.Default {
			pv.Configured = normalise(p.DefaultValue)
		}
		out.Parameters = append(out.Parameters, pv)
	}
	out.Substituted = Substitute(m.Function, params)
	return out
}

// Substitute replaces each parameter named in function by its value
// (numbers as Go's shortest exact form, booleans as True and False, strings
// quoted); string literals and attribute names are left alone.
func Substitute(function string, params map[string]any) string {
	var b strings.Builder
	for i := 0; i < len(function); {
		c := function[i]
		switch {
		case c == '"' || c == '\'':
			j := skipString(function, i)
			b.WriteString(function[i:j])
			i = j
		case wordByte(function, i) && (c < '0' || c > '9'):
			j := i
			for wordByte(function, j) {
				j++
			}
			word := function[i:j]
			v, ok := params[word]
			if ok && (i == 0 || function[i-1] != '.') {
				b.WriteString(literal(v))
			} else {
				b.WriteString(word)
			}
			i = j
		case c >= '0' && c <= '9':
			j := i
			for identByte(function, j) {
				j++
			}
			b.WriteString(function[i:j])
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func literal(v any) string {
	switch x := v.(type) {
	case float64:
		if x < 0 {
			return "(" + num(x) + ")"
		}
		return num(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return strconv.Quote(x)
	}
	return fmt.Sprint(v)
}

func wordByte(s string, i int) bool {
	return i < len(s) && s[i] != '.' && identByte(s, i)
}
