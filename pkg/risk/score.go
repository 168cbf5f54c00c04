package risk

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/lfcli/lf/pkg/model"
)

// Level is a risk level.
type Level string

// Risk levels. NoData is the level of a risk scorer with no value in scope.
const (
	Low      Level = "low"
	Medium   Level = "medium"
	High     Level = "high"
	Critical Level = "critical"
	NoData   Level = "no_data"
	Failed   Level = "error"
)

// Levels in increasing order of risk, for --fail-on.
var Levels = []Level{Low, Medium, High, Critical}

// Rank orders levels by risk (no_data and error rank below low).
func (l Level) Rank() int {
	for i, x := range Levels {
		if x == l {
			return i + 1
		}
	}
	return 0
}

// LevelOf maps a 0-10 score to its level: low up to 2, medium up to 4,
// high up to 9, critical above 9.
func LevelOf(score float64) Level {
	switch {
	case score <= 2:
		return Low
	case score <= 4:
		return Medium
	case score <= 9:
		return High
	}
	return Critical
}

// RunRef names one evaluation run.
type RunRef = model.RunRef

// Value is one metric value of a run (a model type, so that the store
// needs no domain package).
type Value = model.MetricValue

// Source is where scoring reads runs from (the store).
type Source interface {
	// LatestRuns returns the latest completed run of each evaluation key in
	// keys, or of every evaluation key when keys is nil.
	LatestRuns(ctx context.Context, keys []string) ([]RunRef, error)
	// Values returns the values of metric in run.
	Values(ctx context.Context, run RunRef, metric string) ([]Value, error)
}

// Result is a risk scorer's score.
type Result struct {
	Key                       string   `json:"key"`
	DisplayName               string   `json:"display_name"`
	Domain                    string   `json:"domain"`
	RiskScoringMethodologyKey string   `json:"risk_scoring_methodology_key"`
	Metric                    string   `json:"metric"`
	Aggregation               string   `json:"aggregation"`
	Score                     *float64 `json:"score"`
	Level                     Level    `json:"level"`
	Values                    int      `json:"values"`
	Runs                      []RunRef `json:"runs"`
	Error                     string   `json:"error,omitempty"`
}

// Score computes every scorer's score from the latest runs in its scope.
// Values are read once per (run, metric) however many scorers share them, so
// the cost grows with the values in scope, not with stored history.
//
// Each scorer goes through four steps: admission (its methodology exists,
// compiles and accepts its config), run choice (the latest runs in its scope),
// evaluation (the function on each value that passes the scope filter) and
// aggregation (mean, max or min, clamped to 0..10, then a level).
func Score(ctx context.Context, src Source, methodologies map[string]*model.Methodology, scorers []*model.RiskScorer) ([]Result, error) {
	sc := newScoring(src, methodologies)
	out := make([]Result, 0, len(scorers))
	for _, s := range scorers {
		r, err := sc.score(ctx, s)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// scoring is what the scorers of one Score call share: the latest runs, the
// values read per (run, metric), compiled formulas and bound evaluators.
type scoring struct {
	src           Source
	methodologies map[string]*model.Methodology
	latest        latestRuns
	values        map[valuesKey][]Value
	formulas      map[string]*Formula
	bound         map[string]boundResult // scorers with the same methodology and config share one program
}

type valuesKey struct {
	run    RunRef
	metric string
}

type boundResult struct {
	ev  *Evaluator
	err error
}

func newScoring(src Source, methodologies map[string]*model.Methodology) *scoring {
	return &scoring{
		src:           src,
		methodologies: methodologies,
		latest:        latestRuns{byKey: map[string]*RunRef{}},
		values:        map[valuesKey][]Value{},
		formulas:      map[string]*Formula{},
		bound:         map[string]boundResult{},
	}
}

// score runs one scorer through admission, run choice, evaluation and
// aggregation. A problem with the scorer is its Result's error; only a store
// error is returned.
func (sc *scoring) score(ctx context.Context, s *model.RiskScorer) (Result, error) {
	r := Result{
		Key: s.Key, DisplayName: s.DisplayName, Domain: s.Domain, RiskScoringMethodologyKey: s.RiskScoringMethodologyKey,
		Metric: s.Metric, Aggregation: s.Aggregation, Level: NoData, Runs: []RunRef{},
	}
	ev, err := sc.admit(s)
	if err != nil {
		r.Level, r.Error = Failed, err.Error()
		return r, nil
	}
	runs, err := sc.runsInScope(ctx, s)
	if err != nil {
		return r, err
	}
	agg := newAggregator(s.Aggregation)
	used, evalErr, err := sc.evaluate(ctx, s, ev, runs, agg, nil)
	if err != nil {
		return r, err
	}
	if evalErr != nil {
		r.Level, r.Error = Failed, evalErr.Error()
		return r, nil
	}
	r.Values = agg.n
	if score, ok := agg.score(); ok {
		r.Score = &score
		r.Level = LevelOf(score)
	}
	r.Runs = append(r.Runs, used...)
	sortRuns(r.Runs)
	return r, nil
}

// admit returns the evaluator of a scorer: its methodology exists, its
// function compiles, its config fits the methodology's config_spec.
func (sc *scoring) admit(s *model.RiskScorer) (*Evaluator, error) {
	m := sc.methodologies[s.RiskScoringMethodologyKey]
	if m == nil {
		return nil, fmt.Errorf("methodology %q not found", s.RiskScoringMethodologyKey)
	}
	f := sc.formulas[m.Key]
	if f == nil {
		var err error
		if f, err = Compile(m); err != nil {
			return nil, fmt.Errorf("methodology %q: %v", m.Key, err)
		}
		sc.formulas[m.Key] = f
	}
	params, probs := Params(m, s.Config)
	if len(probs) > 0 {
		return nil, errors.New(probs[0].Msg)
	}
	bkey := bindKey(m.Key, params)
	b, ok := sc.bound[bkey]
	if !ok {
		b.ev, b.err = f.Bind(params)
		sc.bound[bkey] = b
	}
	if b.err != nil {
		return nil, fmt.Errorf("methodology %q: %v", m.Key, b.err)
	}
	return b.ev, nil
}

// latestRuns caches the latest completed run per evaluation key; a nil entry
// means the key has no run.
type latestRuns struct {
	all       []RunRef
	allLoaded bool
	byKey     map[string]*RunRef
}

// runsInScope chooses a scorer's runs: the latest run of every evaluation key
// (all_latest or no evaluation_keys) or of the listed keys, none when the
// scorer's metric is outside metric_keys.
func (sc *scoring) runsInScope(ctx context.Context, s *model.RiskScorer) ([]RunRef, error) {
	var runs []RunRef
	var err error
	if s.Scope.AllLatest || s.Scope.EvaluationKeys == nil {
		runs, err = sc.latest.everyKey(ctx, sc.src)
	} else {
		runs, err = sc.latest.ofKeys(ctx, sc.src, s.Scope.EvaluationKeys)
	}
	if err != nil {
		return nil, err
	}
	if s.Scope.MetricKeys != nil && !contains(s.Scope.MetricKeys, s.Metric) {
		return nil, nil
	}
	return runs, nil
}

// everyKey returns the latest run of every evaluation key, read once.
func (l *latestRuns) everyKey(ctx context.Context, src Source) ([]RunRef, error) {
	if !l.allLoaded {
		all, err := src.LatestRuns(ctx, nil)
		if err != nil {
			return nil, err
		}
		l.all = all
		for i := range l.all {
			l.byKey[l.all[i].EvaluationKey] = &l.all[i]
		}
		l.allLoaded = true
	}
	return l.all, nil
}

// ofKeys returns the latest run of each key that has one, in the order of
// keys, reading only the keys not seen before.
func (l *latestRuns) ofKeys(ctx context.Context, src Source, keys []string) ([]RunRef, error) {
	var missing []string
	for _, k := range keys {
		if _, ok := l.byKey[k]; !ok && !l.allLoaded {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		got, err := src.LatestRuns(ctx, missing)
		if err != nil {
			return nil, err
		}
		for _, k := range missing {
			l.byKey[k] = nil
		}
		for i := range got {
			l.byKey[got[i].EvaluationKey] = &got[i]
		}
	}
	var runs []RunRef
	for _, k := range keys {
		if ref := l.byKey[k]; ref != nil {
			runs = append(runs, *ref)
		}
	}
	return runs, nil
}

// inScope reports whether a value passes the scorer's task specification and
// scorer filters (an absent list does not filter).
func inScope(sc *model.Scope, v *Value) bool {
	if sc.TaskSpecificationKeys != nil && !contains(sc.TaskSpecificationKeys, v.TaskSpecificationKey) {
		return false
	}
	return sc.ScorerKeys == nil || contains(sc.ScorerKeys, v.ScorerKey)
}

// evaluate applies the scorer's function to every value of its metric in
// runs that passes the scope filter, feeding agg, and returns the runs that
// gave a value. evalErr is the first value the function fails on (or maps to
// NaN or an infinity); err is a store error. seen, when not nil, is told
// every value of the metric in runs: its risk, or why it was left out.
func (sc *scoring) evaluate(ctx context.Context, s *model.RiskScorer, ev *Evaluator, runs []RunRef, agg *aggregator, seen observer) (used []RunRef, evalErr, err error) {
	for _, run := range runs {
		vals, err := sc.valuesOf(ctx, run, s.Metric)
		if err != nil {
			return nil, nil, err
		}
		gave, evalErr := evalValues(s, ev, run, vals, agg, seen)
		if evalErr != nil {
			return nil, evalErr, nil
		}
		if gave {
			used = append(used, run)
		}
	}
	return used, nil, nil
}

// evalValues applies the function to each value of run that passes the
// scope filter, feeding agg (and seen, when not nil), and reports whether
// any did; evalErr is the first value the function fails on (or maps to
// NaN or an infinity).
func evalValues(s *model.RiskScorer, ev *Evaluator, run RunRef, vals []Value, agg *aggregator, seen observer) (gave bool, evalErr error) {
	for i := range vals {
		v := &vals[i]
		if !inScope(&s.Scope, v) {
			if seen != nil {
				seen.excluded(run, v, outOfScope(&s.Scope, v))
			}
			continue
		}
		x, err := ev.Eval(v.Value)
		if err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
			err = fmt.Errorf("function gave %v for %s = %v", x, s.Metric, v.Value)
		}
		if err != nil {
			if seen != nil {
				seen.excluded(run, v, "the function failed: "+err.Error())
			}
			return gave, err
		}
		agg.add(x)
		if seen != nil {
			seen.scored(run, v, x)
		}
		gave = true
	}
	return gave, nil
}

// valuesOf reads the values of metric in run once per Score call.
func (sc *scoring) valuesOf(ctx context.Context, run RunRef, metric string) ([]Value, error) {
	k := valuesKey{run, metric}
	if vals, ok := sc.values[k]; ok {
		return vals, nil
	}
	vals, err := sc.src.Values(ctx, run, metric)
	if err != nil {
		return nil, err
	}
	sc.values[k] = vals
	return vals, nil
}

// aggregator combines the function's values of one risk scorer as its
// aggregation says: "mean" (also when absent), "max" or "min". Values are
// added one at a time, so no slice of them is kept. A mean's sum is exact
// (exactSum), so that it does not depend on the order of the values: the
// history adds whole runs' partial sums and gets the same score.
type aggregator struct {
	kind string
	acc  float64  // max or min
	sum  exactSum // mean
	n    int
}

func newAggregator(kind string) *aggregator { return &aggregator{kind: kind} }

// mean reports whether the aggregator sums (a mean, or an aggregation the
// schema does not allow, which is summed and not divided, as before).
func (a *aggregator) mean() bool { return a.kind != "max" && a.kind != "min" }

// add takes one value of the function.
func (a *aggregator) add(x float64) {
	switch {
	case a.mean():
		a.sum.add(x)
	case a.n == 0:
		a.acc = x
	case a.kind == "max":
		a.acc = math.Max(a.acc, x)
	default:
		a.acc = math.Min(a.acc, x)
	}
	a.n++
}

// value is the aggregate before the mean's division: the sum (rounded once)
// or the max or min.
func (a *aggregator) value() float64 {
	if a.mean() {
		return a.sum.float64()
	}
	return a.acc
}

// score returns the aggregate clamped to 0..10, or false when no value was
// added.
func (a *aggregator) score() (float64, bool) {
	if a.n == 0 {
		return 0, false
	}
	agg := a.value()
	if a.kind == "mean" || a.kind == "" {
		agg /= float64(a.n)
	}
	// Rounding to 1e-9 drops float noise (0.7999999999999998) from reports.
	return math.Round(math.Min(10, math.Max(0, agg))*1e9) / 1e9, true
}

func sortRuns(runs []RunRef) {
	sort.Slice(runs, func(i, j int) bool {
		if runs[i].EvaluationKey != runs[j].EvaluationKey {
			return runs[i].EvaluationKey < runs[j].EvaluationKey
		}
		return runs[i].ID < runs[j].ID
	})
}

func bindKey(methodology string, params map[string]any) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(methodology)
	for _, k := range keys {
		fmt.Fprintf(&b, "\x00%s=%T:%v", k, params[k], params[k])
	}
	return b.String()
}
