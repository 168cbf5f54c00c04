package project

import (
	"context"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// Trend is how a risk scorer moved: against its previous point (the score
// it had just before the latest run in its scope arrived) and over a
// window (its score now minus its score the window earlier).
type Trend struct {
	// Previous is the move from the previous point; nil when there is no
	// previous point or either has no score.
	Previous   *risk.Trend `json:"previous"`
	PreviousAt string      `json:"previous_at,omitempty"` // when the latest point began
	Window     string      `json:"window"`
	// Delta is the score now minus the score a window ago; nil when either
	// has no score.
	Delta *float64 `json:"delta"`
}

// Trends computes the trend of each result of an overview of f (as of
// f.At, or now), keyed by scorer.
func Trends(ctx context.Context, st *store.Store, f OverviewFilter, res []risk.Result, window time.Duration, windowText string) (map[string]*Trend, error) {
	at := f.At
	if at.IsZero() {
		at = time.Now().UTC()
	}
	scorers, err := st.RiskScorers(ctx)
	if err != nil {
		return nil, diag.Internal(err)
	}
	methods, err := st.Methodologies(ctx)
	if err != nil {
		return nil, diag.Internal(err)
	}
	selected, _ := f.apply(scorers)
	runs, err := st.RunTimeline(ctx, nil)
	if err != nil {
		return nil, diag.Internal(err)
	}
	atText := store.FormatTime(at)
	latest := map[string]string{} // evaluation key -> created_at of its latest run as of at
	for _, r := range runs {
		if r.CreatedAt <= atText {
			latest[r.EvaluationKey] = r.CreatedAt
		}
	}
	byMoment := map[string][]*model.RiskScorer{} // previous moment -> scorers
	prevAt := map[string]string{}
	for _, s := range selected {
		last := lastPoint(s, latest)
		if last == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, last)
		if err != nil {
			return nil, diag.Internal(err)
		}
		m := store.FormatTime(t.Add(-time.Nanosecond))
		byMoment[m] = append(byMoment[m], s)
		prevAt[s.Key] = t.UTC().Format(time.RFC3339Nano)
	}
	prev := map[string]risk.Result{}
	for m, ss := range byMoment {
		got, err := risk.Score(ctx, asOf{st: st, at: m}, methods, ss)
		if err != nil {
			return nil, diag.Internal(err)
		}
		for _, r := range got {
			prev[r.Key] = r
		}
	}
	then, err := risk.Score(ctx, asOf{st: st, at: store.FormatTime(at.Add(-window))}, methods, selected)
	if err != nil {
		return nil, diag.Internal(err)
	}
	thenBy := map[string]risk.Result{}
	for _, r := range then {
		thenBy[r.Key] = r
	}
	out := map[string]*Trend{}
	for _, r := range res {
		tr := &Trend{Window: windowText, PreviousAt: prevAt[r.Key]}
		if p, ok := prev[r.Key]; ok && p.Score != nil && r.Score != nil {
			x := risk.TrendOf(*p.Score, *r.Score)
			tr.Previous = &x
		}
		if w, ok := thenBy[r.Key]; ok && w.Score != nil && r.Score != nil {
			d := risk.TrendOf(*w.Score, *r.Score).Delta
			tr.Delta = &d
		}
		out[r.Key] = tr
	}
	return out, nil
}

// lastPoint is the created_at of the latest run in s's scope, "" when none.
func lastPoint(s *model.RiskScorer, latest map[string]string) string {
	last := ""
	if s.Scope.AllLatest || s.Scope.EvaluationKeys == nil {
		for _, c := range latest {
			last = max(last, c)
		}
		return last
	}
	for _, k := range s.Scope.EvaluationKeys {
		last = max(last, latest[k])
	}
	return last
}
