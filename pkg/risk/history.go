package risk

import (
	"context"
	"sort"

	"github.com/lfcli/lf/pkg/model"
)

// TimedRun is a completed run and when it was created (RFC 3339, fixed
// width, so that text order is time order).
type TimedRun struct {
	RunRef
	CreatedAt string
}

// Timeline is what a history reads besides Source: the completed runs of
// evaluation keys in (created_at, id) order (every key when keys is nil).
type Timeline interface {
	RunTimeline(ctx context.Context, keys []string) ([]TimedRun, error)
}

// Point is a risk scorer's score from one moment on: at At, the runs in
// Changed entered its scope (each the new latest run of its evaluation
// key), and the scorer had Score and Level from the values of Runs.
type Point struct {
	At      string   `json:"at"`
	Changed []RunRef `json:"changed"`
	Score   *float64 `json:"score"`
	Level   Level    `json:"level"`
	Values  int      `json:"values"`
	Runs    []RunRef `json:"runs"`
	Error   string   `json:"error,omitempty"`
}

// History is a risk scorer's points, oldest first.
type History struct {
	Key         string  `json:"key"`
	DisplayName string  `json:"display_name"`
	Domain      string  `json:"domain"`
	Points      []Point `json:"points"`
	Error       string  `json:"error,omitempty"` // the scorer cannot be scored at all (its methodology)
}

// Histories computes the history of each scorer: one point per moment at
// which a run entered its scope, each scored exactly as the overview as of
// that moment scores it (same runs, same order, same aggregation). Values
// are read and evaluated once per run however many points use them.
func Histories(ctx context.Context, src Source, tl Timeline, methodologies map[string]*model.Methodology, scorers []*model.RiskScorer) ([]History, error) {
	sc := newScoring(src, methodologies)
	var all []TimedRun
	allLoaded := false
	out := make([]History, len(scorers))
	// Scorers of one metric share the values read for it; only one
	// metric's values are held at a time.
	order := make([]int, len(scorers))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scorers[order[a]].Metric < scorers[order[b]].Metric })
	metric := ""
	for _, i := range order {
		s := scorers[i]
		if s.Metric != metric {
			metric, sc.values = s.Metric, map[valuesKey][]Value{}
		}
		h := History{Key: s.Key, DisplayName: s.DisplayName, Domain: s.Domain, Points: []Point{}}
		ev, err := sc.admit(s)
		if err != nil {
			h.Error = err.Error()
			out[i] = h
			continue
		}
		var runs []TimedRun
		every := s.Scope.AllLatest || s.Scope.EvaluationKeys == nil
		if every {
			if !allLoaded {
				if all, err = tl.RunTimeline(ctx, nil); err != nil {
					return nil, err
				}
				allLoaded = true
			}
			runs = all
		} else if runs, err = tl.RunTimeline(ctx, s.Scope.EvaluationKeys); err != nil {
			return nil, err
		}
		if h.Points, err = sc.history(ctx, s, ev, runs, every); err != nil {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}

// risks is what one run gives a scorer: the function's value for each of
// its values in scope, in order, or the first evaluation error.
type risks struct {
	xs  []float64
	err error
}

// history walks the timeline of a scorer's runs, one point per distinct
// created_at.
func (sc *scoring) history(ctx context.Context, s *model.RiskScorer, ev *Evaluator, runs []TimedRun, every bool) ([]Point, error) {
	latest := map[string]RunRef{}
	cache := map[RunRef]*risks{}
	metricOut := s.Scope.MetricKeys != nil && !contains(s.Scope.MetricKeys, s.Metric)
	points := []Point{}
	for i := 0; i < len(runs); {
		j := i
		p := Point{At: runs[i].CreatedAt, Changed: []RunRef{}, Runs: []RunRef{}, Level: NoData}
		for ; j < len(runs) && runs[j].CreatedAt == runs[i].CreatedAt; j++ {
			latest[runs[j].EvaluationKey] = runs[j].RunRef
			p.Changed = append(p.Changed, runs[j].RunRef)
		}
		i = j
		if !metricOut {
			if err := sc.scorePoint(ctx, s, ev, sc.order(s, latest, every), cache, &p); err != nil {
				return nil, err
			}
		}
		points = append(points, p)
	}
	return points, nil
}

// order lists the latest runs in the order Score takes them: by evaluation
// key for every key, else in the order of the scope's evaluation_keys.
func (sc *scoring) order(s *model.RiskScorer, latest map[string]RunRef, every bool) []RunRef {
	var out []RunRef
	if every {
		for _, r := range latest {
			out = append(out, r)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].EvaluationKey < out[j].EvaluationKey })
		return out
	}
	for _, k := range s.Scope.EvaluationKeys {
		if r, ok := latest[k]; ok {
			out = append(out, r)
		}
	}
	return out
}

// scorePoint aggregates the risks of runs into p as Score does.
func (sc *scoring) scorePoint(ctx context.Context, s *model.RiskScorer, ev *Evaluator, runs []RunRef, cache map[RunRef]*risks, p *Point) error {
	agg := newAggregator(s.Aggregation)
	for _, run := range runs {
		rk := cache[run]
		if rk == nil {
			vals, err := sc.valuesOf(ctx, run, s.Metric)
			if err != nil {
				return err
			}
			rk = &risks{}
			var one aggregator
			_, rk.err = evalValues(s, ev, run, vals, &one, collect{rk})
			cache[run] = rk
		}
		if rk.err != nil {
			p.Level, p.Error = Failed, rk.err.Error()
			p.Runs, p.Values = []RunRef{}, 0
			return nil
		}
		for _, x := range rk.xs {
			agg.add(x)
		}
		if len(rk.xs) > 0 {
			p.Runs = append(p.Runs, run)
		}
	}
	p.Values = agg.n
	if score, ok := agg.score(); ok {
		p.Score = &score
		p.Level = LevelOf(score)
	}
	sortRuns(p.Runs)
	return nil
}

// collect keeps the risks a run gives (history's tap).
type collect struct{ rk *risks }

func (c collect) scored(_ RunRef, _ *Value, risk float64) { c.rk.xs = append(c.rk.xs, risk) }

func (c collect) excluded(RunRef, *Value, string) {}
