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
// that moment scores it (same runs, same aggregation). A point adds up the
// partials of its runs (what each run gives the scorer); a run's partial is
// computed once from its values, and kept when tl is also a PartialStore,
// so that the next history reads it instead of the values.
func Histories(ctx context.Context, src Source, tl Timeline, methodologies map[string]*model.Methodology, scorers []*model.RiskScorer) ([]History, error) {
	sc := newScoring(src, methodologies)
	ps, _ := tl.(PartialStore)
	var all []TimedRun
	allLoaded := false
	out := make([]History, len(scorers))
	evs := make([]*Evaluator, len(scorers))
	sigs := make([]string, len(scorers))
	errs := make([]error, len(scorers))
	for i, s := range scorers {
		if evs[i], errs[i] = sc.admit(s); errs[i] == nil {
			m := methodologies[s.RiskScoringMethodologyKey]
			params, _ := Params(m, s.Config)
			sigs[i] = Signature(m, params, s)
		}
	}
	// Scorers of one metric share the values read for it, scorers of one
	// signature their partials; only one metric's values and one
	// signature's partials are held at a time.
	order := make([]int, len(scorers))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		sa, sb := scorers[order[a]], scorers[order[b]]
		if sa.Metric != sb.Metric {
			return sa.Metric < sb.Metric
		}
		return sigs[order[a]] < sigs[order[b]]
	})
	metric := ""
	var parts *partialSet
	for _, i := range order {
		s := scorers[i]
		if s.Metric != metric {
			metric, sc.values = s.Metric, map[valuesKey][]Value{}
		}
		h := History{Key: s.Key, DisplayName: s.DisplayName, Domain: s.Domain, Points: []Point{}}
		if errs[i] != nil {
			h.Error = errs[i].Error()
			out[i] = h
			continue
		}
		if parts == nil || parts.sig != sigs[i] {
			parts = &partialSet{sig: sigs[i], have: map[RunRef]*partial{}}
		}
		var runs []TimedRun
		var err error
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
		metricOut := s.Scope.MetricKeys != nil && !contains(s.Scope.MetricKeys, s.Metric)
		if !metricOut {
			if err := parts.fill(ctx, sc, ps, s, evs[i], runs); err != nil {
				return nil, err
			}
		}
		h.Points = sc.history(s, runs, every, metricOut, parts.have)
		out[i] = h
	}
	return out, nil
}

// partialSet is the partials of one signature, by run.
type partialSet struct {
	sig    string
	have   map[RunRef]*partial
	loaded bool
}

// fill makes sure every run of runs has its partial: kept in ps, or
// computed from the run's values (and then kept in ps). Keeping is best
// effort: a store that cannot take them (read-only, busy) costs the next
// history the values again, nothing else.
func (set *partialSet) fill(ctx context.Context, sc *scoring, ps PartialStore, s *model.RiskScorer, ev *Evaluator, runs []TimedRun) error {
	if !set.loaded && ps != nil {
		kept, err := ps.RiskPartials(ctx, set.sig)
		if err != nil {
			return err
		}
		for run, b := range kept {
			if p, err := decodePartial(b); err == nil {
				set.have[run] = p
			}
		}
	}
	set.loaded = true
	var fresh map[RunRef][]byte
	for _, r := range runs {
		if set.have[r.RunRef] != nil {
			continue
		}
		vals, err := sc.valuesOf(ctx, r.RunRef, s.Metric)
		if err != nil {
			return err
		}
		p := partialOf(s, ev, r.RunRef, vals)
		set.have[r.RunRef] = p
		if ps != nil {
			if fresh == nil {
				fresh = map[RunRef][]byte{}
			}
			fresh[r.RunRef] = p.encode()
		}
	}
	if len(fresh) > 0 {
		_ = ps.PutRiskPartials(ctx, set.sig, fresh)
	}
	return nil
}

// history walks the timeline of a scorer's runs, one point per distinct
// created_at.
func (sc *scoring) history(s *model.RiskScorer, runs []TimedRun, every, metricOut bool, parts map[RunRef]*partial) []Point {
	latest := map[string]RunRef{}
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
			scorePoint(s, sc.order(s, latest, every), parts, &p)
		}
		points = append(points, p)
	}
	return points
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

// scorePoint aggregates the partials of runs into p as Score aggregates
// their values.
func scorePoint(s *model.RiskScorer, runs []RunRef, parts map[RunRef]*partial, p *Point) {
	agg := newAggregator(s.Aggregation)
	for _, run := range runs {
		rp := parts[run]
		if rp.err != "" {
			p.Level, p.Error = Failed, rp.err
			p.Runs, p.Values = []RunRef{}, 0
			return
		}
		agg.merge(rp)
		if rp.n > 0 {
			p.Runs = append(p.Runs, run)
		}
	}
	p.Values = agg.n
	if score, ok := agg.score(); ok {
		p.Score = &score
		p.Level = LevelOf(score)
	}
	sortRuns(p.Runs)
}
