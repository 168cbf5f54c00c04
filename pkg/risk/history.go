package risk

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/lfcli/lf/pkg/model"
)

// TimedRun is a completed run and when it was created (RFC 3339, fixed
// width, so that text order is time order).
type TimedRun struct {
	RunRef
	CreatedAt string
}

// Timeline is what a history reads besides Source: the completed runs of
// evaluation keys in (created_at, id) order (every key when keys is nil),
// in a slice the history may reorder.
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
// so that the next history reads it instead of the values. Scorers that
// differ only in aggregation (or key, domain) share their walk through
// time, and their points share the Changed and Runs slices: callers must
// not modify them.
func Histories(ctx context.Context, src Source, tl Timeline, methodologies map[string]*model.Methodology, scorers []*model.RiskScorer) ([]History, error) {
	hn := &historian{sc: newScoring(src, methodologies), tl: tl}
	hn.ps, _ = tl.(PartialStore)
	out := make([]History, len(scorers))
	evs := make([]*Evaluator, len(scorers))
	sigs := make([]string, len(scorers))
	errs := make([]error, len(scorers))
	keyed := 0
	for i, s := range scorers {
		if evs[i], errs[i] = hn.sc.admit(s); errs[i] == nil {
			m := methodologies[s.RiskScoringMethodologyKey]
			params, _ := Params(m, s.Config)
			sigs[i] = Signature(m, params, s)
		}
		if !everyKey(s) {
			keyed++
		}
	}
	// Many scorers over listed keys read the whole timeline once instead
	// of one query each.
	hn.fromAll = keyed > 2
	// Scorers of one metric share the values read for it, scorers of one
	// signature their partials and walks; only one metric's values and one
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
	for _, i := range order {
		s := scorers[i]
		if s.Metric != metric {
			metric, hn.sc.values = s.Metric, map[valuesKey][]Value{}
		}
		h := History{Key: s.Key, DisplayName: s.DisplayName, Domain: s.Domain, Points: []Point{}}
		if errs[i] != nil {
			h.Error = errs[i].Error()
			out[i] = h
			continue
		}
		if hn.parts == nil || hn.parts.sig != sigs[i] {
			hn.parts = &partialSet{sig: sigs[i], have: map[RunRef]*partial{}}
			hn.walks = map[string][]pointState{}
		}
		walk, err := hn.walk(ctx, s, evs[i])
		if err != nil {
			return nil, err
		}
		h.Points = pointsOf(s, walk)
		out[i] = h
	}
	return out, nil
}

func everyKey(s *model.RiskScorer) bool { return s.Scope.AllLatest || s.Scope.EvaluationKeys == nil }

// historian is what the histories of one Histories call share.
type historian struct {
	sc      *scoring
	tl      Timeline
	ps      PartialStore
	fromAll bool             // keyed scorers' timelines come from the whole one
	all     []TimedRun       // the whole timeline, once read
	byKey   map[string][]int // indexes into all by evaluation key, once needed
	parts   *partialSet      // the current signature's partials
	walks   map[string][]pointState
}

// pointState is one moment of a walk through a scorer's timeline: the runs
// that entered its scope then, and what the latest runs in scope add up to
// (the partials merged, or the first error), whatever the aggregation.
type pointState struct {
	at       string
	changed  []RunRef
	runs     []RunRef // the runs that gave a value, sorted
	n        int
	sum      float64 // the exact sum of the values' risks, rounded once
	min, max float64
	err      string // the first failing run's error, in the order Score takes runs
}

// walk returns the states of scorer s's timeline, computed once per
// signature and scope.
func (hn *historian) walk(ctx context.Context, s *model.RiskScorer, ev *Evaluator) ([]pointState, error) {
	every := everyKey(s)
	metricOut := s.Scope.MetricKeys != nil && !contains(s.Scope.MetricKeys, s.Metric)
	scope := "*"
	if !every {
		scope = "=" + strings.Join(s.Scope.EvaluationKeys, "\x00")
	}
	if metricOut {
		scope = "-" + scope
	}
	if w, ok := hn.walks[scope]; ok {
		return w, nil
	}
	var keys []string // the kept partials to read: every run's, or those of s's keys
	if !every && !hn.fromAll {
		keys = s.Scope.EvaluationKeys
	}
	// The kept partials are read while the timeline is (two reads of
	// about a row per run, on two connections).
	read := make(chan error, 1)
	if metricOut {
		read <- nil
	} else {
		go func() { read <- hn.parts.read(ctx, hn.ps, keys) }()
	}
	runs, err := hn.timeline(ctx, s)
	if readErr := <-read; err == nil {
		err = readErr
	}
	if err != nil {
		return nil, err
	}
	if !metricOut {
		if err := hn.parts.fill(ctx, hn.sc, hn.ps, s, ev, runs, keys); err != nil {
			return nil, err
		}
	}
	w := hn.sc.states(s, runs, every, metricOut, hn.parts.have)
	hn.walks[scope] = w
	return w, nil
}

// timeline returns the completed runs in s's scope in (created_at, id,
// evaluation key) order.
func (hn *historian) timeline(ctx context.Context, s *model.RiskScorer) ([]TimedRun, error) {
	every := everyKey(s)
	if !every && !hn.fromAll {
		runs, err := hn.tl.RunTimeline(ctx, s.Scope.EvaluationKeys)
		sortTimeline(runs)
		return runs, err
	}
	if hn.all == nil {
		all, err := hn.tl.RunTimeline(ctx, nil)
		if err != nil {
			return nil, err
		}
		hn.all = all
		sortTimeline(hn.all)
	}
	if every {
		return hn.all, nil
	}
	if hn.byKey == nil {
		hn.byKey = map[string][]int{}
		for i, r := range hn.all {
			hn.byKey[r.EvaluationKey] = append(hn.byKey[r.EvaluationKey], i)
		}
	}
	// The runs of the scope's keys, in the order of the whole timeline.
	var at []int
	seen := map[string]bool{}
	for _, k := range s.Scope.EvaluationKeys {
		if !seen[k] {
			seen[k] = true
			at = append(at, hn.byKey[k]...)
		}
	}
	slices.Sort(at)
	out := make([]TimedRun, len(at))
	for i, j := range at {
		out[i] = hn.all[j]
	}
	return out, nil
}

// sortTimeline puts runs in (created_at, id, evaluation key) order, byte
// by byte whatever a database's collation (a store lists them so already,
// mostly: then this is one pass).
func sortTimeline(runs []TimedRun) {
	byTime := func(a, b TimedRun) int {
		if c := strings.Compare(a.CreatedAt, b.CreatedAt); c != 0 {
			return c
		}
		if c := strings.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return strings.Compare(a.EvaluationKey, b.EvaluationKey)
	}
	if !slices.IsSortedFunc(runs, byTime) {
		slices.SortStableFunc(runs, byTime)
	}
}

// partialSet is the partials of one signature, by run.
type partialSet struct {
	sig    string
	have   map[RunRef]*partial
	loaded bool            // every kept partial was read
	keys   map[string]bool // the evaluation keys whose kept partials were read
}

// fill makes sure every run of runs has its partial: kept in ps, or
// computed from the run's values (and then kept in ps). Keeping is best
// effort: a store that cannot take them (read-only, busy) costs the next
// history the values again, nothing else.
func (set *partialSet) fill(ctx context.Context, sc *scoring, ps PartialStore, s *model.RiskScorer, ev *Evaluator, runs []TimedRun, keys []string) error {
	if err := set.read(ctx, ps, keys); err != nil {
		return err
	}
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

// read reads the kept partials of the runs of keys (every run when keys is
// nil) that were not read yet.
func (set *partialSet) read(ctx context.Context, ps PartialStore, keys []string) error {
	if ps == nil || set.loaded {
		return nil
	}
	var want []string
	if keys != nil {
		if set.keys == nil {
			set.keys = map[string]bool{}
		}
		for _, k := range keys {
			if !set.keys[k] {
				set.keys[k] = true
				want = append(want, k)
			}
		}
		if len(want) == 0 {
			return nil
		}
	}
	kept, err := ps.RiskPartials(ctx, set.sig, want)
	if err != nil {
		return err
	}
	if len(set.have) == 0 {
		set.have = make(map[RunRef]*partial, len(kept))
	}
	decoded := make([]partial, len(kept)) // one allocation for them all
	i := 0
	for run, b := range kept {
		if decodePartialInto(&decoded[i], b) == nil {
			set.have[run] = &decoded[i]
			i++
		} else {
			decoded[i] = partial{}
		}
	}
	set.loaded = keys == nil
	return nil
}

// states walks the timeline of a scorer's runs, one state per distinct
// created_at.
func (sc *scoring) states(s *model.RiskScorer, runs []TimedRun, every, metricOut bool, parts map[RunRef]*partial) []pointState {
	in := newLatestInScope(s, runs, every)
	var out []pointState
	for i := 0; i < len(runs); {
		j := i
		st := pointState{at: runs[i].CreatedAt, changed: []RunRef{}, runs: []RunRef{}}
		for ; j < len(runs) && runs[j].CreatedAt == runs[i].CreatedAt; j++ {
			if !metricOut {
				in.set(runs[j].RunRef, parts[runs[j].RunRef])
			}
			st.changed = append(st.changed, runs[j].RunRef)
		}
		i = j
		if !metricOut {
			in.state(&st)
		}
		out = append(out, st)
	}
	return out
}

// latestInScope is the latest run of each evaluation key in a scorer's scope
// during a walk, in slots in the order Score takes them (by evaluation key
// for every key, else the order of the scope's evaluation_keys, a key
// listed twice taking two slots), with the running count and exact sum of
// their partials: a moment changes the slots of its runs only, and its
// sum is the running one, not every partial added again.
type latestInScope struct {
	slots map[string][]int // an evaluation key's slots
	runs  []RunRef
	parts []*partial
	n     int
	sum   exactSum // of the partials without an error
	errs  int      // partials with an error
}

func newLatestInScope(s *model.RiskScorer, runs []TimedRun, every bool) *latestInScope {
	var keys []string
	if every {
		seen := map[string]bool{}
		for _, r := range runs {
			if !seen[r.EvaluationKey] {
				seen[r.EvaluationKey] = true
				keys = append(keys, r.EvaluationKey)
			}
		}
		sort.Strings(keys)
	} else {
		keys = s.Scope.EvaluationKeys
	}
	in := &latestInScope{slots: map[string][]int{}, runs: make([]RunRef, len(keys)), parts: make([]*partial, len(keys))}
	for i, k := range keys {
		in.slots[k] = append(in.slots[k], i)
	}
	return in
}

// set makes run, whose partial is p, the latest of its evaluation key.
func (in *latestInScope) set(run RunRef, p *partial) {
	for _, i := range in.slots[run.EvaluationKey] {
		if old := in.parts[i]; old != nil {
			if old.err != "" {
				in.errs--
			} else {
				in.n -= old.n
				in.sum.subSum(&old.sum)
			}
		}
		in.runs[i], in.parts[i] = run, p
		if p.err != "" {
			in.errs++
		} else {
			in.n += p.n
			in.sum.addSum(&p.sum)
		}
	}
}

// state fills st with what the latest runs add up to: the first error in
// slot order, or the runs that gave a value with their count, sum, minimum
// and maximum.
func (in *latestInScope) state(st *pointState) {
	if in.errs > 0 {
		for _, p := range in.parts {
			if p != nil && p.err != "" {
				st.err = p.err
				return
			}
		}
	}
	for i, p := range in.parts {
		if p == nil || p.n == 0 {
			continue
		}
		if len(st.runs) == 0 {
			st.min, st.max = p.min, p.max
		} else {
			st.min, st.max = math.Min(st.min, p.min), math.Max(st.max, p.max)
		}
		st.runs = append(st.runs, in.runs[i])
	}
	st.n = in.n
	if st.n > 0 {
		st.sum = in.sum.float64()
	}
	if !slices.IsSortedFunc(st.runs, compareRuns) { // slots by key are sorted already
		sortRuns(st.runs)
	}
}

// compareRuns orders runs as sortRuns does.
func compareRuns(a, b RunRef) int {
	if c := strings.Compare(a.EvaluationKey, b.EvaluationKey); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// pointsOf scores a scorer's states with its aggregation, as Score
// aggregates the values of the same runs.
func pointsOf(s *model.RiskScorer, states []pointState) []Point {
	points := make([]Point, len(states))
	for i := range states {
		st := &states[i]
		p := Point{At: st.at, Changed: st.changed, Runs: st.runs, Level: NoData}
		if st.err != "" {
			p.Level, p.Error = Failed, st.err
		} else {
			p.Values = st.n
			agg := aggregator{kind: s.Aggregation, n: st.n}
			switch {
			case agg.mean():
				agg.sum.parts = []float64{st.sum} // exact sums round once to it
			case agg.kind == "max":
				agg.acc = st.max
			default:
				agg.acc = st.min
			}
			if score, ok := agg.score(); ok {
				p.Score = &score
				p.Level = LevelOf(score)
			}
		}
		points[i] = p
	}
	return points
}
