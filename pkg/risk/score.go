package risk

import (
	"context"
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
func Score(ctx context.Context, src Source, methodologies map[string]*model.Methodology, scorers []*model.RiskScorer) ([]Result, error) {
	var all []RunRef
	allLoaded := false
	latest := map[string]*RunRef{}
	type vkey struct {
		run    RunRef
		metric string
	}
	cache := map[vkey][]Value{}
	formulas := map[string]*Formula{}
	bound := map[string]*Evaluator{} // scorers with the same methodology and config share one program

	out := make([]Result, 0, len(scorers))
	for _, s := range scorers {
		r := Result{Key: s.Key, DisplayName: s.DisplayName, Domain: s.Domain, RiskScoringMethodologyKey: s.RiskScoringMethodologyKey,
			Metric: s.Metric, Aggregation: s.Aggregation, Level: NoData, Runs: []RunRef{}}
		m := methodologies[s.RiskScoringMethodologyKey]
		if m == nil {
			r.Level, r.Error = Failed, fmt.Sprintf("methodology %q not found", s.RiskScoringMethodologyKey)
			out = append(out, r)
			continue
		}
		f := formulas[m.Key]
		if f == nil {
			var err error
			if f, err = Compile(m); err != nil {
				r.Level, r.Error = Failed, fmt.Sprintf("methodology %q: %v", m.Key, err)
				out = append(out, r)
				continue
			}
			formulas[m.Key] = f
		}
		params, probs := Params(m, s.Config)
		if len(probs) > 0 {
			r.Level, r.Error = Failed, probs[0].Msg
			out = append(out, r)
			continue
		}
		// Runs in scope.
		var runs []RunRef
		if s.Scope.AllLatest || s.Scope.EvaluationKeys == nil {
			if !allLoaded {
				var err error
				if all, err = src.LatestRuns(ctx, nil); err != nil {
					return nil, err
				}
				for i := range all {
					latest[all[i].EvaluationKey] = &all[i]
				}
				allLoaded = true
			}
			runs = all
		} else {
			var missing []string
			for _, k := range s.Scope.EvaluationKeys {
				if _, ok := latest[k]; !ok && !allLoaded {
					missing = append(missing, k)
				}
			}
			if len(missing) > 0 {
				got, err := src.LatestRuns(ctx, missing)
				if err != nil {
					return nil, err
				}
				for _, k := range missing {
					latest[k] = nil
				}
				for i := range got {
					latest[got[i].EvaluationKey] = &got[i]
				}
			}
			for _, k := range s.Scope.EvaluationKeys {
				if ref := latest[k]; ref != nil {
					runs = append(runs, *ref)
				}
			}
		}
		if s.Scope.MetricKeys != nil && !contains(s.Scope.MetricKeys, s.Metric) {
			runs = nil
		}
		bkey := bindKey(m.Key, params)
		ev, ok := bound[bkey]
		var err error
		if !ok {
			ev, err = f.Bind(params)
			bound[bkey] = ev
		}
		if err != nil {
			r.Level, r.Error = Failed, fmt.Sprintf("methodology %q: %v", m.Key, err)
			out = append(out, r)
			continue
		}
		var agg float64
		var n int
		var evalErr error
		for _, run := range runs {
			vk := vkey{run, s.Metric}
			vals, ok := cache[vk]
			if !ok {
				var err error
				if vals, err = src.Values(ctx, run, s.Metric); err != nil {
					return nil, err
				}
				cache[vk] = vals
			}
			used := false
			for _, v := range vals {
				if s.Scope.TaskSpecificationKeys != nil && !contains(s.Scope.TaskSpecificationKeys, v.TaskSpecificationKey) {
					continue
				}
				if s.Scope.ScorerKeys != nil && !contains(s.Scope.ScorerKeys, v.ScorerKey) {
					continue
				}
				x, err := ev.Eval(v.Value)
				if err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
					err = fmt.Errorf("function gave %v for %s = %v", x, s.Metric, v.Value)
				}
				if err != nil {
					evalErr = err
					break
				}
				switch {
				case n == 0:
					agg = x
				case s.Aggregation == "max":
					agg = math.Max(agg, x)
				case s.Aggregation == "min":
					agg = math.Min(agg, x)
				default:
					agg += x
				}
				n++
				used = true
			}
			if evalErr != nil {
				break
			}
			if used {
				r.Runs = append(r.Runs, run)
			}
		}
		if evalErr != nil {
			r.Level, r.Error = Failed, evalErr.Error()
			out = append(out, r)
			continue
		}
		r.Values = n
		if n > 0 {
			if s.Aggregation == "mean" || s.Aggregation == "" {
				agg /= float64(n)
			}
			// Rounding to 1e-9 drops float noise (0.7999999999999998) from reports.
			score := math.Round(math.Min(10, math.Max(0, agg))*1e9) / 1e9
			r.Score = &score
			r.Level = LevelOf(score)
		}
		sort.Slice(r.Runs, func(i, j int) bool {
			if r.Runs[i].EvaluationKey != r.Runs[j].EvaluationKey {
				return r.Runs[i].EvaluationKey < r.Runs[j].EvaluationKey
			}
			return r.Runs[i].ID < r.Runs[j].ID
		})
		out = append(out, r)
	}
	return out, nil
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
